import CurlewAgent
import Foundation

/// What one call of `IndexScanner.scan` found.
struct ScannedPart {
    var block: EntryBlock?
    var headers: [SessionLogHeader] = []
    var skipped: [SkippedLine] = []
    var skippedCount = 0
    var finished = false
    /// Following, at the end for now: bytes of a last line waiting for its line break.
    var waitingLineBytes: Int64 = 0
    /// Following, a chunk read was refused as another file's (`IndexScanner.wasCutWhileReading`).
    var cutWhileReading = false
}

/// Reads a log file in chunks and turns lines into index entries, one block per call. Owned by
/// one thread at a time: the opener for the first entries, then the background indexer.
final class IndexScanner: @unchecked Sendable {
    private let path: String
    private let handle: FileHandle
    private let methods: InternedStrings
    private let urls: InternedStrings
    private var pending = [UInt8]()
    /// Where the unconsumed part of `pending` starts (compacted once per chunk, not per line).
    private var cursor = 0
    private var offset: Int64 = 0
    private var lineNumber = 0
    private var reachedEnd = false
    /// Entries in the blocks handed out so far.
    private var entriesScanned = 0
    private let decoder = SessionLogFormat.makeDecoder()
    /// Whether the file is read as it grows: at its end a line without its line break is one
    /// still being written, kept until the rest arrives, and the next scan reads on.
    private var follows: Bool
    /// Bytes of a line being skipped because it is longer than `maxLineBytes`; nil otherwise.
    private var oversizedLine: Int64?
    /// Curlew writes lines of at most a few hundred KiB (bodies are capped); a longer line is
    /// damage, skipped without holding it in memory.
    static let maxLineBytes = 64 << 20
    /// Whether a line (without its line break) is longer than `maxLineBytes`, a `\r` before the
    /// break not counted: the one rule the index and the reader skip lines by.
    static func isOverlong(_ line: some BidirectionalCollection<UInt8>) -> Bool {
        line.count - (line.last == 0x0D ? 1 : 0) > maxLineBytes
    }
    /// Why such a line is skipped, as the index and the reader both say it.
    static let overlongLineReason = "line longer than \(maxLineBytes >> 20) MiB"
    /// Skipped lines described one by one; past this many only their count grows.
    static let describedSkips = 1_000
    /// Header records kept (a log appended to by a thousand runs has a thousand); more are damage.
    static let keptHeaders = 1_000

    /// The open log file, for reading entries back.
    var fileDescriptor: Int32 { handle.fileDescriptor }

    init(path: String, methods: InternedStrings, urls: InternedStrings, follows: Bool = false) throws(SessionLogError) {
        self.path = path
        self.follows = follows
        self.methods = methods
        self.urls = urls
        try SessionLogError.requireRegularFile(path)
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw SessionLogError(kind: .unreadable, path: path, reason: String(cString: strerror(errno)))
        }
        self.handle = handle
    }

    deinit {
        try? handle.close()
    }

    /// Indexes lines until the block holds `limit` entries (at most a block's capacity), the next
    /// entry is too far into the file for the block, or the file ends. Following, the end is
    /// where the file ends for now: a last line that is a whole record is taken (a file whose
    /// last line has no line break), any other waits for the rest of it.
    func scan(entries limit: Int) throws(SessionLogError) -> ScannedPart {
        var part = ScannedPart()
        var builder = EntryBlockBuilder()
        let limit = min(limit, EntryBlock.capacity)
        scanning: while builder.count < limit {
            if let newline = pending[cursor...].firstIndex(of: 0x0A) {
                guard builder.fits(offset: offset + Self.markBytes) else { break scanning }
                // A line found whole in the buffer is held to the same length as one that
                // outgrew it (as the reader holds it, so both number the same entries).
                if oversizedLine == nil, Self.isOverlong(pending[cursor..<newline]) { oversizedLine = 0 }
                if oversizedLine != nil {
                    skipOversizedLine(into: &part)
                } else {
                    consume(pending[cursor..<newline], at: offset, into: &part, builder: &builder)
                }
                offset += Int64(newline + 1 - cursor)
                cursor = newline + 1
                continue
            }
            pending.removeFirst(cursor)
            cursor = 0
            // Past the longest line and a `\r` before its line break: too long however it ends.
            if pending.count > Self.maxLineBytes + 1 || oversizedLine != nil {
                oversizedLine = (oversizedLine ?? 0) + Int64(pending.count)
                pending.removeAll(keepingCapacity: true)
            }
            if reachedEnd, follows {
                guard builder.fits(offset: offset + Self.markBytes) else { break scanning }
                // Whole only when it parses: a line cut just after an inner `}` ends like one.
                // Read again only when it has grown: a line left unfinished is not parsed at
                // every look at the file.
                if oversizedLine == nil, unfinishedLine.map({ $0 != (offset, pending.count) }) ?? true, !Self.isOverlong(pending[...]) {
                    if SessionLogRecord.isCompleteObject(SessionLogFormat.record(in: pending[...])),
                       (try? JSONValue.parse(Data(SessionLogFormat.record(in: pending[...])))) != nil {
                        consume(pending[...], at: offset, into: &part, builder: &builder)
                        offset += Int64(pending.count)
                        pending.removeAll()
                    } else {
                        unfinishedLine = (offset, pending.count)
                    }
                }
                // Caught up for now. The read buffer (8 MiB after a large read) is not held
                // while the file is only watched.
                if pending.isEmpty { pending = [] } else if pending.capacity > 2 * pending.count + (64 << 10) { pending = Array(pending[...]) }
                reachedEnd = false
                part.finished = true
                part.waitingLineBytes = waitingLineBytes
                break scanning
            }
            if reachedEnd {
                guard builder.fits(offset: offset + Self.markBytes) else { break scanning }
                // A last line without its line break is held to the same length too.
                if oversizedLine == nil, Self.isOverlong(pending[...]) {
                    oversizedLine = Int64(pending.count)
                    pending.removeAll()
                }
                if oversizedLine != nil { skipOversizedLine(into: &part) }
                if !pending.isEmpty {
                    consume(pending[...], at: offset, into: &part, builder: &builder)
                    offset += Int64(pending.count)
                    pending.removeAll()
                }
                part.finished = true
                break scanning
            }
            let chunk: Data
            do {
                chunk = try handle.read(upToCount: 8 << 20) ?? Data()
            } catch {
                throw SessionLogError.unreadable(path, error)
            }
            guard chunk.isEmpty || tookReadBytes(chunk) else {
                // Another file's bytes: not indexed, and the next look ends the following.
                part.cutWhileReading = true
                break scanning
            }
            if chunk.isEmpty { reachedEnd = true } else { pending.append(contentsOf: chunk) }
        }
        if builder.count > 0 {
            part.block = EntryBlock(first: entriesScanned, building: builder)
            entriesScanned += part.block?.count ?? 0
        }
        return part
    }

    /// Where the last line starts and how long it was when it was last found unfinished
    /// (following), so it is read again only once it has grown.
    private(set) var unfinishedLine: (offset: Int64, bytes: Int)?

    /// Bytes of a last line still waiting for its line break (following).
    var waitingLineBytes: Int64 {
        Int64(pending.count - cursor) + (oversizedLine ?? 0)
    }

    /// Stops following: later scans read to the end of the file the scanner has open and take
    /// a last line without its line break as the whole line, as a log opened once does.
    func stopFollowing() {
        follows = false
    }

    /// The file's first bytes, as read (at most `fingerprintBytes`): a log is only ever
    /// appended to, so different ones there mean it was truncated and written again.
    private var fingerprint: [UInt8] = []
    private static let fingerprintBytes = 512
    /// The last bytes read (at most `fingerprintBytes`), which end at `readPosition`: in a log
    /// only appended to they stay where they were, however alike two runs' first bytes are.
    private var readTail: [UInt8] = []
    /// How far into the file reading has got: the bytes taken (the open file's position, but
    /// for a chunk refused, which is read again from here if at all).
    private var readPosition: Int64 = 0
    /// Following, a chunk read was refused: the bytes before it in the file were no longer those
    /// read there, so the file was cut and written again since the last chunk was read (before
    /// this one was read, or just after). Nothing more is read while following.
    private(set) var wasCutWhileReading = false

    /// Takes a chunk just read into the fingerprint and the read tail, or refuses it (following)
    /// when the bytes before it in the file are no longer those read there: the chunk is then
    /// another file's, and `followingEnded` says so.
    private func tookReadBytes(_ chunk: Data) -> Bool {
        if follows, !readTail.isEmpty, bytes(before: readPosition, count: readTail.count) != readTail {
            wasCutWhileReading = true
            try? handle.seek(toOffset: UInt64(readPosition))
            return false
        }
        if fingerprint.count < Self.fingerprintBytes { fingerprint += chunk.prefix(Self.fingerprintBytes - fingerprint.count) }
        readTail = chunk.count >= Self.fingerprintBytes
            ? Array(chunk.suffix(Self.fingerprintBytes))
            : Array((readTail + chunk).suffix(Self.fingerprintBytes))
        readPosition += Int64(chunk.count)
        return true
    }

    /// Why a followed file can no longer be read on, or nil while it can: it was cut shorter
    /// than what was read of it, or cut and written again (its first bytes, or the last ones
    /// read, differ, however long it has grown since: a rotation that copies and truncates),
    /// or its name now stands for another file (a log rotated, replaced or removed), whose
    /// entries stay readable through the file the scanner has open. `readToEnd`: what the open
    /// file still holds after what was read is the log's (not so for a file cut, whose bytes
    /// there are another log's).
    func followingEnded() -> (reason: String, readToEnd: Bool)? {
        let truncated = ("it was truncated", false)
        var opened = stat()
        guard fstat(handle.fileDescriptor, &opened) == 0 else { return ("it cannot be read any more", false) }
        // Shorter than what was read of it.
        if Int64(opened.st_size) < readPosition { return truncated }
        guard !wasCutWhileReading, bytes(before: Int64(fingerprint.count), count: fingerprint.count) == fingerprint,
              bytes(before: readPosition, count: readTail.count) == readTail
        else {
            // Bytes that differ, or that a truncation just then made unreadable: looked at again.
            var now = stat()
            return fstat(handle.fileDescriptor, &now) == 0 && Int64(now.st_size) < readPosition ? truncated : ("it was truncated and written again", false)
        }
        var named = stat()
        guard stat(path, &named) == 0 else { return ("it was moved or removed", true) }
        return named.st_ino != opened.st_ino || named.st_dev != opened.st_dev ? ("it was replaced by another file", true) : nil
    }

    /// The `count` bytes of the open file that end at `end`; nil when it has fewer.
    private func bytes(before end: Int64, count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        let read = bytes.withUnsafeMutableBytes { pread(handle.fileDescriptor, $0.baseAddress, count, off_t(end - Int64(count))) }
        return read == count ? bytes : nil
    }

    private func skip(_ reason: String, into part: inout ScannedPart) {
        part.skippedCount += 1
        if part.skipped.count < Self.describedSkips { part.skipped.append(SkippedLine(line: lineNumber, reason: reason)) }
    }

    /// Records the line being skipped as too long and counts its bytes into the offset.
    private func skipOversizedLine(into part: inout ScannedPart) {
        lineNumber += 1
        skip(Self.overlongLineReason, into: &part)
        offset += oversizedLine ?? 0
        oversizedLine = nil
    }

    /// How far past a line's start its entry may begin: a byte order mark before its record
    /// (`SessionLogFormat.record(in:)`). A block is asked for room that far on.
    private static let markBytes: Int64 = 3

    private func consume(_ line: ArraySlice<UInt8>, at start: Int64, into part: inout ScannedPart, builder: inout EntryBlockBuilder) {
        lineNumber += 1
        let body = SessionLogFormat.record(in: line)
        guard !body.isEmpty else { return }
        // The entry starts at its record, past a byte order mark before it.
        let start = start + Int64(body.startIndex - line.startIndex)
        guard SessionLogRecord.isCompleteObject(body) else {
            skip(SessionLogRecord.incompleteObjectReason, into: &part)
            return
        }
        body.withUnsafeBufferPointer { bytes in
            // The common case: a message line that starts with its summary.
            if let summary = SessionLogRecord.leadingSummary(of: bytes) {
                builder.append(offset: start, summary: SessionRecordSummaryColumns(summary, methods: methods, urls: urls))
                return
            }
            // Anything else (a header, a line of an older log) is decoded in full.
            switch SessionLogRecord(decoding: Data(bytes), with: decoder) {
            // Kept up to what the index keeps: a file of header lines alone is damage, not
            // a reason to hold each of them.
            case .header(let header): if part.headers.count < IndexScanner.keptHeaders { part.headers.append(header) }
            case .message(let message):
                builder.append(offset: start, summary: SessionRecordSummaryColumns(SessionRecordSummary(message), methods: methods, urls: urls))
            case .skipped(let reason): skip(reason, into: &part)
            }
        }
    }
}
