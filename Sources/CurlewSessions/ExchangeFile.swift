import CurlewAgent
import Foundation

/// Exchanges from a file a user names: a session log (`.jsonl`) or a HAR file, told apart by
/// content, so every log tool reads both.
public enum ExchangeFile {
    /// Every exchange in the file, in order.
    public static func messages(path: String) throws(SessionLogError) -> [DebugMessage] {
        try read(path: path).messages
    }

    /// Every exchange in the file, in order, with its entry number (as the log browser numbers
    /// a session log's entries; a HAR file's run from 1), and the lines of a session log that
    /// could not be read (a HAR file is read whole or refused). Only a regular file is opened: a
    /// named pipe would keep the reader waiting forever.
    public static func read(path: String) throws(SessionLogError) -> (messages: [DebugMessage], numbers: [Int], skipped: [SkippedLine]) {
        var messages: [DebugMessage] = []
        var numbers: [Int] = []
        let skipped = try forEachExchange(path: path, describingSkips: .max) { message, number in
            messages.append(message)
            numbers.append(number)
        }
        return (messages, numbers, skipped.described)
    }

    /// The lines of a log that could not be read, kept in bounds: the first ones described, all
    /// counted, and the entry numbers of those that are entries (their summaries read).
    public struct SkippedLines: Sendable {
        /// The first skipped lines, in order.
        public var described: [SkippedLine] = []
        /// Every skipped line.
        public var count = 0
        /// The entry numbers of skipped lines that are entries, in order.
        public var unreadableEntries: [Int] = []
    }

    /// `read(path:)` an exchange at a time: `visit` gets each with its entry number as its line
    /// is read, so a caller that keeps less than the exchanges holds no more than a piece of a
    /// session log (a HAR file, one JSON document, is read whole). The skipped lines come back
    /// counted, the first `describingSkips` of them described: a file of ten million damaged
    /// lines costs no more than one of ten.
    public static func forEachExchange(path: String, describingSkips described: Int = 1_000,
                                       _ visit: (DebugMessage, Int) -> Void) throws(SessionLogError) -> SkippedLines {
        try SessionLogError.requireRegularFile(path)
        if isHAR(path: path) {
            let data: Data
            do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
                throw SessionLogError.unreadable(path, error)
            }
            do {
                for (index, message) in try HARImport.messages(data).enumerated() { visit(message, index + 1) }
                return SkippedLines()
            } catch {
                throw SessionLogError(kind: .unreadableHAR, path: path, reason: error.reason)
            }
        }
        var skipped = SkippedLines()
        try SessionLogReader.forEachItem(path: path) { item in
            switch item {
            case .message(let message, let entry): visit(message, entry)
            case .skipped(let line):
                skipped.count += 1
                if skipped.described.count < described { skipped.described.append(line) }
                if let entry = line.entry { skipped.unreadableEntries.append(entry) }
            case .header: break
            }
        }
        return skipped
    }

    /// A HAR file's object opens (after any byte-order mark and blanks) with its `log` object
    /// (`startsWithLogMember`); a session log's first line is a header record. Anything but a
    /// regular file is not one, and is never opened in a way that could wait.
    public static func isHAR(path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG,
              let head = try? handle.read(upToCount: 4096) else { return false }
        let text = String(decoding: head.withoutByteOrderMark, as: UTF8.self)
        let trimmed = text.drop { $0.isWhitespace }
        return startsWithLogMember(trimmed)
    }

    /// Whether `text` (white space before it dropped) opens an object whose first member is a
    /// `log` object, as a HAR file's is (a session log's first record never is; a container
    /// runtime's log line has a `log` string): a minified HAR's first entry may name a `type`
    /// early on.
    static func startsWithLogMember(_ text: Substring) -> Bool {
        guard text.first == "{" else { return false }
        let rest = text.dropFirst().drop { $0.isWhitespace }
        guard rest.hasPrefix("\"log\"") else { return false }
        let value = rest.dropFirst(5).drop { $0.isWhitespace }
        return value.first == ":" && value.dropFirst().drop { $0.isWhitespace }.first == "{"
    }

    /// The exchanges of the HAR file at `path` as a session log the log browser can index, made
    /// in `directory` (created owner-only when missing) under a name of its own; returns its path.
    public static func sessionLog(ofHAR path: String, in directory: String) throws(SessionLogError) -> String {
        let messages = try messages(path: path)
        let target = directory + "/" + UUID().uuidString + "." + SessionLogFormat.fileExtension
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try writeSessionLog(of: messages, to: target)
        } catch {
            try? FileManager.default.removeItem(atPath: target)
            throw SessionLogError(kind: .unreadable, path: path, reason: "cannot make a session log of it: \(error)")
        }
        return target
    }

    /// Messages as a session log the log browser can index, written owner-only to `path`
    /// with secrets redacted.
    public static func writeSessionLog(of messages: [DebugMessage], to path: String) throws {
        let logger = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: path))
        for message in messages { logger.requestDidProduce(message) }
        try logger.close()
    }
}
