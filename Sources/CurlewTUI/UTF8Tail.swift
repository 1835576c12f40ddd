/// Where UTF-8 text read in pieces was cut: the bytes at its end that start a character the
/// piece does not finish, to be put in front of the next piece rather than decoded apart.
enum UTF8Tail {
    /// How many bytes at the end of `bytes` start a character they do not finish (0 to 3); 0
    /// when the last character is whole, or the bytes are not UTF-8 there anyway.
    static func incompleteCount(_ bytes: [UInt8]) -> Int {
        var start = bytes.count
        // The last byte that is not a continuation byte (10xxxxxx), among the last three.
        while start > max(0, bytes.count - 3) {
            start -= 1
            let byte = bytes[start]
            guard byte & 0xC0 == 0x80 else {
                let length = byte >= 0xF0 && byte <= 0xF7 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC2 && byte < 0xE0 ? 2 : 1
                return bytes.count - start < length && byte < 0xF8 ? bytes.count - start : 0
            }
        }
        return 0
    }
}
