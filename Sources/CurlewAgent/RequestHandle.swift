import CurlewLocking

/// A started request: its id and live state. Pass it to `Agent.cancel(_:)` to cancel.
public final class RequestHandle: Sendable, Hashable {
    public let id: UInt64
    public let name: String?
    /// The transfer thread that runs the request and its callbacks (with `.transferThread` delivery).
    let lane: Int
    private let currentState = Locked(RequestState.created)

    init(id: UInt64, name: String?, lane: Int = 0) {
        self.id = id
        self.name = name
        self.lane = lane
    }

    public var state: RequestState {
        currentState.withLock { $0 }
    }

    /// Moves to `next` unless the request already ended. Returns false when it had ended, so a
    /// second terminal event can never be delivered.
    func transition(to next: RequestState) -> Bool {
        currentState.withLock { state in
            guard !state.isTerminal else { return false }
            state = next
            return true
        }
    }

    public static func == (lhs: RequestHandle, rhs: RequestHandle) -> Bool { lhs.id == rhs.id }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}
