import Foundation

/// Files Curlew writes whole: written to a fresh owner-only temporary file beside the target,
/// then renamed over it, so a reader sees the old file or the new one, never a torn one.
public enum OwnerOnlyFile {
    /// Writes `data` to `path` atomically with mode 0600. Throws the reason it could not. Only a
    /// writable regular file is replaced: renaming over a device or a named pipe would put a file
    /// in its place (`-o /dev/null` run as root would replace the system's `/dev/null`), and over a
    /// symbolic link would replace the link (`--har /dev/stdout` run as root replaced the
    /// system's `/dev/stdout`), while writing through it could reach a file someone else chose.
    public static func write(_ data: Data, to path: String) throws(OwnerOnlyFileError) {
        if let problem = replaceProblem(path) { throw OwnerOnlyFileError(reason: problem) }
        try write(data, to: path, replacing: true)
    }

    /// Why `write` would not replace what is at `path`, or nil: nothing is there, or a regular
    /// file its owner may write is. A file made read-only is kept: renaming over it would replace
    /// it whatever its mode says (for root too, whom the mode does not stop).
    public static func replaceProblem(_ path: String) -> String? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        switch status.st_mode & S_IFMT {
        case S_IFREG where isMadeReadOnly(status): return readOnlyReason
        case S_IFREG: return nil
        case S_IFLNK: return "it is a symbolic link; give the path of the file itself"
        case S_IFDIR: return "it is a directory; give the path of a file"
        default: return "it is a device, a named pipe or a socket, not a regular file; give the path of a file"
        }
    }

    /// Whether `status` is a regular file's without its owner's write bit: a file someone made
    /// read-only, which Curlew neither replaces nor appends to, though root could write it.
    public static func isMadeReadOnly(_ status: stat) -> Bool {
        status.st_mode & S_IFMT == S_IFREG && status.st_mode & S_IWUSR == 0
    }

    /// What is said of a file made read-only.
    public static let readOnlyReason = "it is read-only (its mode says so); make it writable with chmod u+w"

    /// Writes `data` to a new file at `path` with mode 0600, atomically; a file already there
    /// (even one that appears while this runs) is left alone and the write fails.
    public static func create(_ data: Data, at path: String) throws(OwnerOnlyFileError) {
        try write(data, to: path, replacing: false)
    }

    private static func write(_ data: Data, to path: String, replacing: Bool) throws(OwnerOnlyFileError) {
        let temporary = path + ".tmp-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw OwnerOnlyFileError(reason: String(cString: strerror(errno))) }
        let written = data.withUnsafeBytes { BodyFile.writeAll(descriptor, $0) }
        let reason = written ? nil : String(cString: strerror(errno))
        close(descriptor)
        // rename replaces what is there; link refuses to.
        let placed = written && (replacing ? rename(temporary, path) == 0 : link(temporary, path) == 0)
        let failure = placed ? nil : reason ?? String(cString: strerror(errno))
        if !placed || !replacing { unlink(temporary) }
        if let failure { throw OwnerOnlyFileError(reason: failure) }
    }
}

/// Why `OwnerOnlyFile.write` failed, in the system's words.
public struct OwnerOnlyFileError: Error, Sendable {
    public var reason: String
}
