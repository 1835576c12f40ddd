import CurlewLocking

/// Cache entries in memory, at most `capacity`, least recently used evicted first.
final class MemoryCacheStore: Sendable {
    private struct State {
        var entries: [String: (entry: CacheEntry, lastUse: UInt64)] = [:]
        var clock: UInt64 = 0
    }

    let capacity: Int
    private let state = Locked(State())

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    func read(digest: String, key: String) -> CacheEntry? {
        state.withLock { state in
            guard let found = state.entries[digest], found.entry.metadata.key == key else { return nil }
            state.clock += 1
            state.entries[digest]?.lastUse = state.clock
            return found.entry
        }
    }

    func write(_ entry: CacheEntry, digest: String) {
        state.withLock { state in
            state.clock += 1
            state.entries[digest] = (entry, state.clock)
            while state.entries.count > capacity, let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
                state.entries.removeValue(forKey: oldest)
            }
        }
    }

    func remove(digest: String) {
        _ = state.withLock { $0.entries.removeValue(forKey: digest) }
    }

    var count: Int { state.withLock { $0.entries.count } }
}
