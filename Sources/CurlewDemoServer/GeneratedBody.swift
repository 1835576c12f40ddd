/// A body made while it is sent: `count` bytes of the alphabet from position `first`, so a range
/// of a huge resource costs no memory. Optionally spread over `duration` seconds, and cut after
/// `abortAfter` bytes: with a close (every byte sent reaches the client) or a reset (the client
/// loses what it had not read yet).
struct GeneratedBody: Sendable {
    var first: Int
    var count: Int
    /// Rotates the alphabet, so another version of the resource has other bytes.
    var shift: Int
    var duration: Double
    var abortAfter: Int?
    /// Cut with a reset (RST) instead of a close.
    var abortsWithReset = false

    /// Bytes per write: small enough to pace a slow body, large enough to stream a fast one.
    var pieceSize: Int {
        duration > 0 ? max(1, min(64 << 10, count / 100)) : 256 << 10
    }

    /// Seconds between writes.
    var interval: Double {
        duration > 0 ? duration / Double(max(1, (count + pieceSize - 1) / pieceSize)) : 0
    }

    /// The body bytes `offset ..< offset + length` (offsets within this body; `length` at most
    /// 256 KiB), copied from a prepared run of the alphabet.
    func bytes(from offset: Int, length: Int) -> [UInt8] {
        let start = (first + offset + shift) % 26
        return Array(Self.pattern[start..<(start + length)])
    }

    /// The alphabet repeated past the largest piece plus one alphabet's worth of offset.
    private static let pattern: [UInt8] = (0..<((256 << 10) + 26)).map { UInt8(ascii: "a") + UInt8($0 % 26) }
}
