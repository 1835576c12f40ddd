/// Where UTF-8 text read in pieces was cut: the bytes at its end that start a character the
/// piece does not finish, to be put in front of the next piece rather than decoded apart.
enum UTF8Tail {
    /// How many bytes at the end of `bytes` start a character they do not finish (0 to 3), read
    /// by their lead byte's length; 0 when the last character is whole, or its lead byte starts
    /// none (a byte that is not UTF-8 is decoded as such in its own piece).
    static func incompleteCount(_ bytes: [UInt8]) -> Int {
        var start = bytes.count
        // The last byte that is not a continuation byte (10xxxxxx), among the last three.
        while start > max(0, bytes.count - 3) {
            start -= 1
            let byte = bytes[start]
            guard byte & 0xC0 == 0x80 else {
                let length = switch byte {
                case 0xC2...0xDF: 2
                case 0xE0...0xEF: 3
                case 0xF0...0xF4: 4
                default: 1
                }
                return bytes.count - start < length ? bytes.count - start : 0
            }
        }
        return 0
    }
}
