import CurlewTransport
import Foundation

/// Cookie jar files in the Netscape format curl and browsers' exporters use.
public enum CookieJarFile {
    /// Jar files larger than this are refused rather than read.
    static let maxBytes = 16 << 20

    /// The cookie lines of the jar at `path` (comments and blank lines left out, `#HttpOnly_`
    /// lines kept). Throws `localFile` for a missing, unreadable, oversized or non-regular file.
    public static func lines(at path: String) throws(RequestError) -> [String] {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            throw RequestError(.localFile, "cannot read cookie jar \(path): \(String(cString: strerror(errno)))", code: 26)
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw RequestError(.localFile, "cookie jar \(path) is not a regular file", code: 26)
        }
        guard info.st_size <= maxBytes else {
            throw RequestError(.localFile, "cookie jar \(path) is larger than \(maxBytes >> 20) MiB", code: 26)
        }
        guard let data = try? handle.readToEnd() ?? Data() else {
            throw RequestError(.localFile, "cannot read cookie jar \(path)", code: 26)
        }
        return String(decoding: data, as: UTF8.self).split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }).map(String.init).filter { line in
            !line.trimmingCharacters(in: .whitespaces).isEmpty && (!line.hasPrefix("#") || line.hasPrefix("#HttpOnly_"))
        }
    }

    /// Throws `localFile` unless the file at `path` is empty or reads as a cookie jar (a Netscape
    /// header line or a cookie line), so a jar about to be written back never replaces some other
    /// file given by mistake.
    public static func checkIsJar(_ path: String) throws(RequestError) {
        let cookieLines = try lines(at: path).filter { $0.contains("\t") || ASCII.hasPrefixIgnoringCase($0, "Set-Cookie:") }
        guard cookieLines.isEmpty else { return }
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        let start = String(decoding: (try? handle.read(upToCount: 256)) ?? Data(), as: UTF8.self)
        let header = start.hasPrefix("# Netscape HTTP Cookie File") || start.hasPrefix("# HTTP Cookie File")
        guard header || start.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw RequestError(.localFile, "\(path) is not a cookie jar (no Netscape header, no cookie line); it is left as it is", code: 26)
        }
    }

    /// Writes `cookies` to `path` atomically, readable by the owner only.
    public static func write(_ cookies: [Cookie], to path: String) throws(RequestError) {
        let text = "# Netscape HTTP Cookie File\n# Written by Curlew; cookie values are secrets.\n\n"
            + cookies.map { $0.netscapeLine + "\n" }.joined()
        do {
            try OwnerOnlyFile.write(Data(text.utf8), to: path)
        } catch {
            throw RequestError(.localFile, "cannot write cookie jar \(path): \(error.reason)", code: 23)
        }
    }
}
