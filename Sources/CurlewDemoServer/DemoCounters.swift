import CurlewLocking

/// The demo server's counts: requests per path (for `/counter`) and per-key attempts (for
/// `/flaky` and `/retry-after`). Bounded, so a client cycling through paths cannot grow it forever.
final class DemoCounters: Sendable {
    private struct State {
        var hits: [String: Int] = [:]
        var attempts: [String: Int] = [:]
    }

    static let capacity = 10_000
    private let state = Locked(State())

    func count(path: String) {
        state.withLock { state in
            if state.hits[path] == nil, state.hits.count >= Self.capacity { state.hits.removeAll() }
            state.hits[path, default: 0] += 1
        }
    }

    func hits(path: String) -> Int {
        state.withLock { $0.hits[path] ?? 0 }
    }

    func allHits() -> [String: Int] {
        state.withLock { $0.hits }
    }

    /// The attempt number of this request for `key`, from 1.
    func next(key: String) -> Int {
        state.withLock { state in
            if state.attempts[key] == nil, state.attempts.count >= Self.capacity { state.attempts.removeAll() }
            state.attempts[key, default: 0] += 1
            return state.attempts[key]!
        }
    }

    func reset() {
        state.withLock { $0 = State() }
    }
}
