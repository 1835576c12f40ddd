import Foundation

/// What a log index needs of a message record, defined once: the writer puts it first in every
/// message line, at fixed positions, and the index reads it back with `read(_:)`, never
/// searching the record for a key (a request parameter named `total` or `error` is user data).
///
/// A line starts `{"type":"message","summary":{"id":N,"status":N,"elapsed":N|null,"size":N|null,
/// "failed":true|false,"method":"…","url":"…"},` and the full record follows.
public struct SessionRecordSummary: Sendable, Equatable {
    public var requestID: UInt64
    /// 0 when no response arrived.
    public var statusCode: Int
    /// Queued plus total, in microseconds; nil without timings.
    public var elapsedMicros: Int64?
    /// Response body size; nil without a response.
    public var responseSize: Int64?
    public var failed: Bool
    public var method: String
    public var url: String

    public init(requestID: UInt64, statusCode: Int, elapsedMicros: Int64?, responseSize: Int64?, failed: Bool, method: String, url: String) {
        self.requestID = requestID
        self.statusCode = statusCode
        self.elapsedMicros = elapsedMicros
        self.responseSize = responseSize
        self.failed = failed
        self.method = method
        self.url = url
    }

    /// The summary of a message: what the writer writes, and what a reader derives from a record
    /// it decoded in full.
    public init(_ message: borrowing DebugMessage) {
        self.init(
            requestID: message.requestID, statusCode: message.response?.statusCode ?? 0,
            elapsedMicros: message.timings?.elapsed, responseSize: message.response?.body.size,
            failed: message.error != nil, method: message.original?.method ?? "?", url: message.original?.url ?? ""
        )
    }

    static let linePrefix = Array(#"{"type":"message","summary":{"id":"#.utf8)

    /// Writes `"summary":{…}` as the next member.
    func write(to writer: inout SessionRecordWriter) {
        writer.key("summary")
        writer.openObject()
        writer.key("id"); writer.integer(Int64(requestID))
        writer.key("status"); writer.integer(Int64(statusCode))
        writer.key("elapsed"); writer.optionalInteger(elapsedMicros)
        writer.key("size"); writer.optionalInteger(responseSize)
        writer.key("failed"); writer.boolean(failed)
        writer.key("method"); writer.string(method)
        writer.key("url"); writer.string(url)
        writer.closeObject()
    }

    /// Reads the summary at the start of a message line; nil when the line does not start with
    /// one exactly as `write(to:)` writes it (an older log, or a damaged line).
    public static func read(_ line: UnsafeBufferPointer<UInt8>) -> SessionRecordSummary? {
        var reader = FixedReader(bytes: line)
        guard reader.expect(linePrefix), let id = reader.integer(), id >= 0,
              reader.expect(#","status":"#), let status = reader.integer(), let statusCode = Int(exactly: status),
              reader.expect(#","elapsed":"#), let elapsed = reader.optionalInteger(),
              // Bounded as the record's timings are when read.
              (0...TimingBreakdown.longestElapsed).contains(elapsed ?? 0),
              reader.expect(#","size":"#), let size = reader.optionalInteger(), (size ?? 0) >= 0,
              reader.expect(#","failed":"#), let failed = reader.boolean(),
              reader.expect(#","method":"#), let method = reader.string(),
              reader.expect(#","url":"#), let url = reader.string(),
              reader.expect("},") else { return nil }
        return SessionRecordSummary(requestID: UInt64(id), statusCode: statusCode, elapsedMicros: elapsed, responseSize: size,
                                    failed: failed, method: method, url: url)
    }
}

/// Reads values in sequence from the front of a line; every step checks its bounds.
private struct FixedReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0

    mutating func expect(_ literal: String) -> Bool {
        expect(Array(literal.utf8))
    }

    mutating func expect(_ literal: [UInt8]) -> Bool {
        guard position + literal.count <= bytes.count else { return false }
        for (offset, byte) in literal.enumerated() where bytes[position + offset] != byte { return false }
        position += literal.count
        return true
    }

    mutating func integer() -> Int64? {
        var negative = false
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") { negative = true; position += 1 }
        var value: Int64 = 0
        var digits = 0
        while position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") {
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowAdding) = times.addingReportingOverflow(Int64(bytes[position] - UInt8(ascii: "0")))
            guard !overflow, !overflowAdding else { return nil }
            value = sum
            position += 1
            digits += 1
        }
        guard digits > 0 else { return nil }
        return negative ? -value : value
    }

    /// An integer or `null`; the outer nil means neither was there.
    mutating func optionalInteger() -> Int64?? {
        if expect("null") { return .some(nil) }
        return integer().map { .some($0) }
    }

    mutating func boolean() -> Bool? {
        if expect("true") { return true }
        if expect("false") { return false }
        return nil
    }

    /// A JSON string, escapes decoded by the project's JSON reader.
    mutating func string() -> String? {
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { return nil }
        var end = position + 1
        var escaped = false
        while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
            if bytes[end] == UInt8(ascii: "\\") { escaped = true; end += 1 }
            end += 1
        }
        guard end < bytes.count else { return nil }
        let raw = UnsafeBufferPointer(rebasing: bytes[position...end])
        defer { position = end + 1 }
        if !escaped { return String(decoding: UnsafeBufferPointer(rebasing: bytes[(position + 1)..<end]), as: UTF8.self) }
        guard case .string(let text)? = try? JSONValue.parse(Data(raw)) else { return nil }
        return text
    }
}
