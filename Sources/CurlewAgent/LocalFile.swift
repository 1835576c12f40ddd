import Foundation

/// Checks on the local files a request names, made before anything is sent so a typo fails with
/// the file's name instead of a half-sent request.
enum LocalFile {
    /// Throws `localFile` unless `path` is a regular file this process can read.
    static func checkReadable(_ path: String, purpose: String) throws(RequestError) {
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

    /// Throws `localFile` unless a download can be written to `path`: its directory exists and
    /// `path` is not a directory.
    static func checkWritableDestination(_ path: String) throws(RequestError) {
        var info = stat()
        if lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            throw RequestError(.localFile, "download destination \(path) is a directory", code: 23)
        }
        let directory = (path as NSString).deletingLastPathComponent
        let parent = directory.isEmpty ? "." : directory
        guard stat(parent, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR, access(parent, W_OK) == 0 else {
            throw RequestError(.localFile, "download destination \(path): cannot write in \(parent)", code: 23)
        }
    }
}
