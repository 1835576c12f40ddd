import Foundation

/// The agent's response cache over the configured stores (memory, disk, or memory in front of disk).
public final class ResponseCache: Sendable {
    private let memory: MemoryCacheStore?
    private let disk: DiskCacheStore?

    init?(settings: CacheSettings) {
        switch settings.storage {
        case .none:
            return nil
        case .memory:
            memory = MemoryCacheStore(capacity: settings.maxMemoryEntries, maxBytes: settings.maxMemoryBytes)
            disk = nil
        case .disk, .memoryAndDisk:
            guard let directory = settings.directory, !directory.isEmpty else { return nil }
            memory = settings.storage == .memoryAndDisk ? MemoryCacheStore(capacity: settings.maxMemoryEntries, maxBytes: settings.maxMemoryBytes) : nil
            disk = DiskCacheStore(directory: directory, maxBytes: settings.maxDiskBytes)
        }
    }

    func entry(for key: RequestKey) -> CacheEntry? {
        if let entry = memory?.read(digest: key.digest, key: key.text) { return entry }
        guard let entry = disk?.read(digest: key.digest, key: key.text) else { return nil }
        memory?.write(entry, digest: key.digest)
        return entry
    }

    /// Stores an entry in every store; true when at least one kept it.
    func store(_ entry: CacheEntry, for key: RequestKey) -> Bool {
        let inMemory = memory?.write(entry, digest: key.digest) ?? false
        let onDisk = disk?.write(entry, digest: key.digest) ?? false
        return inMemory || onDisk
    }

    /// Forgets one entry, in every store.
    func remove(_ key: RequestKey) {
        memory?.remove(digest: key.digest)
        disk?.remove(digest: key.digest)
    }

    /// Bytes the disk store holds; 0 without one.
    public var diskBytes: Int64 { disk?.totalBytes ?? 0 }

    /// Why the disk store is off (its directory is not safe to use), or nil.
    var problem: String? { disk?.problem }
}
