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
public final class SessionLogIndex: Sendable {
    public let path: String
    public let headers: [SessionLogHeader]
    public let entries: [EntrySummary]
    /// Lines that are not complete records (a truncated last line, garbage), with why.
    public let skipped: [SkippedLine]
    private let cache = Mutex<[Int: DebugMessage]>([:])
    private static let cacheLimit = 512

    /// Scans the file once, in chunks. Throws only when it cannot be read or holds no record.
    public init(path: String) throws(SessionLogError) {
        self.path = path
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw SessionLogError(kind: .unreadable, path: path, reason: String(cString: strerror(errno)))
        }
        defer { try? handle.close() }
        var headers: [SessionLogHeader] = []
        var entries: [EntrySummary] = []
        var skipped: [SkippedLine] = []
        var pending = [UInt8]()
        var offset: Int64 = 0
        var lineNumber = 0
        let decoder = SessionLogFormat.makeDecoder()
        func consume(_ line: ArraySlice<UInt8>, at start: Int64) {
            lineNumber += 1
            var body = line
            if body.last == 0x0D { body = body.dropLast() }
            guard !body.isEmpty else { return }
            guard body.first == UInt8(ascii: "{"), body.last == UInt8(ascii: "}") else {
                skipped.append(SkippedLine(line: lineNumber, reason: "not a complete JSON object (truncated or corrupt)"))
                return
            }
            body.withUnsafeBufferPointer { bytes in
                let scanner = RecordScanner(bytes: bytes)
                if scanner.string(after: "\"type\":") == "header" {
                    if let header = try? decoder.decode(SessionLogHeader.self, from: Data(bytes)) {
                        headers.append(header)
                    } else {
                        skipped.append(SkippedLine(line: lineNumber, reason: "unreadable header record"))
                    }
                } else if scanner.string(after: "\"type\":") == "message" {
                    entries.append(scanner.summary(offset: start, length: Int32(bytes.count)))
                } else {
                    skipped.append(SkippedLine(line: lineNumber, reason: "unknown record type"))
                }
            }
        }
        while true {
            let chunk: Data
            do {
                chunk = try handle.read(upToCount: 8 << 20) ?? Data()
            } catch {
                throw SessionLogError(kind: .unreadable, path: path, reason: error.localizedDescription)
            }
            if chunk.isEmpty { break }
            pending.append(contentsOf: chunk)
            var start = 0
            while let newline = pending[start...].firstIndex(of: 0x0A) {
                consume(pending[start..<newline], at: offset + Int64(start))
                start = newline + 1
            }
            offset += Int64(start)
            pending.removeFirst(start)
        }
        if !pending.isEmpty { consume(pending[...], at: offset) }
        guard !(headers.isEmpty && entries.isEmpty && !skipped.isEmpty) else {
            throw SessionLogError(kind: .notASessionLog, path: path, reason: "line \(skipped[0].line): \(skipped[0].reason)")
        }
        self.headers = headers
        self.entries = entries
        self.skipped = skipped
    }

    /// The full message of entry `index`, decoded from its line (cached); nil when the line does
    /// not decode, which the caller shows as unreadable.
    public func message(at index: Int) -> DebugMessage? {
        if let cached = cache.withLock({ $0[index] }) { return cached }
        let entry = entries[index]
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

    /// Indices of the entries that match, using summaries where the filter allows and decoding
    /// each entry where it needs headers or bodies.
    public func matching(_ filter: MessageFilter) -> [Int] {
        if filter.worksOnSummaries {
            return entries.indices.filter { filter.matches(entries[$0]) }
        }
        return entries.indices.filter { index in message(at: index).map(filter.matches) ?? false }
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
