/// A body made while it is sent: `count` bytes from position `first` of the resource, so a range
/// of a huge resource, or a large random body, costs no memory. Optionally spread over `duration`
/// seconds, and cut after `abortAfter` bytes: with a close (every byte sent reaches the client) or
/// a reset (the client loses what it had not read yet).
struct GeneratedBody: Sendable {
    /// What the resource's bytes are.
    enum Content: Sendable {
        /// The alphabet, rotated by `shift` (another version of the resource has other bytes).
        case alphabet(shift: Int)
        /// `DeterministicBytes.random` from this seed.
        case random(seed: UInt64)
    }

    var first: Int
    var count: Int
    var content: Content
    var duration: Double = 0
    var abortAfter: Int?
    /// Cut with a reset (RST) instead of a close.
    var abortsWithReset = false

    /// Bytes per write: small enough to pace a slow body, large enough to stream a fast one.
    var pieceSize: Int {
        duration > 0 ? max(1, min(64 << 10, count / 100)) : Self.largestPiece
    }

    /// Seconds between writes.
    var interval: Double {
        duration > 0 ? duration / Double(max(1, (count + pieceSize - 1) / pieceSize)) : 0
    }

    /// The body bytes `offset ..< offset + length` (offsets within this body; `length` at most
    /// `largestPiece`).
    func bytes(from offset: Int, length: Int) -> [UInt8] {
        switch content {
        case .alphabet(let shift):
            let start = (first + offset + shift) % 26
            return Array(Self.alphabet[start..<(start + length)])
        case .random(let seed):
            return DeterministicBytes.random(seed: seed, from: first + offset, count: length)
        }
    }

    private static let largestPiece = 256 << 10
    /// The alphabet repeated past the largest piece plus one alphabet's worth of offset.
    private static let alphabet: [UInt8] = (0..<(largestPiece + 26)).map { UInt8(ascii: "a") + UInt8($0 % 26) }
}
