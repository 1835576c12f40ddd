/// What makes a response an event stream (`text/event-stream`), whose events are handed on as
/// they arrive: the transport does not keep its body, the agent parses its events, and the cache
/// does not store it. One rule for all three.
public enum EventStreamResponse {
    /// A 2xx answer whose `Content-Type` names `text/event-stream` (any case, any parameters).
    public static func matches(status: Int, contentType: String?) -> Bool {
        (200..<300).contains(status) && ASCII.containsIgnoringCase(contentType ?? "", "text/event-stream")
    }
}
