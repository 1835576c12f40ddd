import Foundation

/// A piece of a streamed response, as it arrived: the raw chunk, or, for `text/event-stream`,
/// each event the chunks completed.
public enum StreamItem: Sendable, Equatable {
    case chunk(Data, receivedAt: Date)
    case event(ServerSentEvent)
}

/// A stream item as an observer receives it: which request it belongs to, and how many items
/// were dropped before it because the observer fell behind (its buffer keeps the newest).
public struct StreamUpdate: Sendable {
    public var request: RequestInfo
    public var item: StreamItem
    public var droppedBefore: Int

    public init(request: RequestInfo, item: StreamItem, droppedBefore: Int) {
        self.request = request
        self.item = item
        self.droppedBefore = droppedBefore
    }
}

/// What a streamed response carried, for the debug message and the session log: counts, the
/// last event ID and retry, and the most recent events (older ones are counted, not kept).
public struct StreamRecord: Sendable, Equatable, Codable {
    public var chunks: Int
    public var bytes: Int64
    public var eventCount: Int
    /// The most recent events, at most `StreamRecord.keptEvents`.
    public var events: [ServerSentEvent]
    public var lastEventID: String?
    public var retryMilliseconds: Int?
    /// 0 for the first connection of an event source, then 1, 2, ... for its reconnections.
    public var reconnectAttempt: Int

    public static let keptEvents = 200
    /// Each kept event's data, ID and type are cut to this many bytes (consumers of the stream
    /// get them whole); the last event ID, one of them, is kept whole, as reconnection sends it.
    public static let keptEventBytes = 4096

    /// Counts an event and keeps it (cut as `kept` cuts it), dropping the oldest beyond
    /// `keptEvents`.
    public mutating func keep(_ event: ServerSentEvent, counting count: Int = 1) {
        eventCount += count
        events.append(Self.kept(event))
        lastEventID = event.id ?? lastEventID
        if let retry = event.retryMilliseconds { retryMilliseconds = retry }
        if events.count > Self.keptEvents { events.removeFirst(events.count - Self.keptEvents) }
    }

    /// `event` as a record keeps it: its data, ID and type cut to `keptEventBytes`, each marked
    /// with `…` when cut; a server's megabyte IDs would otherwise be kept two hundred times.
    public static func kept(_ event: ServerSentEvent) -> ServerSentEvent {
        var kept = event
        kept.data = cut(event.data)
        kept.id = event.id.map(cut)
        kept.event = cut(event.event)
        return kept
    }

    private static func cut(_ text: String) -> String {
        guard text.utf8.count > keptEventBytes else { return text }
        return String(decoding: text.utf8.prefix(keptEventBytes), as: UTF8.self) + "…"
    }

    public init(chunks: Int = 0, bytes: Int64 = 0, eventCount: Int = 0, events: [ServerSentEvent] = [], lastEventID: String? = nil,
                retryMilliseconds: Int? = nil, reconnectAttempt: Int = 0) {
        self.chunks = chunks
        self.bytes = bytes
        self.eventCount = eventCount
        self.events = events
        self.lastEventID = lastEventID
        self.retryMilliseconds = retryMilliseconds
        self.reconnectAttempt = reconnectAttempt
    }

    /// Events that arrived but are no longer kept here.
    public var eventsNotKept: Int { eventCount - events.count }
}
