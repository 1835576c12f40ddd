import CurlewAgent
import Foundation

/// Reads JSON Lines session logs. A truncated or corrupt line is skipped and counted, never fatal;
/// only a file with no readable record at all is refused.
public enum SessionLogReader {
    public static func read(path: String) throws(SessionLogError) -> SessionLog {
        try SessionLogError.requireRegularFile(path)
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw SessionLogError(kind: .unreadable, path: path, reason: (error as NSError).localizedDescription)
        }
        let log = read(data: data)
        if log.headers.isEmpty, log.messages.isEmpty, !log.skipped.isEmpty {
            let first = log.skipped[0]
            throw SessionLogError(kind: .notASessionLog, path: path, reason: "line \(first.line): \(first.reason)")
        }
        return log
    }

    public static func read(data: Data) -> SessionLog {
        var log = SessionLog(headers: [], messages: [], skipped: [])
        let decoder = SessionLogFormat.makeDecoder()
        var lineNumber = 0
        for line in data.split(separator: 0x0A, omittingEmptySubsequences: false) {
            lineNumber += 1
            let trimmed = line.last == 0x0D ? line.dropLast() : line
            guard !trimmed.isEmpty else { continue }
            let record = Data(trimmed)
            do {
                switch try decoder.decode(RecordTag.self, from: record).type {
                case "header":
                    log.headers.append(try decoder.decode(SessionLogHeader.self, from: record))
                case "message":
                    log.messages.append(try decoder.decode(DebugMessage.self, from: record))
                case let other:
                    log.skipped.append(SkippedLine(line: lineNumber, reason: "unknown record type \(other.debugDescription)"))
                }
            } catch {
                log.skipped.append(SkippedLine(line: lineNumber, reason: describe(error)))
            }
        }
        return log
    }

    private struct RecordTag: Decodable {
        let type: String
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context):
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
