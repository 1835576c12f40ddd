import CurlewAgent
import Foundation
import CurlewLocking

/// What the index keeps per message: where its line is, and the summary the writer put first in
/// it (`SessionRecordSummary`), which filters and row lists use without decoding the record.
public struct EntrySummary: Sendable {
    public var offset: Int64
    public var length: Int32
    public var summary: SessionRecordSummary
}

/// A session log opened for browsing: line offsets and summaries in memory, messages decoded
/// only when shown. A million-entry log costs tens of megabytes, not gigabytes.
///
/// Opening indexes the first `firstEntries` entries at once (enough for a first screen) and the
/// rest on a background thread; `entries` grows until `isComplete`.
public final class SessionLogIndex: Sendable {
    public let path: String
    private let state = Locked(IndexState())
    private let cache = Locked<[Int: DebugMessage]>([:])
    private static let cacheLimit = 512

    struct IndexState: Sendable {
        var headers: [SessionLogHeader] = []
        var entries: [EntrySummary] = []
        var skipped: [SkippedLine] = []
        var complete = false
    }

    /// Opens the log. Throws only when it cannot be read or its first records are not a session log.
    public init(path: String, firstEntries: Int = .max) throws(SessionLogError) {
        self.path = path
        let scanner = try IndexScanner(path: path)
        var first = IndexState()
        let finished = try scanner.scan(into: &first, until: firstEntries)
        if first.headers.isEmpty, first.entries.isEmpty, let problem = first.skipped.first {
            throw SessionLogError(kind: .notASessionLog, path: path, reason: "line \(problem.line): \(problem.reason)")
        }
        first.complete = finished
        state.withLock { $0 = first }
        guard !finished else { return }
        Thread.detachNewThread { [self] in
            var batch = IndexState()
            var done = false
            while !done {
                done = (try? scanner.scan(into: &batch, until: 50_000)) ?? true
                let ready = batch
                batch = IndexState()
                state.withLock { state in
                    state.headers += ready.headers
                    state.entries += ready.entries
                    state.skipped += ready.skipped
                    state.complete = done
                }
            }
        }
    }

    public var headers: [SessionLogHeader] { state.withLock { $0.headers } }
    /// The entries indexed so far, in file order.
    public var entries: [EntrySummary] { state.withLock { $0.entries } }
    public var entryCount: Int { state.withLock { $0.entries.count } }
    /// Lines that are not complete records (a truncated last line, garbage), with why.
    public var skipped: [SkippedLine] { state.withLock { $0.skipped } }
    public var isComplete: Bool { state.withLock { $0.complete } }

    /// Blocks until the whole file is indexed.
    public func waitUntilComplete() {
        while !isComplete { Thread.sleep(forTimeInterval: 0.005) }
    }

    /// The full message of entry `index`, decoded from its line (cached); nil when the line does
    /// not decode, which the caller shows as unreadable.
    public func message(at index: Int) -> DebugMessage? {
        if let cached = cache.withLock({ $0[index] }) { return cached }
        let entry = state.withLock { $0.entries[index] }
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard (try? handle.seek(toOffset: UInt64(entry.offset))) != nil,
              let data = try? handle.read(upToCount: Int(entry.length)),
              let message = try? SessionLogFormat.makeDecoder().decode(DebugMessage.self, from: data) else { return nil }
        cache.withLock { cache in
            if cache.count >= Self.cacheLimit { cache.removeAll(keepingCapacity: true) }
            cache[index] = message
        }
        return message
    }

    /// Indices (from `start`) of the entries indexed so far that match, using summaries where the
    /// filter allows and decoding each entry where it needs headers or bodies.
    public func matching(_ filter: MessageFilter, from start: Int = 0) -> [Int] {
        let entries = entries
        guard start < entries.count else { return [] }
        if filter.worksOnSummaries {
            return (start..<entries.count).filter { filter.matches(entries[$0].summary) }
        }
        return (start..<entries.count).filter { index in message(at: index).map(filter.matches) ?? false }
    }
}

/// Reads a log file in chunks and turns lines into index entries. Owned by one thread at a time:
/// the opener for the first entries, then the background indexer.
private final class IndexScanner: @unchecked Sendable {
    private let path: String
    private let handle: FileHandle
    private var pending = [UInt8]()
    /// Where the unconsumed part of `pending` starts (compacted once per chunk, not per line).
    private var cursor = 0
    private var offset: Int64 = 0
    private var lineNumber = 0
    private var reachedEnd = false
    private let decoder = SessionLogFormat.makeDecoder()
    /// Bytes of a line being skipped because it is longer than `maxLineBytes`; nil otherwise.
    private var oversizedLine: Int64?
    /// Curlew writes lines of at most a few hundred KiB (bodies are capped); a longer line is
    /// damage, skipped without holding it in memory.
    static let maxLineBytes = 64 << 20

    init(path: String) throws(SessionLogError) {
        self.path = path
        try SessionLogError.requireRegularFile(path)
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw SessionLogError(kind: .unreadable, path: path, reason: String(cString: strerror(errno)))
        }
        self.handle = handle
    }

    deinit {
        try? handle.close()
    }

    /// Indexes lines into `state` until it holds `limit` more entries or the file ends.
    /// Returns true at the end of the file.
    func scan(into state: inout SessionLogIndex.IndexState, until limit: Int) throws(SessionLogError) -> Bool {
        let target = state.entries.count + (limit == .max ? .max - state.entries.count : limit)
        while state.entries.count < target {
            if let newline = pending[cursor...].firstIndex(of: 0x0A) {
                if oversizedLine != nil {
                    skipOversizedLine(into: &state)
                } else {
                    consume(pending[cursor..<newline], at: offset, into: &state)
                }
                offset += Int64(newline + 1 - cursor)
                cursor = newline + 1
                continue
            }
            pending.removeFirst(cursor)
            cursor = 0
            if pending.count > Self.maxLineBytes || oversizedLine != nil {
                oversizedLine = (oversizedLine ?? 0) + Int64(pending.count)
                pending.removeAll(keepingCapacity: true)
            }
            if reachedEnd {
                if oversizedLine != nil { skipOversizedLine(into: &state) }
                if !pending.isEmpty {
                    consume(pending[...], at: offset, into: &state)
                    offset += Int64(pending.count)
                    pending.removeAll()
                }
                return true
            }
            let chunk: Data
            do {
                chunk = try handle.read(upToCount: 8 << 20) ?? Data()
            } catch {
                throw SessionLogError(kind: .unreadable, path: path, reason: error.localizedDescription)
            }
            if chunk.isEmpty { reachedEnd = true } else { pending.append(contentsOf: chunk) }
        }
        return false
    }

    /// Records the line being skipped as too long and counts its bytes into the offset.
    private func skipOversizedLine(into state: inout SessionLogIndex.IndexState) {
        lineNumber += 1
        state.skipped.append(SkippedLine(line: lineNumber, reason: "line longer than \(Self.maxLineBytes >> 20) MiB"))
        offset += oversizedLine ?? 0
        oversizedLine = nil
    }

    private func consume(_ line: ArraySlice<UInt8>, at start: Int64, into state: inout SessionLogIndex.IndexState) {
        lineNumber += 1
        var body = line
        if body.last == 0x0D { body = body.dropLast() }
        guard !body.isEmpty else { return }
        guard body.first == UInt8(ascii: "{"), body.last == UInt8(ascii: "}") else {
            state.skipped.append(SkippedLine(line: lineNumber, reason: "not a complete JSON object (truncated or corrupt)"))
            return
        }
        body.withUnsafeBufferPointer { bytes in
            // The common case: a message line that starts with its summary.
            if let summary = SessionRecordSummary.read(bytes) {
                state.entries.append(EntrySummary(offset: start, length: Int32(bytes.count), summary: summary))
                return
            }
            // Anything else (a header, a line of an older log) is decoded in full.
            let data = Data(bytes)
            switch (try? decoder.decode(RecordTag.self, from: data))?.type {
            case "header":
                if let header = try? decoder.decode(SessionLogHeader.self, from: data) {
                    state.headers.append(header)
                } else {
                    state.skipped.append(SkippedLine(line: lineNumber, reason: "unreadable header record"))
                }
            case "message":
                if let message = try? decoder.decode(DebugMessage.self, from: data) {
                    state.entries.append(EntrySummary(offset: start, length: Int32(bytes.count), summary: SessionRecordSummary(message)))
                } else {
                    state.skipped.append(SkippedLine(line: lineNumber, reason: "unreadable message record"))
                }
            case nil:
                state.skipped.append(SkippedLine(line: lineNumber, reason: "not a session log record"))
            default:
                state.skipped.append(SkippedLine(line: lineNumber, reason: "unknown record type"))
            }
        }
    }

    private struct RecordTag: Decodable {
        let type: String
    }
}
