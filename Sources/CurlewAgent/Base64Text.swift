/// Base64 (RFC 4648's standard alphabet, padded, no line breaks) written straight into a buffer:
/// the session log's binary bodies, without an intermediate `Data` and `String` per body.
enum Base64Text {
    private static let alphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

    /// Characters the encoding of `byteCount` bytes takes.
    static func encodedLength(of byteCount: Int) -> Int {
        (byteCount + 2) / 3 * 4
    }

    /// Writes the encoding of `bytes` at `output`, which has room for `encodedLength(of:)`
    /// characters.
    static func encode(_ bytes: UnsafeRawBufferPointer, into output: UnsafeMutablePointer<UInt8>) {
        let table = alphabet.utf8Start
        let count = bytes.count
        var read = 0
        var written = 0
        while read + 3 <= count {
            let group = UInt32(bytes[read]) << 16 | UInt32(bytes[read + 1]) << 8 | UInt32(bytes[read + 2])
            output[written] = table[Int(group >> 18)]
            output[written + 1] = table[Int(group >> 12 & 0x3F)]
            output[written + 2] = table[Int(group >> 6 & 0x3F)]
            output[written + 3] = table[Int(group & 0x3F)]
            read += 3
            written += 4
        }
        let left = count - read
        guard left > 0 else { return }
        let group = UInt32(bytes[read]) << 16 | (left == 2 ? UInt32(bytes[read + 1]) << 8 : 0)
        output[written] = table[Int(group >> 18)]
        output[written + 1] = table[Int(group >> 12 & 0x3F)]
        output[written + 2] = left == 2 ? table[Int(group >> 6 & 0x3F)] : UInt8(ascii: "=")
        output[written + 3] = UInt8(ascii: "=")
    }
}
