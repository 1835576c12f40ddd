import Foundation

/// The session log format: JSON Lines, a header record first, then one record per debug message.
/// Records carry `"type": "header"` or `"type": "message"`. Dates are ISO 8601 with milliseconds.
public enum SessionLogFormat {
    /// 2: message lines start with their summary (`SessionRecordSummary`).
    public static let version = 2
    public static let fileExtension = "jsonl"

    /// The record a line holds: without its CR before the line break and without a UTF-8 byte
    /// order mark before it, which an editor on Windows writes at the start of a file it saves
    /// (and `cat` then carries into the middle of a joined log). Every reader reads lines
    /// through this (the logger appending to a log too), so an entry's offset in an index is its
    /// record's first byte.
    public static func record<Line: BidirectionalCollection<UInt8>>(in line: Line) -> Line.SubSequence {
        var body = line[...]
        if body.last == 0x0D { body = body.dropLast() }
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        return body
    }

    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(SessionRecordWriter.dateText(date))
        }
        return encoder
    }

    /// A record of `type` decoded from `line` with `decoder` (one of `makeDecoder`'s), its
    /// `JSONValue`s read through a `JSONValueSource` for the line: how every reader decodes a
    /// line, so a hostile one costs in proportion to its length. It sets the decoder's
    /// `userInfo` for the call: a decoder given here is used by one thread at a time.
    public static func decode<Record: Decodable>(_ type: Record.Type, from line: Data, with decoder: JSONDecoder) throws -> Record {
        decoder.userInfo[JSONValueSource.userInfoKey] = JSONValueSource(line)
        defer { decoder.userInfo[JSONValueSource.userInfoKey] = nil }
        return try decoder.decode(type, from: line)
    }

    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) { return date }
            if let date = try? Date(text, strategy: Date.ISO8601FormatStyle()) { return date }
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an ISO 8601 date: \(text)")
        }
        return decoder
    }
}

/// The first record of a session log: who wrote it, where, and with what.
public struct SessionLogHeader: Sendable, Equatable, Codable {
    public var formatVersion: Int
    public var appName: String
    public var appVersion: String
    public var channelID: String
    public var appKey: String
    public var serviceType: String
    public var osVersion: String
    public var hostName: String
    public var libcurlVersion: String
    public var curlewVersion: String
    public var startedAt: Date
    /// Whatever a `NetworkLoggerDelegate` added.
    public var custom: JSONValue?

    public init(
        formatVersion: Int = SessionLogFormat.version, appName: String, appVersion: String, channelID: String,
        appKey: String, serviceType: String, osVersion: String, hostName: String, libcurlVersion: String,
        curlewVersion: String = CurlewVersion.current, startedAt: Date, custom: JSONValue? = nil
    ) {
        self.formatVersion = formatVersion
        self.appName = appName
        self.appVersion = appVersion
        self.channelID = channelID
        self.appKey = appKey
        self.serviceType = serviceType
        self.osVersion = osVersion
        self.hostName = hostName
        self.libcurlVersion = libcurlVersion
        self.curlewVersion = curlewVersion
        self.startedAt = startedAt
        self.custom = custom
    }
}

/// A line of the session log: the record itself plus its `type` tag, encoded as one flat object.
struct TaggedRecord<Record: Encodable>: Encodable {
    let type: String
    let record: Record
    let custom: JSONValue?

    private enum CodingKeys: String, CodingKey { case type, custom }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        try record.encode(to: encoder)
        try container.encodeIfPresent(custom, forKey: .custom)
    }
}
