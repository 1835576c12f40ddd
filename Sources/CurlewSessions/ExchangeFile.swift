import CurlewAgent
import Foundation

/// Exchanges from a file a user names: a session log (`.jsonl`) or a HAR file, told apart by
/// content, so every log tool reads both.
public enum ExchangeFile {
    /// Every exchange in the file, in order.
    public static func messages(path: String) throws(SessionLogError) -> [DebugMessage] {
        if isHAR(path: path) {
            let data: Data
            do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
                throw SessionLogError(kind: .unreadable, path: path, reason: error.localizedDescription)
            }
            do { return try HARImport.messages(data) } catch {
                throw SessionLogError(kind: .notASessionLog, path: path, reason: error.reason)
            }
        }
        return try SessionLogReader.read(path: path).messages
    }

    /// A HAR file starts (after any byte-order mark and blanks) with `{` and names `"log"` early;
    /// a session log's first line is a header record.
    public static func isHAR(path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path), let head = try? handle.read(upToCount: 4096) else { return false }
        try? handle.close()
        let text = String(decoding: head.withoutByteOrderMark, as: UTF8.self)
        let trimmed = text.drop { $0.isWhitespace }
        return trimmed.hasPrefix("{") && trimmed.contains("\"log\"") && !trimmed.prefix(200).contains("\"type\"")
    }

    /// Messages as a session log the log browser can index, written owner-only to `path`
    /// with secrets redacted.
    public static func writeSessionLog(of messages: [DebugMessage], to path: String) throws {
        let logger = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: path))
        for message in messages { logger.requestDidProduce(message) }
        try logger.close()
    }
}
