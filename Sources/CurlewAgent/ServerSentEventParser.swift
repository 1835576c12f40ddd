import Foundation

/// Reads a `text/event-stream` body as it arrives, in pieces cut anywhere: lines end with CR, LF
/// or CRLF (even when a CRLF is split between two pieces), a leading byte-order mark is skipped,
/// comments are ignored, and a blank line dispatches the event gathered so far.
///
/// Hostile streams are bounded: a line longer than `maxLineBytes` is cut there (the rest of the
/// line is ignored), and an event's data stops growing at `maxDataBytes`.
public struct ServerSentEventParser: Sendable {
    public static let maxLineBytes = 1 << 20
    public static let maxDataBytes = 1 << 20

    private var line: [UInt8] = []
    private var lineTooLong = false
    private var afterCR = false
    private var atStart = true
    private var data: [UInt8] = []
    private var hasData = false
    private var eventType = ""
    private var retry: Int?
    /// The last event ID in force, kept across events as the standard says.
    public private(set) var lastEventID: String?
    /// The reconnection time the server asked for, in milliseconds.
    public private(set) var retryMilliseconds: Int?

    public init(lastEventID: String? = nil) {
        self.lastEventID = lastEventID
    }

    /// Reads `bytes` and returns the events they complete.
    public mutating func consume(_ bytes: some Collection<UInt8>, at time: Date = Date()) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for byte in bytes {
            if atStart {
                atStart = false
                // A UTF-8 byte-order mark may open the stream; its first byte starts it.
                if byte == 0xEF { line.append(byte); continue }
            }
            if afterCR {
                afterCR = false
                if byte == 0x0A { continue }
            }
            switch byte {
            case 0x0D:
                afterCR = true
                if let event = endLine(at: time) { events.append(event) }
            case 0x0A:
                if let event = endLine(at: time) { events.append(event) }
            default:
                if line.count < Self.maxLineBytes { line.append(byte) } else { lineTooLong = true }
            }
        }
        return events
    }

    private mutating func endLine(at time: Date) -> ServerSentEvent? {
        defer {
            line.removeAll(keepingCapacity: true)
            lineTooLong = false
        }
        var text = line[...]
        if text.starts(with: [0xEF, 0xBB, 0xBF]) { text = text.dropFirst(3) }
        if text.isEmpty { return dispatch(at: time) }
        if text.first == UInt8(ascii: ":") { return nil }
        let colon = text.firstIndex(of: UInt8(ascii: ":"))
        let name = String(decoding: text[..<(colon ?? text.endIndex)], as: UTF8.self)
        var value = colon.map { text[text.index(after: $0)...] } ?? []
        if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        switch name {
        case "event":
            eventType = String(decoding: value, as: UTF8.self)
        case "data":
            if hasData, data.count < Self.maxDataBytes { data.append(0x0A) }
            data.append(contentsOf: value.prefix(max(0, Self.maxDataBytes - data.count)))
            hasData = true
        case "id":
            // An ID with a NUL is ignored, as the standard says.
            if !value.contains(0) { lastEventID = String(decoding: value, as: UTF8.self) }
        case "retry":
            if !value.isEmpty, value.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), value.count <= 9,
               let milliseconds = Int(String(decoding: value, as: UTF8.self)) {
                retry = milliseconds
                retryMilliseconds = milliseconds
            }
        default:
            break
        }
        return nil
    }

    private mutating func dispatch(at time: Date) -> ServerSentEvent? {
        defer {
            data.removeAll(keepingCapacity: true)
            hasData = false
            eventType = ""
            retry = nil
        }
        guard hasData else { return nil }
        return ServerSentEvent(event: eventType.isEmpty ? "message" : eventType, data: String(decoding: data, as: UTF8.self),
                               id: lastEventID, retryMilliseconds: retry, receivedAt: time)
    }
}
