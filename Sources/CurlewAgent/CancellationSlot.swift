import CurlewLocking

/// Connects a task's cancellation to a request or group handle that may not exist yet: whichever
/// of "started" and "cancelled" comes second triggers the cancel.
public final class CancellationSlot<Handle: Sendable>: Sendable {
    private let state = Locked<(handle: Handle?, cancelled: Bool)>((nil, false))

    public init() {}

    /// Stores the handle; returns true when cancellation was already requested.
    public func store(_ handle: Handle) -> Bool {
        state.withLock { state in
            state.handle = handle
            return state.cancelled
        }
    }

    /// Marks cancellation; returns the handle when it is already known.
    public func markCancelled() -> Handle? {
        state.withLock { state in
            state.cancelled = true
            return state.handle
        }
    }
}
