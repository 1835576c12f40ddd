import CurlewAgent
import Synchronization

/// An agent event as the UI consumes it.
public enum UIEvent: Sendable {
    case willSend(RequestInfo)
    case didSend(RequestInfo)
    case waiting(RequestInfo)
    case progress(RequestInfo, RequestProgress)
    case message(DebugMessage)
    case finished(RequestInfo, RequestState)
    case group(GroupEvent)
}

/// The TUI's observer: it only queues events; the curses thread drains them between key presses,
/// so a flood of events never delays input. Progress bursts are coalesced to the latest per request.
public final class TUIObserver: NetworkObserver {
    private let inbox = Mutex<[UIEvent]>([])

    public init() {}

    public func requestWillBeSent(_ request: RequestInfo) { push(.willSend(request)) }
    public func requestDidSend(_ request: RequestInfo) { push(.didSend(request)) }
    public func requestIsWaiting(_ request: RequestInfo, reason: WaitReason) { push(.waiting(request)) }
    public func request(_ request: RequestInfo, didProgress progress: RequestProgress) { push(.progress(request, progress)) }
    public func requestDidProduce(_ message: DebugMessage) { push(.message(message)) }
    public func requestDidFinish(_ request: RequestInfo, state: RequestState) { push(.finished(request, state)) }
    public func requestGroup(_ event: GroupEvent) { push(.group(event)) }

    public func push(_ event: UIEvent) {
        inbox.withLock { $0.append(event) }
    }

    public var pendingCount: Int { inbox.withLock { $0.count } }

    /// Takes every queued event, in order, keeping only the last progress of each request.
    public func drain() -> [UIEvent] {
        let events = inbox.withLock { inbox -> [UIEvent] in
            defer { inbox.removeAll(keepingCapacity: true) }
            return inbox
        }
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
