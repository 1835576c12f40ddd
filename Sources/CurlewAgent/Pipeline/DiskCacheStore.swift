import CurlewLocking
import Foundation

/// Cache entries on disk: `<digest>.meta` (JSON metadata) beside `<digest>.body`, each written to a
/// temporary owner-only file and renamed into place, so a reader sees a whole file or none. A
/// missing, corrupt, truncated or mismatched entry is a miss and is removed. The store keeps its
/// total size under a bound by evicting the least recently used entries; use is recorded in the
/// files' modification times, so the order survives a restart.
final class DiskCacheStore: Sendable {
    private struct Index {
        var loaded = false
        var entries: [String: (size: Int64, lastUse: Date)] = [:]
        var totalBytes: Int64 = 0
    }

    let directory: String
    let maxBytes: Int64
    private let index = Locked(Index())

    init(directory: String, maxBytes: Int64) {
        self.directory = directory
        self.maxBytes = maxBytes
    }

    func read(digest: String, key: String) -> CacheEntry? {
        loadIndexIfNeeded()
        guard index.withLock({ $0.entries[digest] != nil }) else { return nil }
        guard let metaData = FileManager.default.contents(atPath: path(digest, "meta")),
              let metadata = try? JSONDecoder().decode(CacheEntry.Metadata.self, from: metaData),
              metadata.format == CacheEntry.format, metadata.key == key,
              let body = FileManager.default.contents(atPath: path(digest, "body")),
              body.count == metadata.bodySize, Fingerprint.hex(of: body) == metadata.bodyDigest else {
            remove(digest: digest)
            return nil
        }
        let now = Date()
        index.withLock { $0.entries[digest]?.lastUse = now }
        touch(path(digest, "meta"), at: now)
        return CacheEntry(metadata: metadata, body: body)
    }

    func write(_ entry: CacheEntry, digest: String) {
        loadIndexIfNeeded()
        guard makeDirectory(), let meta = try? Self.encoder.encode(entry.metadata) else { return }
        let size = Int64(meta.count + entry.body.count)
        guard size <= maxBytes else { return }
        // Body first: a metadata file never points at a body that is not there yet.
        guard writeAtomically(entry.body, to: path(digest, "body")), writeAtomically(meta, to: path(digest, "meta")) else {
            remove(digest: digest)
            return
        }
        let victims = index.withLock { index -> [String] in
            if let old = index.entries[digest] { index.totalBytes -= old.size }
            index.entries[digest] = (size, Date())
            index.totalBytes += size
            var victims: [String] = []
            let byAge = index.entries.sorted { $0.value.lastUse < $1.value.lastUse }.map(\.key)
            for candidate in byAge where index.totalBytes > maxBytes && candidate != digest {
                index.totalBytes -= index.entries.removeValue(forKey: candidate)?.size ?? 0
                victims.append(candidate)
            }
            return victims
        }
        for victim in victims { unlinkFiles(victim) }
    }

    func remove(digest: String) {
        index.withLock { index in
            if let old = index.entries.removeValue(forKey: digest) { index.totalBytes -= old.size }
        }
        unlinkFiles(digest)
    }

    /// Total bytes of the entries the store knows.
    var totalBytes: Int64 {
        loadIndexIfNeeded()
        return index.withLock { $0.totalBytes }
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .millisecondsSince1970
        return encoder
    }()

    private func path(_ digest: String, _ kind: String) -> String {
        directory + "/" + digest + "." + kind
    }

    /// Reads the directory once: sizes and last-use times of the entries already there.
    private func loadIndexIfNeeded() {
        guard !index.withLock({ $0.loaded }) else { return }
        var found: [String: (size: Int64, lastUse: Date)] = [:]
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names where name.hasSuffix(".meta") {
            let digest = String(name.dropLast(5))
            let attributes = (try? FileManager.default.attributesOfItem(atPath: path(digest, "meta"))) ?? [:]
            let bodySize = ((try? FileManager.default.attributesOfItem(atPath: path(digest, "body")))?[.size] as? NSNumber)?.int64Value ?? 0
            let metaSize = (attributes[.size] as? NSNumber)?.int64Value ?? 0
            found[digest] = (metaSize + bodySize, attributes[.modificationDate] as? Date ?? .distantPast)
        }
        index.withLock { index in
            guard !index.loaded else { return }
            index.loaded = true
            index.entries = found
            index.totalBytes = found.values.reduce(0) { $0 + $1.size }
        }
    }

    private func makeDirectory() -> Bool {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) { return isDirectory.boolValue }
        return (try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                         attributes: [.posixPermissions: 0o700])) != nil
    }

    private func writeAtomically(_ data: Data, to target: String) -> Bool {
        let temporary = target + ".tmp-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return false }
        var written = 0
        let complete = data.withUnsafeBytes { buffer -> Bool in
            while written < buffer.count {
                let count = Foundation.write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if count < 0 { if errno == EINTR { continue }; return false }
                written += count
            }
            return true
        }
        close(descriptor)
        guard complete, rename(temporary, target) == 0 else {
            unlink(temporary)
            return false
        }
        return true
    }

    private func touch(_ path: String, at date: Date) {
        var times = [timespec](repeating: timespec(), count: 2)
        let seconds = date.timeIntervalSince1970
        times[0] = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
        times[1] = times[0]
        _ = utimensat(AT_FDCWD, path, &times, 0)
    }

    private func unlinkFiles(_ digest: String) {
        unlink(path(digest, "meta"))
        unlink(path(digest, "body"))
    }
}
