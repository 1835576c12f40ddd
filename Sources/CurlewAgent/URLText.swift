import CurlewTransport

/// The few cuts the agent makes in URL text without parsing it whole: whether it starts with a
/// scheme, where the authority ends, and where a query goes in front of the fragment.
public enum URLText {
    /// A space, tab or other control character: what a URL cannot hold as it is.
    public static func cannotHold(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value <= 0x20 || scalar.value == 0x7F
    }

    /// Refuses a URL holding what `cannotHold` names, as the agent refuses to send it: the
    /// character, where it is, and how to write it (an importer's check, so that no workspace is
    /// written with a URL no run could send).
    public static func checkCharacters(_ url: String) throws(RequestError) {
        try RequestComposer.checkCharacters(url)
    }

    /// Refuses a URL whose IPv6 address is never closed or whose port is not a number from 1 to
    /// 65535, as the agent refuses to send it (an importer's check, as `checkCharacters`).
    public static func checkAddress(_ url: String) throws(RequestError) {
        try RequestComposer.checkAddress(url)
    }

    /// Whether typed text is a path (`/get`), not a URL without its scheme (`//host/get`). By
    /// bytes: a slash with a combining mark after it is one Character, which `hasPrefix("/")`
    /// would not see.
    public static func isPath(_ text: String) -> Bool {
        text.utf8.first == UInt8(ascii: "/") && !text.utf8.starts(with: "//".utf8)
    }

    /// True for text that starts with a scheme and "://" (a full URL, not a path to put after a
    /// base URL); whether its host is valid is checked later.
    public static func startsWithScheme(_ text: String) -> Bool {
        text.withUTF8Bytes { bytes in
            for (length, byte) in bytes.enumerated() {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                     UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
                    continue
                case UInt8(ascii: ":"):
                    return length > 0 && bytes.count >= length + 3 && bytes[length + 1] == UInt8(ascii: "/") && bytes[length + 2] == UInt8(ascii: "/")
                default:
                    return false
                }
            }
            return false
        }
    }

    /// A URL as a person types it, read as curl and HTTPie read it: text without a scheme is plain
    /// HTTP (`example.com/get`, `//example.com/get`), and `:8080/get` is that port on localhost.
    /// A path (`/get`, for a base URL), text that starts with a template (`{{base}}/get`) and
    /// empty text are left as they are. Beside a base URL (`besideBase`), where `users/1` and
    /// `?page=2` are relative to it, only text that starts with what can only be a host is a
    /// URL: `localhost`, an IP address, `[::1]`, or `name:port`.
    public static func typed(_ text: String, besideBase: Bool = false) -> String {
        if text.isEmpty || startsWithScheme(text) || text.hasPrefix("{{") || isPath(text) { return text }
        if text.utf8.starts(with: "//".utf8) { return "http:" + text }
        if text.hasPrefix(":") { return isPortShorthand(text) ? "http://localhost" + text : text }
        if besideBase {
            let host = text.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            let parts = host.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            let name = parts[0]
            let isAddress = name.split(separator: ".", omittingEmptySubsequences: false).count == 4 && name.allSatisfy { $0 == "." || $0.isASCII && $0.isNumber }
            let hasPort = parts.count == 2 && !parts[1].isEmpty && parts[1].allSatisfy { $0.isASCII && $0.isNumber }
            guard name.lowercased() == "localhost" || isAddress || host.hasPrefix("[") || hasPort else { return text }
        }
        return "http://" + text
    }

    /// Why typed text is not the URL it looks like, or nil: a scheme with one slash (`http:/x`),
    /// which `typed` would otherwise send to a host named `http`, or a colon that starts no port
    /// (`://host/x`, `:/x`), which would go to localhost.
    public static func typingMistake(_ text: String) -> String? {
        let lowered = text.lowercased()
        if !startsWithScheme(text), lowered.hasPrefix("http:") || lowered.hasPrefix("https:") {
            return "the scheme takes two slashes, e.g. http://localhost:8080/get"
        }
        if text.hasPrefix(":"), !isPortShorthand(text) {
            return "a URL does not start with \(text.prefix(3)): give the scheme and host, e.g. http://localhost:8080/get, or :8080/get for a port on localhost"
        }
        if let scheme = otherScheme(text) {
            return "\(scheme): reads as a scheme, and Curlew sends http:// and https:// URLs (beside a base URL, a path whose first segment holds a colon is written with ./ before it)"
        }
        return nil
    }

    /// The scheme of text that starts as a URL of another scheme does, without `//`
    /// (`javascript:alert(1)`, `file:/etc/passwd`): letters, digits, `+` and `-` before a colon:
    /// one of `otherSchemes`, or one that starts no port (`localhost:8080` and `localhost:/get`
    /// are a host and its port, empty or not) and no user and password (`user:pw@host`). Nil
    /// otherwise.
    private static func otherScheme(_ text: String) -> Substring? {
        guard !startsWithScheme(text), let colon = text.firstIndex(of: ":") else { return nil }
        let scheme = text[..<colon]
        func isLetter(_ scalar: Unicode.Scalar) -> Bool { ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) }
        guard let first = scheme.unicodeScalars.first, isLetter(first),
              scheme.unicodeScalars.allSatisfy({ isLetter($0) || ("0"..."9").contains($0) || $0 == "+" || $0 == "-" }) else { return nil }
        // A scheme no host is named (`file:/etc/passwd`, `javascript:/x`), whatever follows it.
        if otherSchemes.contains(scheme.lowercased()) { return scheme }
        // A user and password, one holding `#`, `?` or `/` too (`user:pa/ss@host`): not a scheme.
        guard !text[colon...].contains("@") else { return nil }
        let port = text[text.index(after: colon)...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        return port.allSatisfy({ $0.isASCII && $0.isNumber }) ? nil : scheme
    }

    /// Schemes of URLs Curlew does not send, read as such even before an empty port's slash.
    private static let otherSchemes: Set<String> = [
        "file", "ftp", "ftps", "sftp", "scp", "javascript", "vbscript", "data", "mailto", "tel", "ws", "wss", "gopher",
        "ldap", "ldaps", "smb", "telnet", "dict", "tftp", "imap", "imaps", "pop3", "smtp", "rtsp", "blob", "about", "chrome",
    ]

    /// `:8080`, `:8080/get`: a port on localhost, as HTTPie writes it.
    private static func isPortShorthand(_ text: String) -> Bool {
        let port = text.dropFirst().prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        return !port.isEmpty && port.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// What follows the scheme and authority: `/path?query#fragment`, or "" when nothing does.
    /// Text without `://` is taken as starting at its authority.
    public static func afterAuthority(_ url: String) -> Substring {
        var rest = Substring(url)
        if let schemeEnd = rest.range(of: "://") { rest = rest[schemeEnd.upperBound...] }
        return rest[(rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex)...]
    }

    /// `url` with `query` (already encoded) added to its query string, in front of any fragment.
    static func appendingQuery(_ query: String, to url: String) -> String {
        let hash = url.firstIndex(of: "#") ?? url.endIndex
        let beforeFragment = url[..<hash]
        return beforeFragment + (beforeFragment.contains("?") ? "&" : "?") + query + url[hash...]
    }
}
