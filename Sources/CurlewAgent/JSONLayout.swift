import Foundation

/// JSON text laid out anew, every token as written: numbers keep their digits
/// (`12345678901234567890123`, `1e400`, `-0`, `1.50`) and strings their escapes, where reading the
/// text into a `JSONValue` and writing it again would round a number a double cannot hold and
/// change how a string is written. Only the white space between tokens changes.
public enum JSONLayout {
    /// `text` indented with two spaces a level, laid out as `serialized(pretty: true)` lays out
    /// JSON; nil when it is not one JSON text. Levels deeper than `deepestIndentedLevel` keep its
    /// indentation: a hostile body of short values nested hundreds deep would otherwise grow
    /// a thousandfold, a line of spaces for each value.
    public static func indented(_ text: String) -> String? {
        laidOut(text, indenting: true)
    }

    /// The deepest level whose lines are indented further than the one above.
    public static let deepestIndentedLevel = 20

    /// `text` without white space between its tokens, laid out as `serialized()` lays out JSON;
    /// nil when it is not one JSON text. Equal to the serialized value exactly when writing the
    /// value again keeps every token as the text has it.
    public static func compacted(_ text: String) -> String? {
        laidOut(text, indenting: false)
    }

    private static func laidOut(_ text: String, indenting: Bool) -> String? {
        let bytes = Array(text.utf8)
        // Read first, so that the walk below only ever meets well-formed JSON.
        guard (try? JSONValue.parse(Data(bytes))) != nil else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(indenting ? bytes.count + bytes.count / 2 : bytes.count)
        var depth = 0
        var index = 0
        func startLine() {
            guard indenting else { return }
            output.append(0x0A)
            output.append(contentsOf: repeatElement(0x20, count: 2 * min(depth, deepestIndentedLevel)))
        }
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D:
                continue
            case UInt8(ascii: "\""):
                let start = index - 1
                while bytes[index] != UInt8(ascii: "\"") { index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1 }
                index += 1
                output.append(contentsOf: bytes[start..<index])
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                output.append(byte)
                var next = index
                while isSpace(bytes[next]) { next += 1 }
                if bytes[next] == UInt8(ascii: "}") || bytes[next] == UInt8(ascii: "]") {
                    output.append(bytes[next])
                    index = next + 1
                } else {
                    depth += 1
                    startLine()
                }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                startLine()
                output.append(byte)
            case UInt8(ascii: ","):
                output.append(byte)
                startLine()
            case UInt8(ascii: ":"):
                output.append(byte)
                if indenting { output.append(0x20) }
            default:
                // A number, `true`, `false` or `null`, byte by byte as written.
                output.append(byte)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
