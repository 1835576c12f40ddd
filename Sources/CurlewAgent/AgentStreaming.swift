import Foundation

/// How an event source reconnects when its stream drops (the HTML standard's EventSource).
public struct ReconnectPolicy: Sendable, Equatable {
    /// Reconnections after the first connection; 0 never reconnects.
    public var maxReconnects: Int
    /// The wait before reconnecting when the server sent no `retry:`.
    public var defaultRetry: Duration
    /// A server's `retry:` longer than this is cut to it.
    public var maxRetry: Duration

    public init(maxReconnects: Int = 5, defaultRetry: Duration = .seconds(3), maxRetry: Duration = .seconds(60)) {
        self.maxReconnects = maxReconnects
        self.defaultRetry = defaultRetry
        self.maxRetry = maxRetry
    }
}

extension Agent {
    /// Sends a request and hands its response over as it arrives: every chunk and, for a
    /// `text/event-stream` response, every event. The sequence ends when the response does, and
    /// throws the request's `RequestFailure` when it fails. Cancelling the consuming task cancels
    /// the request. When the consumer falls behind, the newest `bufferingNewest` items are kept.
    public func stream(_ request: Request, bufferingNewest limit: Int = 4096) -> AsyncThrowingStream<StreamItem, any Error> {
        AsyncThrowingStream(bufferingPolicy: .bufferingNewest(limit)) { continuation in
            var request = request
            request.streamsResponse = true
            let handle = start(request, callbacks: RequestCallbacks(
                success: { _ in continuation.finish() },
                failure: { continuation.finish(throwing: $0) },
                streamed: { continuation.yield($0) }
            ))
            continuation.onTermination = { [weak self] termination in
                if case .cancelled = termination { self?.cancel(handle) }
            }
        }
    }

    /// Follows a `text/event-stream` resource as a browser's EventSource does: its events as they
    /// arrive and, when the connection drops, a reconnection after the server's `retry:` (or the
    /// policy's default) with `Last-Event-ID`, up to `maxReconnects` times. Each connection is an
    /// exchange of its own for observers, its debug message saying which reconnection it was.
    /// A stream the server ends cleanly is reconnected too, as a browser does; a clean end that
    /// brought no event, an answer that is not a connection drop (an error status), or
    /// `maxReconnects` reached ends it.
    public func eventSource(_ request: Request, reconnect policy: ReconnectPolicy = ReconnectPolicy(),
                            bufferingNewest limit: Int = 4096) -> AsyncThrowingStream<ServerSentEvent, any Error> {
        AsyncThrowingStream(bufferingPolicy: .bufferingNewest(limit)) { continuation in
            let task = Task { [self] in
                var lastEventID = request.headers["Last-Event-ID"]
                var retry = policy.defaultRetry
                var attempt = 0
                while true {
                    var connection = request
                    connection.reconnectAttempt = attempt
                    if connection.headers["Accept"] == nil { connection.headers.set("Accept", "text/event-stream") }
                    if let lastEventID { connection.headers.set("Last-Event-ID", lastEventID) }
                    var failure: (any Error)?
                    var sawEventStream = false
                    do {
                        for try await item in stream(connection, bufferingNewest: limit) {
                            guard case .event(let event) = item else { continue }
                            sawEventStream = true
                            lastEventID = event.id ?? lastEventID
                            if let milliseconds = event.retryMilliseconds { retry = min(.milliseconds(milliseconds), policy.maxRetry) }
                            continuation.yield(event)
                        }
                    } catch {
                        failure = error
                    }
                    if Task.isCancelled { break }
                    let dropped = (failure as? RequestFailure).map { $0.error.isConnectionDrop } ?? (failure == nil)
                    guard dropped, sawEventStream || failure != nil, attempt < policy.maxReconnects else {
                        if let failure, !dropped || attempt >= policy.maxReconnects { continuation.finish(throwing: failure) } else { continuation.finish() }
                        return
                    }
                    attempt += 1
                    try? await Task.sleep(for: retry)
                    if Task.isCancelled { break }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

extension RequestError {
    /// Whether the failure is the connection dropping or not coming up (an event source
    /// reconnects after it), rather than an answer.
    public var isConnectionDrop: Bool {
        [.connectionReset, .incompleteResponse, .emptyResponse, .totalTimeout, .couldNotConnect, .proxyUnreachable, .connectTimeout].contains(kind)
    }
}
