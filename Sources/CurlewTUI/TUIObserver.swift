import CurlewAgent
import CurlewLocking

/// An agent event as the UI consumes it.
public enum UIEvent: Sendable {
    case willSend(RequestInfo)
    case didSend(RequestInfo)
    case waiting(RequestInfo)
    case progress(RequestInfo, RequestProgress)
    /// Bytes of a streamed response, and how many items the observer's lane dropped before them
    /// (only the count is queued: the interface shows events, not raw chunks).
    case streamedBytes(RequestInfo, Int, dropped: Int)
    /// An event of a streamed response, and how many items were dropped before it.
    case streamedEvent(RequestInfo, ServerSentEvent, dropped: Int)
    case message(DebugMessage)
    case finished(RequestInfo, RequestState)
    case group(GroupEvent)
}

/// A UI event with the moment it reached the observer, so durations do not depend on how often
/// the UI drains.
public struct TimedUIEvent: Sendable {
    public var event: UIEvent
    public var at: ContinuousClock.Instant
}

/// The TUI's observer: it only queues events; the curses thread drains them between key presses,
/// so a flood of events never delays input. Progress bursts are coalesced to the latest per request.
public final class TUIObserver: NetworkObserver {
    private let inbox = Locked(EventQueue())

    public init() {}

    public func requestWillBeSent(_ request: RequestInfo) { push(.willSend(request)) }
    public func requestDidSend(_ request: RequestInfo) { push(.didSend(request)) }
    public func requestIsWaiting(_ request: RequestInfo, reason: WaitReason) { push(.waiting(request)) }
    public func request(_ request: RequestInfo, didProgress progress: RequestProgress) { push(.progress(request, progress)) }
    public func requestDidProduce(_ message: DebugMessage) { push(.message(message)) }
    public func requestDidStream(_ update: StreamUpdate) {
        switch update.item {
        case .chunk(let data, _): push(.streamedBytes(update.request, data.count, dropped: update.droppedBefore))
        case .event(let event): push(.streamedEvent(update.request, event, dropped: update.droppedBefore))
        }
    }
    public func requestDidFinish(_ request: RequestInfo, state: RequestState) { push(.finished(request, state)) }
    public func requestGroup(_ event: GroupEvent) { push(.group(event)) }

    public func push(_ event: UIEvent) {
        let timed = TimedUIEvent(event: event, at: .now)
        inbox.withLock { $0.append(timed) }
    }

    public var pendingCount: Int { inbox.withLock { $0.count } }

    /// Takes up to `limit` queued events, oldest first, keeping only the last progress of each
    /// request among them. The rest stay queued for the next call.
    public func drain(limit: Int = Int.max) -> [TimedUIEvent] {
        let events = inbox.withLock { $0.takeFirst(limit) }
        var lastProgress: [UInt64: Int] = [:]
        for (index, timed) in events.enumerated() {
            if case .progress(let info, _) = timed.event { lastProgress[info.id] = index }
        }
        return events.enumerated().compactMap { index, timed in
            if case .progress(let info, _) = timed.event, lastProgress[info.id] != index { return nil }
            return timed
        }
    }
}
