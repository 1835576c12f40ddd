import CurlewTransport
import CurlewLocking
import Foundation

/// Cache entries on disk: `<digest>.meta` (JSON metadata) beside `<digest>.body`, each written to a
/// temporary owner-only file and renamed into place, so a reader sees a whole file or none. A
/// missing, corrupt, truncated or mismatched entry is a miss and is removed. The store keeps its
/// total size under a bound by evicting the least recently used entries; use is recorded in the
/// files' modification times, so the order survives a restart.
///
/// The directory must be this user's own: created 0700 when missing, tightened to 0700 when
/// others may only read it. One that is a symbolic link, belongs to someone else or that others
/// may write turns the store off (`problem`), since whoever can write there could plant answers.
/// Files are never opened through a link.
final class DiskCacheStore: Sendable {
    private struct Index {
        var loaded = false
        var problem: String?
        var entries: [String: (size: Int64, lastUse: Date)] = [:]
        var totalBytes: Int64 = 0
    }

    let directory: String
    let maxBytes: Int64
    private let index = Locked(Index())

    init(directory: String, maxBytes: Int64) {
        self.directory = Self.withoutTrailingSeparators(directory)
        self.maxBytes = maxBytes
    }

    /// `path` without trailing `/` and `/.`: `lstat` follows a symbolic link named `link/` or
    /// `link/.`, so the link check must see `link`.
    static func withoutTrailingSeparators(_ path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 {
            if trimmed.hasSuffix("/") {
                trimmed = trimmed.dropLast()
            } else if trimmed.hasSuffix("/.") {
                trimmed = trimmed.dropLast(2)
            } else {
                break
            }
        }
        return trimmed.isEmpty ? "/" : String(trimmed)
    }

    /// Why the store is off, or nil when its directory is usable.
    var problem: String? {
        loadIndexIfNeeded()
        return index.withLock { $0.problem }
    }

    func read(digest: String, key: String) -> CacheEntry? {
        loadIndexIfNeeded()
        guard index.withLock({ $0.problem == nil && $0.entries[digest] != nil }) else { return nil }
        guard let metaData = Self.readFile(path(digest, "meta")),
              let metadata = try? Self.decoder.decode(CacheEntry.Metadata.self, from: metaData),
              metadata.format == CacheEntry.format, metadata.key == key, metadata.isPlausible,
              let body = Self.readFile(path(digest, "body")),
              body.count == metadata.bodySize, SHA256Digest.hex(of: body) == metadata.bodyDigest else {
            remove(digest: digest)
            return nil
        }
        let now = Date()
        index.withLock { $0.entries[digest]?.lastUse = now }
        touch(path(digest, "meta"), at: now)
        return CacheEntry(metadata: metadata, body: body)
    }

    /// Writes an entry; false when it was not stored (the directory is unusable, the entry is
    /// larger than the bound, or the write failed).
    @discardableResult
    func write(_ entry: CacheEntry, digest: String) -> Bool {
        loadIndexIfNeeded()
        guard index.withLock({ $0.problem == nil }), let meta = try? Self.encoder.encode(entry.metadata) else { return false }
        let size = Int64(meta.count + entry.body.count)
        guard size <= maxBytes else { return false }
        // Body first: a metadata file never points at a body that is not there yet.
        guard (try? OwnerOnlyFile.write(entry.body, to: path(digest, "body"))) != nil,
              (try? OwnerOnlyFile.write(meta, to: path(digest, "meta"))) != nil else {
            remove(digest: digest)
            return false
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
        return true
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

    /// The encoder's reader: dates in milliseconds since 1970 too.
    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return decoder
    }()

    private func path(_ digest: String, _ kind: String) -> String {
        directory + "/" + digest + "." + kind
    }

    /// Checks the directory and reads it once: sizes and last-use times of the entries already there.
    private func loadIndexIfNeeded() {
        guard !index.withLock({ $0.loaded }) else { return }
        if let problem = prepareDirectory() {
            index.withLock { index in
                index.loaded = true
                index.problem = problem
            }
            return
        }
        var found: [String: (size: Int64, lastUse: Date)] = [:]
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        // Temporary files a crash left behind are removed; they were never entries.
        for name in names where name.contains(".tmp-") { unlink(directory + "/" + name) }
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

    /// Creates the directory owner-only, or checks an existing one. Returns why it cannot be used.
    private func prepareDirectory() -> String? {
        var status = stat()
        if lstat(directory, &status) != 0 {
            guard errno == ENOENT else { return "cache directory \(directory.debugDescription): \(String(cString: strerror(errno)))" }
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                return "cache directory \(directory.debugDescription) cannot be created: \(error.localizedDescription)"
            }
            guard lstat(directory, &status) == 0 else { return "cache directory \(directory.debugDescription) vanished" }
        }
        if (status.st_mode & S_IFMT) == S_IFLNK { return "cache directory \(directory.debugDescription) is a symbolic link; not used" }
        guard (status.st_mode & S_IFMT) == S_IFDIR else { return "cache directory \(directory.debugDescription) is not a directory" }
        guard status.st_uid == geteuid() else { return "cache directory \(directory.debugDescription) belongs to another user; not used" }
        guard status.st_mode & 0o022 == 0 else {
            return "cache directory \(directory.debugDescription) is open to other users (mode \(String(status.st_mode & 0o777, radix: 8))); not used"
        }
        // Readable by others, but not writable: nothing can have been planted; close it.
        if status.st_mode & 0o077 != 0, chmod(directory, 0o700) != 0 {
            return "cache directory \(directory.debugDescription) cannot be made owner-only: \(String(cString: strerror(errno)))"
        }
        return nil
    }

    /// A whole regular file, never through a symbolic link; nil when it cannot be read. Opened
    /// without blocking, so a FIFO planted in place of an entry cannot hang the reader.
    private static func readFile(_ path: String) -> Data? {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = Foundation.read(descriptor, &buffer, buffer.count)
            if count < 0 { if errno == EINTR { continue }; return nil }
            if count == 0 { return data }
            data.append(contentsOf: buffer[0..<count])
        }
    }

    private func touch(_ path: String, at date: Date) {
        var times = [timespec](repeating: timespec(), count: 2)
        let seconds = date.timeIntervalSince1970
        times[0] = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
        times[1] = times[0]
        _ = utimensat(AT_FDCWD, path, &times, AT_SYMLINK_NOFOLLOW)
    }

    private func unlinkFiles(_ digest: String) {
        unlink(path(digest, "meta"))
        unlink(path(digest, "body"))
    }
}
