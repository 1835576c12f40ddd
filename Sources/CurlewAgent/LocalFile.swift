import CurlewTransport
import Foundation

/// Checks on the local files a request names, made before anything is sent so a typo fails with
/// the file's name instead of a half-sent request.
public enum LocalFile {
    /// `path` as written when absolute, with `~` expanded, or joined to `directory` when relative.
    public static func path(_ path: String, relativeTo directory: String) -> String {
        path.hasPrefix("/") || path.hasPrefix("~") ? (path as NSString).expandingTildeInPath : (directory as NSString).appendingPathComponent(path)
    }

    /// The directory `path` is in: "." for a bare name, "/" for a name at the root. Foundation's
    /// `deletingLastPathComponent` traps on Linux for a one-character name (`a`, `.`, `x/`).
    public static func directory(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        var parent = trimmed[..<slash]
        while parent.hasSuffix("/") { parent = parent.dropLast() }
        return parent.isEmpty ? "/" : String(parent)
    }

    /// Why `path` cannot name a file Curlew writes, or nil: it is empty, ends with `/`, or is an
    /// existing directory. Checked before the path is taken apart or anything is sent.
    public static func fileNameProblem(_ path: String) -> String? {
        if path.isEmpty { return "the path is empty" }
        if path.hasSuffix("/") { return "it ends with / and so names a directory; give the path of a file" }
        var info = stat()
        if stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR { return "it is a directory; give the path of a file" }
        return nil
    }

    /// Why `OwnerOnlyFile.write` could not put a file at `path`, or nil: the one check before
    /// Curlew writes a file a user named (a cookie jar, a report, an export, a new workspace),
    /// made before anything is sent so a typo costs nothing.
    public static func writeProblem(_ path: String) -> String? {
        fileNameProblem(path) ?? OwnerOnlyFile.replaceProblem(path) ?? parentProblem(path)
    }

    /// Why no file can be created beside `path`, or nil; a relative path's directory is named in full.
    private static func parentProblem(_ path: String) -> String? {
        let parent = directory(of: path)
        let absolute = parent.hasPrefix("/") ? parent
            : FileManager.default.currentDirectoryPath + (parent == "." ? "" : "/" + parent)
        return directoryProblem(absolute)
    }

    /// Why no file can be created in `directory`, or nil: it is missing, not a directory, or not
    /// writable and searchable by this process.
    static func directoryProblem(_ directory: String) -> String? {
        var info = stat()
        if stat(directory, &info) != 0 { return "its directory \(directory) cannot be used: \(String(cString: strerror(errno)))" }
        if (info.st_mode & S_IFMT) != S_IFDIR { return "\(directory) is not a directory" }
        if access(directory, W_OK | X_OK) != 0 { return "its directory \(directory) is not writable" }
        return nil
    }

    /// Throws `localFile` unless `path` is a regular file this process can read.
    public static func checkReadable(_ path: String, purpose: String) throws(RequestError) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw RequestError(.localFile, "\(purpose): cannot read \(path): \(String(cString: strerror(errno)))", code: 26)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw RequestError(.localFile, "\(purpose): \(path) is not a regular file", code: 26)
        }
        guard access(path, R_OK) == 0 else {
            throw RequestError(.localFile, "\(purpose): cannot read \(path): \(String(cString: strerror(errno)))", code: 26)
        }
    }

    /// The size of the regular file at `path`, or nil.
    static func size(_ path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(info.st_size)
    }

    /// Whether a download goes to `path` directly: an existing character device (`/dev/null`),
    /// which has no partial file to keep and must not be replaced by one.
    static func isCharacterDevice(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFCHR
    }

    /// `path` absolute, without `.` or `..` and without links in the part that exists, so
    /// `./a.yaml`, `a.yaml` and a link to it read the same, whether the file exists yet or not.
    public static func canonicalPath(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }

    /// Whether two paths name one file: the same existing file through links, or the same path
    /// once `.`, `..` and links are resolved (for a file that does not exist yet).
    public static func namesSameFile(_ first: String, _ second: String) -> Bool {
        isSameFile(first, second) || canonicalPath(first) == canonicalPath(second)
    }

    /// Whether two paths name one existing file (the same device and inode, through links).
    public static func isSameFile(_ first: String, _ second: String) -> Bool {
        var one = stat(), other = stat()
        return stat(first, &one) == 0 && stat(second, &other) == 0 && one.st_dev == other.st_dev && one.st_ino == other.st_ino
    }

    /// Throws `localFile` unless a download can be written to `path`: its directory exists, and
    /// `path` is absent, a regular file or a character device. A directory, a named pipe or a
    /// symbolic link is refused, never replaced.
    static func checkWritableDestination(_ path: String) throws(RequestError) {
        if path.isEmpty || path.hasSuffix("/"), let problem = fileNameProblem(path) {
            throw RequestError(.localFile, "download destination \(path): \(problem)", code: 23)
        }
        var info = stat()
        if lstat(path, &info) == 0 {
            switch info.st_mode & S_IFMT {
            case S_IFREG:
                break
            case S_IFCHR:
                // Written in place: nothing is created in its directory.
                return
            case S_IFDIR:
                throw RequestError(.localFile, "download destination \(path) is a directory", code: 23)
            case S_IFLNK:
                throw RequestError(.localFile, "download destination \(path) is a symbolic link; give the path of the file itself", code: 23)
            default:
                throw RequestError(.localFile, "download destination \(path) is not a regular file (a pipe or a socket)", code: 23)
            }
        }
        if let problem = parentProblem(path) {
            throw RequestError(.localFile, "download destination \(path): \(problem)", code: 23)
        }
    }
}
