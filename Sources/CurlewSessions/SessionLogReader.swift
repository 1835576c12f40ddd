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
            throw SessionLogError.unreadable(path, error)
        }
        let log = read(data: data)
        // Refused only when no line is a record: a damaged entry whose summary reads is one.
        if log.headers.isEmpty, log.messages.isEmpty, !log.skipped.isEmpty, log.skipped.allSatisfy({ $0.entry == nil }) {
            let first = log.skipped[0]
            throw SessionLogError(kind: .notASessionLog, path: path, reason: "line \(first.line): \(first.reason)")
        }
        return log
    }

    public static func read(data: Data) -> SessionLog {
        var log = SessionLog(headers: [], messages: [], entryNumbers: [], skipped: [])
        let decoder = SessionLogFormat.makeDecoder()
        var lineNumber = 0
        var entries = 0
        for line in data.split(separator: 0x0A, omittingEmptySubsequences: false) {
            lineNumber += 1
            let trimmed = SessionLogFormat.record(in: line)
            guard !trimmed.isEmpty else { continue }
            // Skipped unread, as the index skips it: no record is this long.
            guard !IndexScanner.isOverlong(line) else {
                log.skipped.append(SkippedLine(line: lineNumber, reason: IndexScanner.overlongLineReason))
                continue
            }
            // Read as the index reads it, so both count the same lines as entries.
            guard SessionLogRecord.isCompleteObject(trimmed) else {
                log.skipped.append(SkippedLine(line: lineNumber, reason: SessionLogRecord.incompleteObjectReason))
                continue
            }
            let record = Data(trimmed)
            switch SessionLogRecord(decoding: record, with: decoder) {
            case .header(let header): log.headers.append(header)
            case .message(let message):
                entries += 1
                log.messages.append(message)
                log.entryNumbers.append(entries)
            case .skipped(let reason):
                // Still an entry when its summary reads, as the log browser counts it.
                let isEntry = record.withUnsafeBytes { SessionLogRecord.leadingSummary(of: $0.bindMemory(to: UInt8.self)) != nil }
                if isEntry { entries += 1 }
                log.skipped.append(SkippedLine(line: lineNumber, reason: reason, entry: isEntry ? entries : nil))
            }
        }
        return log
    }
}
