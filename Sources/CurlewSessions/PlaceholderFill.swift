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
        /// Postman's path variable `:name`: the path segment after the colon, or the letters,
        /// digits, `_` and `-` that start it.
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
            let value = placeholder(in: bytes, at: index, syntax).lazy.compactMap { end -> (String, Int)? in
                values[String(decoding: bytes[(index + 1)..<end.name], as: UTF8.self)].map { ($0, end.placeholder) }
            }.first
            guard let (value, placeholderEnd) = value else {
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

    /// Where the name of a placeholder opening at `index` may end, and the placeholder with it,
    /// the longest first; none when no placeholder opens there. A colon's name is its path
    /// segment whole (`:file.json`, as Postman reads it), else the letters, digits, `_` and `-`
    /// after it (`:id` in `:id.json`).
    private static func placeholder(in bytes: [UInt8], at index: Int, _ syntax: Syntax) -> [(name: Int, placeholder: Int)] {
        switch syntax {
        case .braced:
            guard bytes[index] == UInt8(ascii: "{") else { return [] }
            var end = index + 1
            while end < bytes.count, bytes[end] != UInt8(ascii: "}") {
                if bytes[end] == UInt8(ascii: "{") { return [] }
                end += 1
            }
            return end < bytes.count && end > index + 1 ? [(end, end + 1)] : []
        case .colon:
            guard bytes[index] == UInt8(ascii: ":") else { return [] }
            var word = index + 1
            while word < bytes.count, isNameByte(bytes[word]) { word += 1 }
            var segment = word
            while segment < bytes.count, !isSegmentEnd(bytes[segment]) { segment += 1 }
            return [segment, word].filter { $0 > index + 1 }.reduce(into: []) { ends, end in
                if ends.last?.name != end { ends.append((end, end)) }
            }
        }
    }

    /// `/`, `?`, `#`, `:`: where a path segment's variable name stops.
    private static func isSegmentEnd(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") || byte == UInt8(ascii: ":")
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (byte | 0x20) &- 0x61 < 26 || byte &- 0x30 < 10 || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }
}
