import CurlewAgent
import Foundation

/// Reads JSON Lines session logs. A truncated or corrupt line is skipped and counted, never fatal;
/// only a file with no readable record at all is refused.
public enum SessionLogReader {
    /// The whole log, read a piece at a time (the file is never held whole beside its messages).
    public static func read(path: String) throws(SessionLogError) -> SessionLog {
        var log = SessionLog(headers: [], messages: [], entryNumbers: [], skipped: [])
        try forEachItem(path: path) { log.add($0) }
        return log
    }

    /// Every record of the log at `path` in file order, handed to `visit` as its line is read, so
    /// a reader that keeps less than each message (a table's row, a count) holds no more than
    /// that and one piece of the file. Refused when no line is a record, as `read(path:)` is;
    /// `visit` has then seen only skipped lines.
    public static func forEachItem(path: String, _ visit: (SessionLogItem) -> Void) throws(SessionLogError) {
        try SessionLogError.requireRegularFile(path)
        let handle: FileHandle
        do { handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path)) } catch {
            throw SessionLogError.unreadable(path, error)
        }
        defer { try? handle.close() }
        var lines = SessionLogLines()
        var firstSkip: SkippedLine?
        var recordSeen = false
        func take(_ item: SessionLogItem?) {
            guard let item else { return }
            switch item {
            case .skipped(let skipped):
                if firstSkip == nil { firstSkip = skipped }
                if skipped.entry != nil { recordSeen = true }
            case .header, .message:
                recordSeen = true
            }
            visit(item)
        }
        // The bytes after the last line break read so far: a line that is not finished yet.
        var pending: [UInt8] = []
        // Set while skipping the rest of a line already longer than any record.
        var skippingOverlong = false
        while true {
            let piece: Data
            do { piece = try handle.read(upToCount: pieceBytes) ?? Data() } catch {
                throw SessionLogError.unreadable(path, error)
            }
            if piece.isEmpty { break }
            piece.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
                var start = 0
                while start < raw.count {
                    guard let found = memchr(raw.baseAddress! + start, 0x0A, raw.count - start) else {
                        if !skippingOverlong { pending.append(contentsOf: raw[start...]) }
                        // Kept only up to the longest line a record may have (and its CR): past
                        // that the line is skipped whatever follows.
                        if !skippingOverlong, pending.count > IndexScanner.maxLineBytes + 1 {
                            skippingOverlong = true
                            pending = []
                        }
                        break
                    }
                    let newline = UnsafeRawPointer(found) - raw.baseAddress!
                    if newline == start, pending.isEmpty, !skippingOverlong {
                        // A blank line, counted without more ado (a file of millions of them).
                        lines.skipBlank()
                    } else if skippingOverlong {
                        skippingOverlong = false
                        take(lines.skipOverlong())
                    } else if pending.isEmpty {
                        take(lines.read(raw[start..<newline]))
                    } else {
                        pending.append(contentsOf: raw[start..<newline])
                        take(lines.read(pending[...]))
                        pending.removeAll(keepingCapacity: pending.count <= SessionLogReader.pieceBytes)
                    }
                    start = newline + 1
                }
            }
        }
        // The last line, when no line break ends it.
        if skippingOverlong {
            take(lines.skipOverlong())
        } else if !pending.isEmpty {
            take(lines.read(pending[...]))
        }
        if !recordSeen, let firstSkip {
            throw SessionLogError(kind: .notASessionLog, path: path, reason: "line \(firstSkip.line): \(firstSkip.reason)")
        }
    }

    /// How much of the file is read at a time.
    static let pieceBytes = 1 << 20

    /// The log held in `data`.
    public static func read(data: Data) -> SessionLog {
        var log = SessionLog(headers: [], messages: [], entryNumbers: [], skipped: [])
        var lines = SessionLogLines()
        for line in data.split(separator: 0x0A, omittingEmptySubsequences: false) {
            if let item = lines.read(line) { log.add(item) }
        }
        return log
    }
}

/// One record of a session log as a reader meets it.
public enum SessionLogItem {
    case header(SessionLogHeader)
    /// An exchange with its entry number (from 1), as the log browser numbers the log's entries.
    case message(DebugMessage, entry: Int)
    /// A line that could not be read; an entry when its summary reads (`SkippedLine.entry`).
    case skipped(SkippedLine)
}

extension SessionLog {
    mutating func add(_ item: SessionLogItem) {
        switch item {
        case .header(let header): headers.append(header)
        case .message(let message, let entry):
            messages.append(message)
            entryNumbers.append(entry)
        case .skipped(let line): skipped.append(line)
        }
    }
}

/// What reading a log's lines in order keeps from one line to the next: the decoder and the
/// counts of lines and entries. The one place a line becomes a record, for a whole file and for
/// one read a piece at a time.
struct SessionLogLines {
    private let decoder = SessionLogFormat.makeDecoder()
    private var lineNumber = 0
    private var entries = 0

    /// The next line (without its line break); nil for a blank one.
    mutating func read<Line: BidirectionalCollection<UInt8>>(_ line: Line) -> SessionLogItem? {
        lineNumber += 1
        // Skipped unread, as the index skips it, blank or not: no record is this long.
        guard !IndexScanner.isOverlong(line) else { return .skipped(SkippedLine(line: lineNumber, reason: IndexScanner.overlongLineReason)) }
        let trimmed = SessionLogFormat.record(in: line)
        guard !trimmed.isEmpty else { return nil }
        // Read as the index reads it, so both count the same lines as entries.
        guard SessionLogRecord.isCompleteObject(trimmed) else {
            return .skipped(SkippedLine(line: lineNumber, reason: SessionLogRecord.incompleteObjectReason))
        }
        let record = Data(trimmed)
        switch SessionLogRecord(decoding: record, with: decoder) {
        case .header(let header):
            return .header(header)
        case .message(let message):
            entries += 1
            return .message(message, entry: entries)
        case .skipped(let reason):
            // Still an entry when its summary reads, as the log browser counts it.
            let isEntry = record.withUnsafeBytes { SessionLogRecord.leadingSummary(of: $0.bindMemory(to: UInt8.self)) != nil }
            if isEntry { entries += 1 }
            return .skipped(SkippedLine(line: lineNumber, reason: reason, entry: isEntry ? entries : nil))
        }
    }

    /// The next line, which is empty.
    mutating func skipBlank() {
        lineNumber += 1
    }

    /// The next line, longer than any record and skipped unread.
    mutating func skipOverlong() -> SessionLogItem {
        lineNumber += 1
        return .skipped(SkippedLine(line: lineNumber, reason: IndexScanner.overlongLineReason))
    }
}
