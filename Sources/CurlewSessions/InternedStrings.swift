import CurlewLocking

/// Strings kept once each, named by a small number: a log's methods and URLs repeat, so an index
/// stores the number per entry instead of the text. Past `maxCount` strings or `maxBytes` of text
/// nothing more is kept and `intern` answers nil; the caller then reads that value from the file.
///
/// Appended to by the indexing thread, read by any.
final class InternedStrings: Sendable {
    private struct Storage {
        var ids: [String: UInt32] = [:]
        var values: [String] = []
        var bytes = 0
    }

    private let storage = Locked(Storage())
    let maxCount: Int
    let maxBytes: Int

    init(maxCount: Int, maxBytes: Int) {
        self.maxCount = maxCount
        self.maxBytes = maxBytes
    }

    /// The number of `value`, given it a new one if there is room; nil when the table is full.
    func intern(_ value: String) -> UInt32? {
        storage.withLock { storage in
            if let id = storage.ids[value] { return id }
            let size = value.utf8.count
            guard storage.values.count < maxCount, storage.bytes + size <= maxBytes else { return nil }
            let id = UInt32(storage.values.count)
            storage.ids[value] = id
            storage.values.append(value)
            storage.bytes += size
            return id
        }
    }

    /// The string numbered `id` (which `intern` returned).
    func value(_ id: UInt32) -> String {
        storage.withLock { $0.values[Int(id)] }
    }
}
