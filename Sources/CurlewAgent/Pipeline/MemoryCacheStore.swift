import CurlewLocking

/// Cache entries in memory, at most `capacity` of them and `maxBytes` of bodies, least recently
/// used evicted first. An entry larger than `maxBytes` is not kept.
final class MemoryCacheStore: Sendable {
    private struct State {
        var entries: [String: (entry: CacheEntry, lastUse: UInt64)] = [:]
        var bytes = 0
        var clock: UInt64 = 0
    }

    let capacity: Int
    let maxBytes: Int
    private let state = Locked(State())

    init(capacity: Int, maxBytes: Int) {
        self.capacity = max(1, capacity)
        self.maxBytes = max(0, maxBytes)
    }

    func read(digest: String, key: String) -> CacheEntry? {
        state.withLock { state in
            guard let found = state.entries[digest], found.entry.metadata.key == key else { return nil }
            state.clock += 1
            state.entries[digest]?.lastUse = state.clock
            return found.entry
        }
    }

    /// Keeps an entry; false when it is larger than the byte bound.
    @discardableResult
    func write(_ entry: CacheEntry, digest: String) -> Bool {
        guard entry.body.count <= maxBytes else {
            remove(digest: digest)
            return false
        }
        state.withLock { state in
            state.clock += 1
            if let old = state.entries.updateValue((entry, state.clock), forKey: digest) { state.bytes -= old.entry.body.count }
            state.bytes += entry.body.count
            while state.entries.count > capacity || state.bytes > maxBytes,
                  let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
                state.bytes -= state.entries.removeValue(forKey: oldest)?.entry.body.count ?? 0
            }
        }
        return true
    }

    func remove(digest: String) {
        state.withLock { state in
            state.bytes -= state.entries.removeValue(forKey: digest)?.entry.body.count ?? 0
        }
    }
}
