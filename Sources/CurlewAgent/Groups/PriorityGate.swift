import CurlewLocking
import Synchronization

/// JKNetworking's priority-first request, made exact. While a gate is open, every other request
/// or group that starts waits here; when the gate finishes (whatever its outcome) the waiters are
/// released in the order they started. A waiter can be withdrawn (cancelled) and is then never sent.
final class PriorityGate: Sendable {
    struct Waiter: Sendable {
        let id: UInt64
        /// A priority-first request or group waiting for the current gate: it opens the next one.
        let opensGate: Bool
        let release: @Sendable () -> Void
        let cancel: @Sendable () -> Void
    }

    private let state = Locked<(open: UInt64?, waiting: [Waiter])>((nil, []))
    /// Whether a gate is open, set under the lock whenever `open` changes and read without it:
    /// nearly every start finds the gate closed, and the transfer threads starting requests at
    /// once would otherwise all take this one lock.
    private let isOpen = Atomic(false)

    /// True when the request or group `id` may start now; otherwise `waiter()` is queued and its
    /// `release` runs later. `passes` lets the gate's own members through. The waiter is only
    /// made when it has to wait, which is rare: most starts cost no closures.
    func admit(id: UInt64, opensGate: Bool, passes: Bool, waiter: () -> Waiter) -> Bool {
        // A start that read the gate closed just before another opened it is one that came first.
        if !opensGate, passes || !isOpen.load(ordering: .acquiring) { return true }
        return state.withLock { state in
            if opensGate, state.open == nil {
                state.open = id
                isOpen.store(true, ordering: .releasing)
                return true
            }
            if !opensGate, passes || state.open == nil { return true }
            state.waiting.append(waiter())
            return false
        }
    }

    /// Closes the gate `id` and releases waiters in order, up to and including the next gate.
    func close(_ id: UInt64) {
        let released: [Waiter] = state.withLock { state in
            guard state.open == id else { return [] }
            state.open = nil
            var released: [Waiter] = []
            while !state.waiting.isEmpty {
                let next = state.waiting.removeFirst()
                released.append(next)
                if next.opensGate {
                    state.open = next.id
                    break
                }
            }
            isOpen.store(state.open != nil, ordering: .releasing)
            return released
        }
        for waiter in released { waiter.release() }
    }

    /// Removes a waiter that has not been released; nil when it is not waiting.
    func withdraw(_ id: UInt64) -> Waiter? {
        state.withLock { state in
            guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiting.remove(at: index)
        }
    }

    func withdrawAll() -> [Waiter] {
        state.withLock { state in
            defer { state.waiting.removeAll() }
            return state.waiting
        }
    }
}
