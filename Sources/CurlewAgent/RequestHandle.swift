import CurlewLocking

/// A started request: its id and live state. Pass it to `Agent.cancel(_:)` to cancel.
public final class RequestHandle: Sendable, Hashable {
    public let id: UInt64
    public let name: String?
    /// The transfer thread that runs the request and its callbacks (with `.transferThread` delivery).
    let lane: Int
    /// Its state, and why a canceller that gave a reason cancelled it (a group stopping its
    /// members), under one lock.
    private let current = Locked((state: RequestState.created, cancelReason: String?.none))

    init(id: UInt64, name: String?, lane: Int = 0) {
        self.id = id
        self.name = name
        self.lane = lane
    }

    public var state: RequestState {
        current.withLock { $0.state }
    }

    /// Moves to `next` unless the request already ended. Returns false when it had ended, so a
    /// second terminal event can never be delivered.
    func transition(to next: RequestState) -> Bool {
        current.withLock { current in
            guard !current.state.isTerminal else { return false }
            current.state = next
            return true
        }
    }

    /// Keeps why the request is about to be cancelled, for the error it ends with, unless it
    /// already ended or a reason was given before.
    func noteCancelReason(_ reason: String) {
        current.withLock { current in
            guard !current.state.isTerminal, current.cancelReason == nil else { return }
            current.cancelReason = reason
        }
    }

    /// The error a request that ended cancelled reports: `error` with the reason its canceller
    /// gave, when one did; `error` as it is otherwise ("stopped by the caller"). The one place
    /// every way a request ends (the transport, the pipeline, a wait) reads the reason from.
    func explainingCancellation(_ error: RequestError?) -> RequestError? {
        guard let error, error.kind == .cancelled, let reason = current.withLock({ $0.cancelReason }) else { return error }
        return RequestError(.cancelled, reason)
    }

    public static func == (lhs: RequestHandle, rhs: RequestHandle) -> Bool { lhs.id == rhs.id }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}
