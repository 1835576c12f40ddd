/// A body made while it is sent: `count` bytes of the alphabet from position `first`, so a range
/// of a huge resource costs no memory. Optionally spread over `duration` seconds, and cut with a
/// connection reset after `abortAfter` bytes.
struct GeneratedBody: Sendable {
    var first: Int
    var count: Int
    /// Rotates the alphabet, so another version of the resource has other bytes.
    var shift: Int
    var duration: Double
    var abortAfter: Int?

    /// Bytes per write: small enough to pace a slow body, large enough to stream a fast one.
    var pieceSize: Int {
        duration > 0 ? max(1, min(64 << 10, count / 100)) : 256 << 10
    }

    /// Seconds between writes.
    var interval: Double {
        duration > 0 ? duration / Double(max(1, (count + pieceSize - 1) / pieceSize)) : 0
    }

    /// The body bytes `offset ..< offset + length` (offsets within this body).
    func bytes(from offset: Int, length: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: length) { buffer, initialized in
            var value = Int((first + offset + shift) % 26)
            for index in 0..<length {
                buffer[index] = UInt8(ascii: "a") + UInt8(value)
                value = value == 25 ? 0 : value + 1
            }
            initialized = length
        }
    }
}
