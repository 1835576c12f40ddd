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

/// The TUI's observer: it only queues events; the curses thread drains them between key presses,
/// so a flood of events never delays input. Progress bursts are coalesced to the latest per request.
///
/// Items of streamed responses wait here `maxQueuedStreamItems` at most: a server that streams
/// faster than the interface draws would otherwise fill memory (1.8 GB in a trial). Past that,
/// new items are dropped and counted, and the count goes with the request's next item that is
/// queued, as the observer lanes count what they drop. Other events are never dropped.
public final class TUIObserver: NetworkObserver {
    public static let maxQueuedStreamItems = 4096

    private struct Inbox {
        var queue = EventQueue()
        /// Stream items dropped since the last one queued, by request.
        var droppedStreamItems: [UInt64: Int] = [:]
    }

    private let inbox = Locked(Inbox())
    private let streamItemLimit: Int

    public init(maxQueuedStreamItems: Int = TUIObserver.maxQueuedStreamItems) {
        streamItemLimit = maxQueuedStreamItems
    }

    public func requestWillBeSent(_ request: RequestInfo) { push(.willSend(request)) }
    public func requestDidSend(_ request: RequestInfo) { push(.didSend(request)) }
    public func requestIsWaiting(_ request: RequestInfo, reason: WaitReason) { push(.waiting(request)) }
    public func request(_ request: RequestInfo, didProgress progress: RequestProgress) { push(.progress(request, progress)) }
    public func requestDidProduce(_ message: DebugMessage) { push(.message(message)) }
    public func requestDidStream(_ update: StreamUpdate) {
        let id = update.request.id
        inbox.withLock { inbox in
            guard inbox.queue.streamItemCount < streamItemLimit else {
                inbox.droppedStreamItems[id, default: 0] += 1 + update.droppedBefore
                return
            }
            let dropped = update.droppedBefore + (inbox.droppedStreamItems.removeValue(forKey: id) ?? 0)
            let event: UIEvent = switch update.item {
            case .chunk(let data, _): .streamedBytes(update.request, data.count, dropped: dropped)
            // Cut as the live row keeps it: an event's data may be a megabyte.
            case .event(let event): .streamedEvent(update.request, StreamRecord.kept(event), dropped: dropped)
            }
            inbox.queue.append(event)
        }
    }
    public func requestDidFinish(_ request: RequestInfo, state: RequestState) {
        // Drops no later item of the request will carry are forgotten with it.
        inbox.withLock { _ = $0.droppedStreamItems.removeValue(forKey: request.id) }
        push(.finished(request, state))
    }
    public func requestGroup(_ event: GroupEvent) { push(.group(event)) }

    public func push(_ event: UIEvent) {
        inbox.withLock { $0.queue.append(event) }
    }

    public var pendingCount: Int { inbox.withLock { $0.queue.count } }

    /// Takes up to `limit` queued events, oldest first, keeping only the last progress of each
    /// request among them. The rest stay queued for the next call.
    public func drain(limit: Int = Int.max) -> [UIEvent] {
        let events = inbox.withLock { $0.queue.takeFirst(limit) }
        var lastProgress: [UInt64: Int] = [:]
        for (index, event) in events.enumerated() {
            if case .progress(let info, _) = event { lastProgress[info.id] = index }
        }
        return events.enumerated().compactMap { index, event in
            if case .progress(let info, _) = event, lastProgress[info.id] != index { return nil }
            return event
        }
    }
}
