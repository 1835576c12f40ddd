/// Hides the password of a URL's `user:password@` part. Debug messages carry URLs with it hidden,
/// so no observer (log, interface, export) ever holds it; only the transport gets the real URL.
enum URLPassword {
    static let marker = "[REDACTED]"

    /// `url` with the password in its authority replaced by the marker; unchanged (and not copied)
    /// when it has none. Works on any text that holds a URL, such as a request line.
    static func masking(in url: String) -> String {
        guard let range = passwordRange(in: url) else { return url }
        return String(url[..<range.lowerBound]) + marker + String(url[range.upperBound...])
    }

    static func hasPassword(_ url: String) -> Bool {
        passwordRange(in: url) != nil
    }

    /// The password's range: after "scheme://user:" and before the "@" that ends the authority.
    private static func passwordRange(in url: String) -> Range<String.Index>? {
        let utf8 = url.utf8
        // JSON text writes the slashes escaped ("https:\/\/user:pass@host").
        guard utf8.contains(UInt8(ascii: "@")), let schemeEnd = url.range(of: "://") ?? url.range(of: ":\\/\\/") else { return nil }
        let authorityStart = schemeEnd.upperBound
        var index = authorityStart
        var colon: String.Index?
        var at: String.Index?
        while index < url.endIndex {
            let byte = url.utf8[index]
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
            if byte == UInt8(ascii: "@") { at = index }
            if byte == UInt8(ascii: ":"), colon == nil, at == nil { colon = index }
            index = url.utf8.index(after: index)
        }
        guard let at, let colon, colon < at else { return nil }
        let start = url.utf8.index(after: colon)
        guard url[start..<at] != Substring(marker) else { return nil }
        return start..<at
    }
}
