import Foundation

/// Files Curlew writes whole: written to a fresh owner-only temporary file beside the target,
/// then renamed over it, so a reader sees the old file or the new one, never a torn one.
public enum OwnerOnlyFile {
    /// Writes `data` to `path` atomically with mode 0600. Throws the reason it could not.
    public static func write(_ data: Data, to path: String) throws(OwnerOnlyFileError) {
        let temporary = path + ".tmp-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw OwnerOnlyFileError(reason: String(cString: strerror(errno))) }
        let written = data.withUnsafeBytes { BodyFile.writeAll(descriptor, $0) }
        let reason = written ? nil : String(cString: strerror(errno))
        close(descriptor)
        guard written, rename(temporary, path) == 0 else {
            let failure = reason ?? String(cString: strerror(errno))
            unlink(temporary)
            throw OwnerOnlyFileError(reason: failure)
        }
    }
}

/// Why `OwnerOnlyFile.write` failed, in the system's words.
public struct OwnerOnlyFileError: Error, Sendable {
    public var reason: String
}
