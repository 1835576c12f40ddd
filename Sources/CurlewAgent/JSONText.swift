import Foundation

/// Why a JSON text could not be read, with the byte offset where reading stopped.
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public var offset: Int
    public var reason: String

    public var description: String { "invalid JSON at byte \(offset): \(reason)" }
}

extension JSONValue {
    /// Parses a complete JSON text (RFC 8259), keeping member order.
    public static func parse(_ data: Data) throws(JSONSyntaxError) -> JSONValue {
        var parser = JSONParser(bytes: Array(data))
        return try parser.parseDocument()
    }

    public static func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        try parse(Data(text.utf8))
    }

    /// The number, `true`, `false` or `null` that `text` is when it is written exactly as JSON
    /// writes it (`42`, `1.5`; not `042`, `1.0`, `1e3` or `0x1F`); nil for any other text. How a
    /// value given as text is told to be a JSON scalar rather than text that looks like one.
    public static func canonicalScalar(_ text: String) -> JSONValue? {
        // `JSONValue` is a nil literal itself (`null`): the misses are said as `.none`.
        guard let read = try? parse(text) else { return .none }
        switch read {
        case .int, .double, .bool, .null: return read.serialized() == text ? .some(read) : .none
        case .string, .array, .object: return .none
        }
    }

    /// Compact JSON, or indented with two spaces when `pretty`.
    public func serialized(pretty: Bool = false) -> String {
        var output = ""
        write(to: &output, pretty: pretty, indent: 0)
        return output
    }

    private func write(to output: inout String, pretty: Bool, indent: Int) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .int(let value): output += String(value)
        case .double(let value):
            if value.isFinite {
                output += value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
            } else {
                output += "null"
            }
        case .string(let value): Self.writeString(value, to: &output)
        case .array(let elements):
            guard !elements.isEmpty else { output += "[]"; return }
            output += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { output += "," }
                if pretty { output += "\n" + String(repeating: "  ", count: indent + 1) }
                element.write(to: &output, pretty: pretty, indent: indent + 1)
            }
            if pretty { output += "\n" + String(repeating: "  ", count: indent) }
            output += "]"
        case .object(let members):
            guard !members.isEmpty else { output += "{}"; return }
            output += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { output += "," }
                if pretty { output += "\n" + String(repeating: "  ", count: indent + 1) }
                Self.writeString(member.key, to: &output)
                output += pretty ? ": " : ":"
                member.value.write(to: &output, pretty: pretty, indent: indent + 1)
            }
            if pretty { output += "\n" + String(repeating: "  ", count: indent) }
            output += "}"
        }
    }

    private static func writeString(_ value: String, to output: inout String) {
        output += "\""
        writeStringContents(value, to: &output)
        output += "\""
    }

    /// `value` as a JSON string holds it, without the quotes.
    static func writeStringContents(_ value: String, to output: inout String) {
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                output += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
            default: output.unicodeScalars.append(scalar)
            }
        }
    }
}

/// A recursive-descent reader over UTF-8 bytes.
private struct JSONParser {
    let bytes: [UInt8]
    var position = 0
    var depth = 0
    static let maxDepth = 512

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func parseDocument() throws(JSONSyntaxError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard position == bytes.count else { throw fail("unexpected data after the document") }
        return value
    }

    private func fail(_ reason: String) -> JSONSyntaxError {
        JSONSyntaxError(offset: position, reason: reason)
    }

    private mutating func skipWhitespace() {
        while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
    }

    private mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
        guard position < bytes.count else { throw fail("unexpected end of input") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw fail("unexpected character")
        }
    }

    private mutating func expectLiteral(_ literal: String) throws(JSONSyntaxError) {
        let expected = Array(literal.utf8)
        guard position + expected.count <= bytes.count, Array(bytes[position..<position + expected.count]) == expected else {
            throw fail("expected \(literal)")
        }
        position += expected.count
    }

    private mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        guard depth <= Self.maxDepth else { throw fail("nesting deeper than \(Self.maxDepth)") }
    }

    private mutating func parseObject() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        position += 1
        var members: [JSONMember] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") { position += 1; return .object(members) }
        while true {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw fail("expected a member name") }
            let key = try parseString()
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            position += 1
            skipWhitespace()
            members.append(JSONMember(key, try parseValue()))
            skipWhitespace()
            guard position < bytes.count else { throw fail("unexpected end of input in an object") }
            if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
            if bytes[position] == UInt8(ascii: "}") { position += 1; return .object(members) }
            throw fail("expected ',' or '}'")
        }
    }

    private mutating func parseArray() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        position += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") { position += 1; return .array(elements) }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            guard position < bytes.count else { throw fail("unexpected end of input in an array") }
            if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
            if bytes[position] == UInt8(ascii: "]") { position += 1; return .array(elements) }
            throw fail("expected ',' or ']'")
        }
    }

    private mutating func parseString() throws(JSONSyntaxError) -> String {
        position += 1
        var runStart = position
        var result = ""
        func flushRun(_ end: Int) {
            if end > runStart { result += String(decoding: bytes[runStart..<end], as: UTF8.self) }
        }
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                flushRun(position)
                position += 1
                return result
            }
            if byte < 0x20 { throw fail("control character in a string") }
            if byte == UInt8(ascii: "\\") {
                flushRun(position)
                position += 1
                guard position < bytes.count else { break }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""): result += "\""
                case UInt8(ascii: "\\"): result += "\\"
                case UInt8(ascii: "/"): result += "/"
                case UInt8(ascii: "b"): result += "\u{08}"
                case UInt8(ascii: "f"): result += "\u{0C}"
                case UInt8(ascii: "n"): result += "\n"
                case UInt8(ascii: "r"): result += "\r"
                case UInt8(ascii: "t"): result += "\t"
                case UInt8(ascii: "u"):
                    var code = try parseHex4()
                    // A high surrogate pairs with an immediately following low one; a lone or
                    // reversed surrogate reads as U+FFFD and the next escape stands on its own.
                    while (0xD800..<0xDC00).contains(code), position + 5 < bytes.count,
                          bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") {
                        position += 2
                        let next = try parseHex4()
                        if (0xDC00..<0xE000).contains(next) {
                            code = 0x10000 + ((code - 0xD800) << 10) + (next - 0xDC00)
                        } else {
                            result.unicodeScalars.append("\u{FFFD}")
                            code = next
                        }
                    }
                    result.unicodeScalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
                default: throw fail("invalid escape")
                }
                runStart = position
                continue
            }
            position += 1
        }
        throw fail("unterminated string")
    }

    private mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw fail("invalid \\u escape") }
        var value: UInt32 = 0
        for byte in bytes[position..<position + 4] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw fail("invalid \\u escape")
            }
            value = value << 4 | UInt32(digit)
        }
        position += 4
        return value
    }

    private mutating func parseNumber() throws(JSONSyntaxError) -> JSONValue {
        let start = position
        var isInteger = true
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        while position < bytes.count {
            let byte = bytes[position]
            if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                position += 1
            } else if byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
                        || ((byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")) && !isInteger) {
                isInteger = false
                position += 1
            } else {
                break
            }
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        if isInteger, let value = Int64(text) { return .int(value) }
        guard let value = Double(text), text != "-" else { throw JSONSyntaxError(offset: start, reason: "invalid number") }
        return .double(value)
    }
}
