/// Hides the password of a URL's `user:password@` part. Debug messages carry URLs with it hidden,
/// so no observer (log, interface, export) ever holds it; only the transport gets the real URL.
enum URLPassword {
    static let marker = "[REDACTED]"

    /// `url` with the password in its authority replaced by the marker; unchanged (and not copied)
    /// when it has none. Works on any text that holds a URL, such as a request line.
    /// Every URL in the text is masked, also one inside another's query (`?next=https://u:p@h`).
    static func masking(in url: String) -> String {
        guard var range = passwordRange(in: url, from: url.startIndex) else { return url }
        var masked = url
        while true {
            let offset = masked.utf8.distance(from: masked.startIndex, to: range.lowerBound)
            masked.replaceSubrange(range, with: marker)
            let resume = masked.utf8.index(masked.startIndex, offsetBy: offset + marker.utf8.count)
            guard let next = passwordRange(in: masked, from: resume) else { return masked }
            range = next
        }
    }

    static func hasPassword(_ url: String) -> Bool {
        passwordRange(in: url, from: url.startIndex) != nil
    }

    /// The first password at or after `start`: after "scheme://user:" and before the "@" that
    /// ends the authority.
    private static func passwordRange(in url: String, from start: String.Index) -> Range<String.Index>? {
        guard url.utf8[start...].contains(UInt8(ascii: "@")) else { return nil }
        var searchFrom = start
        while let found = schemeSeparator(in: url, from: searchFrom) {
            if let range = passwordRange(in: url, authorityStart: found.upperBound) { return range }
            searchFrom = found.upperBound
        }
        return nil
    }

    /// "://", or ":\/\/" as JSON text writes it.
    private static func schemeSeparator(in url: String, from start: String.Index) -> Range<String.Index>? {
        let plain = url.range(of: "://", range: start..<url.endIndex)
        let escaped = url.range(of: ":\\/\\/", range: start..<url.endIndex)
        switch (plain, escaped) {
        case (let a?, let b?): return a.lowerBound < b.lowerBound ? a : b
        case (let a?, nil): return a
        case (nil, let b?): return b
        case (nil, nil): return nil
        }
    }

    private static func passwordRange(in url: String, authorityStart: String.Index) -> Range<String.Index>? {
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
