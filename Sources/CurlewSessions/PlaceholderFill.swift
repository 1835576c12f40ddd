import CurlewAgent

/// Fills the placeholders of an imported URL from a list of values, in one pass over the URL as
/// written: what a value brings in is never read again (a value naming another placeholder stays
/// as it is), so no list of values can make the work or the URL grow beyond the values' own
/// lengths, each placeholder's at most once.
public enum PlaceholderFill {
    /// Which placeholders are filled.
    public enum Syntax: Sendable {
        /// OpenAPI's `{name}`: everything between the braces.
        case braced
        /// Postman's path variable `:name`: the letters, digits, `_` and `-` after the colon.
        case colon
    }

    /// `text` with each placeholder whose name `values` holds replaced by its value; others stay
    /// as written. Nil when the result would be longer than a request head can carry
    /// (`RequestHeadLimit.bytes`): no request could be sent with it.
    public static func filling(_ text: String, _ syntax: Syntax, from values: [String: String]) -> String? {
        guard !values.isEmpty else { return text }
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            guard let (nameEnd, placeholderEnd) = placeholder(in: bytes, at: index, syntax),
                  let value = values[String(decoding: bytes[(index + 1)..<nameEnd], as: UTF8.self)] else {
                output.append(byte)
                index += 1
                continue
            }
            output.append(contentsOf: value.utf8)
            guard output.count <= RequestHeadLimit.bytes else { return nil }
            index = placeholderEnd
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Where the name of a placeholder opening at `index` ends, and where the placeholder does;
    /// nil when none opens there.
    private static func placeholder(in bytes: [UInt8], at index: Int, _ syntax: Syntax) -> (nameEnd: Int, end: Int)? {
        switch syntax {
        case .braced:
            guard bytes[index] == UInt8(ascii: "{") else { return nil }
            var end = index + 1
            while end < bytes.count, bytes[end] != UInt8(ascii: "}") {
                if bytes[end] == UInt8(ascii: "{") { return nil }
                end += 1
            }
            return end < bytes.count && end > index + 1 ? (end, end + 1) : nil
        case .colon:
            guard bytes[index] == UInt8(ascii: ":") else { return nil }
            var end = index + 1
            while end < bytes.count, isNameByte(bytes[end]) { end += 1 }
            return end > index + 1 ? (end, end) : nil
        }
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (byte | 0x20) &- 0x61 < 26 || byte &- 0x30 < 10 || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }
}
