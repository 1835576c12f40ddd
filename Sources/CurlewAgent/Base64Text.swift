/// Base64 (RFC 4648's standard alphabet, padded, no line breaks) written straight into a buffer:
/// the session log's binary bodies, without an intermediate `Data` and `String` per body.
enum Base64Text {
    private static let alphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

    /// The two characters of every 12-bit value, the first in the low byte: six input bytes take
    /// four lookups and one 8-byte store.
    private static let pairs: [UInt16] = (0..<4096).map { value in
        UInt16(alphabet.utf8Start[value >> 6]) | UInt16(alphabet.utf8Start[value & 0x3F]) << 8
    }

    /// Characters the encoding of `byteCount` bytes takes.
    static func encodedLength(of byteCount: Int) -> Int {
        (byteCount + 2) / 3 * 4
    }

    /// Writes the encoding of `bytes` at `output`, which has room for `encodedLength(of:)`
    /// characters.
    static func encode(_ bytes: UnsafeRawBufferPointer, into output: UnsafeMutablePointer<UInt8>) {
        let count = bytes.count
        guard count > 0, let source = bytes.baseAddress else { return }
        let destination = UnsafeMutableRawPointer(output)
        var read = 0
        var written = 0
        pairs.withUnsafeBufferPointer { pairs in
            // Eight bytes loaded, six of them encoded, while eight remain to load.
            while read + 8 <= count {
                let word = UInt64(bigEndian: source.loadUnaligned(fromByteOffset: read, as: UInt64.self))
                let packed = UInt64(pairs[Int(word >> 52)]) | UInt64(pairs[Int(word >> 40 & 0xFFF)]) << 16
                    | UInt64(pairs[Int(word >> 28 & 0xFFF)]) << 32 | UInt64(pairs[Int(word >> 16 & 0xFFF)]) << 48
                destination.storeBytes(of: packed.littleEndian, toByteOffset: written, as: UInt64.self)
                read += 6
                written += 8
            }
        }
        let table = alphabet.utf8Start
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
