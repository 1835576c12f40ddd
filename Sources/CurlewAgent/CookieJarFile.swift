import CurlewTransport
import Foundation

/// Cookie jar files in the Netscape format curl and browsers' exporters use.
public enum CookieJarFile {
    /// Jar files larger than this are refused rather than read.
    static let maxBytes = 16 << 20
    /// Jars with more cookies than this are refused, read or written: libcurl's cookie store takes
    /// each new cookie in time that grows with the number it holds, so 10,000 load in about 2 s
    /// and 200,000 would take many minutes.
    static let maxCookies = 10_000

    /// The cookie lines of the jar at `path` (comments and blank lines left out, `#HttpOnly_`
    /// lines kept). Throws `localFile` for a missing, unreadable, oversized or non-regular file,
    /// and for one of more than `maxCookies` cookies.
    public static func lines(at path: String) throws(RequestError) -> [String] {
        try lines(of: try text(at: path), at: path)
    }

    /// The cookie lines of the jar at `path`, read once, after checking it reads as a jar
    /// (see `check`): what a jar about to be written back is loaded from.
    public static func checkedLines(at path: String) throws(RequestError) -> [String] {
        let text = try text(at: path)
        try check(text, at: path)
        return try lines(of: text, at: path)
    }

    private static func lines(of text: String, at path: String) throws(RequestError) -> [String] {
        let lines = nonBlankLines(of: text).filter { !isComment($0) }
        let cookies = lines.count(where: Cookie.isJarInput)
        guard cookies <= maxCookies else {
            throw RequestError(.localFile, "cookie jar \(path) has \(cookies) cookies, more than the \(maxCookies) Curlew reads", code: 26)
        }
        return lines
    }

    /// Throws `localFile` unless `text`, the file at `path`, is empty or reads as a cookie jar: a
    /// Netscape header, or cookie lines (and comments) only. A jar about to be written back must
    /// never replace some other file given by mistake (a table with tabs in it, a Makefile).
    private static func check(_ text: String, at path: String) throws(RequestError) {
        let start = text.prefix(32).lowercased()
        if start.hasPrefix("# netscape http cookie file") || start.hasPrefix("# http cookie file") { return }
        let lines = nonBlankLines(of: text)
        guard !lines.isEmpty else { return }
        guard lines.contains(where: isCookieLine), lines.allSatisfy({ isComment($0) || isCookieLine($0) }) else {
            throw RequestError(.localFile, "\(path) is not a cookie jar (no Netscape header, and not only cookie lines); it is left as it is", code: 26)
        }
    }

    /// A Netscape cookie line (domain, subdomains, path, secure, expiry, name, value; `#HttpOnly_`
    /// before the domain for an HTTP-only cookie) or a `Set-Cookie:` header line.
    static func isCookieLine(_ line: String) -> Bool {
        if ASCII.hasPrefixIgnoringCase(line, "Set-Cookie:") { return true }
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
        guard fields.count == 7 else { return false }
        let flag = { (field: Substring) in field.uppercased() == "TRUE" || field.uppercased() == "FALSE" }
        // A session cookie's expiry is 0, or empty in some writers' jars.
        return flag(fields[1]) && flag(fields[3]) && (fields[4].isEmpty || Int64(fields[4]) != nil)
    }

    private static func isComment(_ line: String) -> Bool {
        line.hasPrefix("#") && !line.hasPrefix("#HttpOnly_")
    }

    private static func nonBlankLines(of text: String) -> [String] {
        text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }).map(String.init).filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
    }

    /// The text of the file at `path`, which must be a regular file of at most `maxBytes`.
    private static func text(at path: String) throws(RequestError) -> String {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            // A jar is written back in place, so one behind a symbolic link is not followed.
            let failure = errno
            var info = stat()
            let isLink = failure == ELOOP && lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
            let reason = isLink ? "it is a symbolic link; give the file it points to" : String(cString: strerror(failure))
            throw RequestError(.localFile, "cannot read cookie jar \(path): \(reason)", code: 26)
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
        let text = String(decoding: data, as: UTF8.self)
        return text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text
    }

    /// Checks that a jar can be written at `path`: it names a file, not a directory, and its
    /// directory is there and writable (a jar is written anew next to the old one and renamed over it).
    public static func checkWritable(_ path: String) throws(RequestError) {
        if let reason = LocalFile.writeProblem(path) {
            throw RequestError(.localFile, "cannot write cookie jar \(path): \(reason)", code: 23)
        }
    }

    /// Throws unless what is at `path` may be replaced by a jar: nothing, or a regular file that
    /// reads as one. A file removed meanwhile counts as nothing.
    private static func checkReplaceable(_ path: String) throws(RequestError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        let reason: String
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            do {
                try check(try text(at: path), at: path)
                return
            } catch {
                guard lstat(path, &info) == 0 else { return }
                reason = error.message
            }
        case S_IFLNK: reason = "it is a symbolic link; give the file it points to"
        case S_IFDIR: reason = "it is a directory; give the path of a file"
        default: reason = "it is not a regular file"
        }
        throw RequestError(.localFile, "cannot write cookie jar \(path): \(reason)", code: 23)
    }

    /// Writes `cookies` to `path` atomically, readable by the owner only. What is at `path` is
    /// replaced only when it reads as a jar: an agent passes over a file that is not one when it
    /// starts, and saving must not then write over it (a notes file given as the jar by mistake).
    public static func write(_ cookies: [Cookie], to path: String) throws(RequestError) {
        try checkReplaceable(path)
        // Never a jar that would be refused when read back.
        guard cookies.count <= maxCookies else {
            throw RequestError(.localFile, "cannot write cookie jar \(path): \(cookies.count) cookies, more than the \(maxCookies) Curlew reads back", code: 23)
        }
        let text = "# Netscape HTTP Cookie File\n# Written by Curlew; cookie values are secrets.\n\n"
            + cookies.map { $0.netscapeLine + "\n" }.joined()
        do {
            try OwnerOnlyFile.write(Data(text.utf8), to: path)
        } catch {
            throw RequestError(.localFile, "cannot write cookie jar \(path): \(error.reason)", code: 23)
        }
    }
}
