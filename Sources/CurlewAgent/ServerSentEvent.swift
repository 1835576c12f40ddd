import Foundation

/// One event of a `text/event-stream` response, as the HTML standard's event stream format
/// defines it, stamped when it arrived.
public struct ServerSentEvent: Sendable, Equatable, Codable {
    /// The `event:` field; "message" when the server named none.
    public var event: String
    /// The `data:` lines, joined with line feeds.
    public var data: String
    /// The last event ID in force when this event was dispatched (an `id:` field of this event or
    /// an earlier one); sent back as `Last-Event-ID` when reconnecting.
    public var id: String?
    /// A `retry:` the server gave with this event, in milliseconds.
    public var retryMilliseconds: Int?
    public var receivedAt: Date

    public init(event: String = "message", data: String, id: String? = nil, retryMilliseconds: Int? = nil, receivedAt: Date = Date()) {
        self.event = event
        self.data = data
        self.id = id
        self.retryMilliseconds = retryMilliseconds
        self.receivedAt = receivedAt
    }
}
