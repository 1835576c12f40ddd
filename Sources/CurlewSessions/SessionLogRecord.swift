import CurlewAgent
import Foundation

/// One line of a session log decoded in full: a header, a message, or why it is neither. The
/// reader and the log index read lines through this one definition.
enum SessionLogRecord {
    case header(SessionLogHeader)
    case message(DebugMessage)
    case skipped(String)

    init(decoding line: Data, with decoder: JSONDecoder) {
        do {
            switch try decoder.decode(RecordTag.self, from: line).type {
            case "header": self = .header(try SessionLogFormat.decode(SessionLogHeader.self, from: line, with: decoder))
            case "message": self = .message(try SessionLogFormat.decode(DebugMessage.self, from: line, with: decoder))
            case let other: self = .skipped("unknown record type \(other.debugDescription)")
            }
        } catch {
            self = .skipped(Self.describe(error, line: line))
        }
    }

    /// The summary leading a message line that is a complete JSON object, read without decoding
    /// the record; nil otherwise. Such a line is an entry of the log whether or not its record
    /// decodes: the log index counts entries this way (it reads summaries, not records), and the
    /// reader numbers entries the same way, so `LOG#N` and the log browser's entry N are one line.
    static func leadingSummary(of line: UnsafeBufferPointer<UInt8>) -> SessionRecordSummary? {
        guard isCompleteObject(line) else { return nil }
        return SessionRecordSummary.read(line)
    }

    /// Whether a line (without its line end) starts with `{` and ends with `}`, as every line
    /// the writer writes does; any other line is skipped unread by every reader, with
    /// `incompleteObjectReason`.
    static func isCompleteObject(_ line: some BidirectionalCollection<UInt8>) -> Bool {
        line.first == UInt8(ascii: "{") && line.last == UInt8(ascii: "}")
    }

    static let incompleteObjectReason = "not a complete JSON object (truncated or corrupt)"

    /// How deep `JSONDecoder` reads a record's arrays and objects, itself included.
    static let readableDepth = 512

    /// How deep `line`'s arrays and objects go, outside its strings (a `\"` inside one read
    /// past): one pass, on the path of a line that did not decode.
    static func nestingDepth(of line: Data) -> Int {
        var (depth, deepest, inString, escaped) = (0, 0, false, false)
        for byte in line {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
            default: break
            }
        }
        return deepest
    }

    private struct RecordTag: Decodable {
        let type: String
    }

    private static func describe(_ error: any Error, line: Data) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context) where !context.codingPath.isEmpty:
            // Valid JSON with a value the record cannot hold (a state no state is called).
            return "invalid value at \(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)"
        case DecodingError.dataCorrupted(let context):
            // The decoder says a number it cannot hold (`1.5` where a whole number goes) is not
            // JSON, without where: said as what it is when a strict reader takes the line.
            if (try? JSONSerialization.jsonObject(with: line, options: [.fragmentsAllowed])) != nil {
                return "valid JSON with a value the record cannot hold (such as a fraction, or a number out of range, where a whole number goes)"
            }
            // The decoder reads no deeper than 512 levels, and says so as "not valid JSON".
            if nestingDepth(of: line) > readableDepth {
                return "nested deeper than the \(readableDepth) levels a record is read to"
            }
            return "not valid JSON (truncated or corrupt): \(context.debugDescription)"
        case DecodingError.keyNotFound(let key, _):
            return "missing field \(key.stringValue)"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return "wrong type at \(path): \(context.debugDescription)"
        default:
            return "\(error)"
        }
    }
}
