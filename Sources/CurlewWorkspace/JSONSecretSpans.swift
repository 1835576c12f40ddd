import CurlewAgent

/// Where the secret values of a JSON text sit: the contents of the strings, and the numbers and
/// words (`true`), that are the value of a secret member or anywhere under one. Read leniently,
/// so that a body with templates (`{"id": {{id}}, "password": "…"}`) or escaped braces (`\{{`)
/// is read too: strings, brackets, braces, colons and commas are all it looks at. A text cut
/// short (a container or a string never closed, `{"password":"abc`) is read as far as it goes,
/// since a request sends it as it is. Nil for text that does not start as JSON structure or
/// closes a bracket it did not open.
struct JSONSecretSpans {
    /// Each secret value's member name and its bytes in the text (inside the quotes for a string).
    let spans: [(key: String, range: Range<Int>)]
    /// Where the spans that are a string's content start (the others are numbers and words).
    let stringStarts: Set<Int>

    private struct Frame {
        var isObject: Bool
        /// Whether the container is the value of a secret member, or under one.
        var secret: Bool
        /// Whether the container is a member's value, its name then the last of `parents`.
        var named: Bool
        var key: String
        var expectingKey: Bool
        var valueIsSecret = false
    }

    /// `isSecret` gets a member's name and the names of the members it is under.
    init?(_ text: String, isSecret: (_ name: String, _ parents: [String]) -> Bool) {
        let bytes = Array(text.utf8)
        guard let first = bytes.first(where: { !Self.isWhitespace($0) }), first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else { return nil }
        var stack: [Frame] = []
        // The names of the members the open containers are the values of, outermost first:
        // one list for all frames, so a body nested deep keeps one name a level, not a copy
        // of the path in each.
        var parents: [String] = []
        var spans: [(key: String, range: Range<Int>)] = []
        var stringStarts = Set<Int>()
        /// Whether a value read now is secret, and the member it belongs to.
        func valueContext() -> (secret: Bool, key: String)? {
            guard let top = stack.last else { return nil }
            if top.isObject { return top.expectingKey ? nil : (top.valueIsSecret, top.key) }
            return (top.secret, top.key)
        }
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                var end = index + 1
                while end < bytes.count, bytes[end] != UInt8(ascii: "\"") { end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1 }
                // A string never closed runs to the end; one whose last escape was cut is left
                // out (filled in, its text would be escaped otherwise than written).
                guard end <= bytes.count else {
                    index = bytes.count
                    continue
                }
                let content = (index + 1)..<end
                if let top = stack.last, top.isObject, top.expectingKey {
                    let key = Self.decodedKey(bytes[content])
                    stack[stack.count - 1].key = key
                    // The names nearest it are the ones that can spell a secret with it.
                    stack[stack.count - 1].valueIsSecret = top.secret || isSecret(key, Array(parents.suffix(Self.parentsRead)))
                    stack[stack.count - 1].expectingKey = false
                } else if let context = valueContext(), context.secret {
                    spans.append((context.key, content))
                    stringStarts.insert(content.lowerBound)
                }
                index = end + 1
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let context = valueContext()
                // A member's value adds its name to the path; an array's element adds none.
                let named = stack.last?.isObject ?? false
                if named, let top = stack.last { parents.append(top.key) }
                stack.append(Frame(isObject: byte == UInt8(ascii: "{"), secret: context?.secret ?? false, named: named, key: context?.key ?? "",
                                   expectingKey: byte == UInt8(ascii: "{")))
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard let top = stack.popLast(), top.isObject == (byte == UInt8(ascii: "}")) else { return nil }
                if top.named { parents.removeLast() }
                index += 1
            case UInt8(ascii: ","):
                if let top = stack.last, top.isObject { stack[stack.count - 1].expectingKey = true }
                index += 1
            case UInt8(ascii: ":"):
                index += 1
            case _ where Self.isWhitespace(byte):
                index += 1
            default:
                // A number or a word: up to the next character JSON gives a meaning.
                var end = index
                while end < bytes.count, !Self.isWhitespace(bytes[end]), !Self.structural.contains(bytes[end]) { end += 1 }
                // `null`, `true` and `false` are no secrets: a secret of one would hide every
                // "true" in the logs (found by a new user's trial).
                let word = bytes[index..<end]
                if let context = valueContext(), context.secret,
                   !word.elementsEqual("null".utf8), !word.elementsEqual("true".utf8), !word.elementsEqual("false".utf8) {
                    spans.append((context.key, index..<end))
                }
                index = end
            }
        }
        self.spans = spans
        self.stringStarts = stringStarts
    }

    private static let structural: Set<UInt8> = Set("{}[],:\"".utf8)
    /// How many of the names a member is under are handed to `isSecret`: more than any path the
    /// redaction rule reads (`JSONMemberPath.joinedLimit`) holds, as each name takes a byte and
    /// two marks at least.
    private static let parentsRead = 256

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// A member name's text with JSON's escapes read (`"pass\u0077ord"` is `password`); as
    /// written when they do not read.
    private static func decodedKey(_ raw: ArraySlice<UInt8>) -> String {
        let written = String(decoding: raw, as: UTF8.self)
        guard raw.contains(UInt8(ascii: "\\")), case .string(let key)? = try? JSONValue.parse("\"\(written)\"") else { return written }
        return key
    }
}
