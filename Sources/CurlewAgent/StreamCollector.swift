import CurlewLocking
import CurlewTransport
import Foundation

/// Follows one streamed response as its chunks arrive: counts them, reads a `text/event-stream`
/// body into events, and keeps what the debug message records.
final class StreamCollector: Sendable {
    private struct State {
        var parser: ServerSentEventParser?
        var decided = false
        var record: StreamRecord
    }

    private let state: Locked<State>

    init(lastEventID: String?, reconnectAttempt: Int) {
        state = Locked(State(parser: nil, record: StreamRecord(lastEventID: lastEventID, reconnectAttempt: reconnectAttempt)))
        // The parser starts from the ID the request resumes from, as the standard says.
        state.withLock { $0.parser = ServerSentEventParser(lastEventID: lastEventID) }
    }

    /// The items a chunk makes: the chunk itself and, for a 2xx event stream, the events it completes.
    func consume(_ data: Data, status: Int, contentType: String?) -> [StreamItem] {
        let now = Date()
        return state.withLock { state in
            if !state.decided {
                state.decided = true
                if !EventStreamResponse.matches(status: status, contentType: contentType) { state.parser = nil }
            }
            state.record.chunks += 1
            state.record.bytes += Int64(data.count)
            var items: [StreamItem] = [.chunk(data, receivedAt: now)]
            guard state.parser != nil else { return items }
            let events = state.parser!.consume(data, at: now)
            for event in events {
                state.record.keep(event)
                items.append(.event(event))
            }
            state.record.lastEventID = state.parser!.lastEventID
            state.record.retryMilliseconds = state.parser!.retryMilliseconds
            return items
        }
    }

    var record: StreamRecord {
        state.withLock { $0.record }
    }
}
