import CurlewAgent
import Foundation
import Synchronization

/// What the index keeps per message: where its line is, and the fields filters and row lists use
/// most, read from the JSON without decoding it.
public struct EntrySummary: Sendable {
    public var offset: Int64
    public var length: Int32
    public var method: String
    public var url: String
    /// 0 when no response arrived.
    public var statusCode: Int
    public var failed: Bool
    /// Queued plus total, in microseconds; nil without timings.
    public var elapsedMicros: Int64?
    /// Response body size; nil without a response.
    public var responseSize: Int64?
}

/// A session log opened for browsing: line offsets and summaries in memory, messages decoded
/// only when shown. A million-entry log costs tens of megabytes, not gigabytes.
///
/// Opening indexes the first `firstEntries` entries at once (enough for a first screen) and the
/// rest on a background thread; `entries` grows until `isComplete`.
public final class SessionLogIndex: Sendable {
    public let path: String
    private let state = Mutex(IndexState())
    private let cache = Mutex<[Int: DebugMessage]>([:])
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
            return (start..<entries.count).filter { filter.matches(entries[$0]) }
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

    init(path: String) throws(SessionLogError) {
        self.path = path
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
                consume(pending[cursor..<newline], at: offset, into: &state)
                offset += Int64(newline + 1 - cursor)
                cursor = newline + 1
                continue
            }
            pending.removeFirst(cursor)
            cursor = 0
            if reachedEnd {
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
            let scanner = RecordScanner(bytes: bytes)
            switch scanner.string(after: "\"type\":") {
            case "header":
                if let header = try? decoder.decode(SessionLogHeader.self, from: Data(bytes)) {
                    state.headers.append(header)
                } else {
                    state.skipped.append(SkippedLine(line: lineNumber, reason: "unreadable header record"))
                }
            case "message":
                state.entries.append(scanner.summary(offset: start, length: Int32(bytes.count)))
            default:
                state.skipped.append(SkippedLine(line: lineNumber, reason: "unknown record type"))
            }
        }
    }
}

/// Reads fields out of one JSON record by key, without decoding it. A key counts only where its
/// quote is not escaped, so text inside string values (echoed bodies) never matches.
private struct RecordScanner {
    let bytes: UnsafeBufferPointer<UInt8>

    func position(after key: String, from start: Int = 0) -> Int? {
        let needle = Array(key.utf8)
        guard needle.count <= bytes.count else { return nil }
        var index = start
        while index + needle.count <= bytes.count {
            if bytes[index] == needle[0], index == 0 || bytes[index - 1] != UInt8(ascii: "\\") {
                var offset = 1
                while offset < needle.count, bytes[index + offset] == needle[offset] { offset += 1 }
                if offset == needle.count { return index + needle.count }
            }
            index += 1
        }
        return nil
    }

    func string(after key: String, from start: Int = 0) -> String? {
        guard var index = position(after: key, from: start), index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        index += 1
        var end = index
        var escaped = false
        while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
            if bytes[end] == UInt8(ascii: "\\") { escaped = true; end += 1 }
            end += 1
        }
        guard end < bytes.count else { return nil }
        let raw = UnsafeBufferPointer(rebasing: bytes[(index - 1)...end])
        return escaped ? (try? JSONValue.parse(Data(raw)))?.stringValue : String(decoding: UnsafeBufferPointer(rebasing: bytes[index..<end]), as: UTF8.self)
    }

    func integer(after key: String, from start: Int = 0) -> Int64? {
        guard var index = position(after: key, from: start) else { return nil }
        var value: Int64 = 0
        var digits = 0
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
            value = value * 10 + Int64(bytes[index] - UInt8(ascii: "0"))
            index += 1
            digits += 1
        }
        return digits > 0 ? value : nil
    }

    func summary(offset: Int64, length: Int32) -> EntrySummary {
        let response = position(after: "\"response\":{")
        let queued = integer(after: "\"queued\":")
        let total = integer(after: "\"total\":")
        return EntrySummary(
            offset: offset, length: length,
            method: string(after: "\"method\":") ?? "?",
            url: string(after: "\"url\":") ?? "",
            statusCode: response.flatMap { Int(integer(after: "\"statusCode\":", from: $0 - 1) ?? 0) } ?? 0,
            failed: position(after: "\"error\":{") != nil,
            elapsedMicros: total.map { $0 + (queued ?? 0) },
            responseSize: response.flatMap { integer(after: "\"size\":", from: $0) }
        )
    }
}
