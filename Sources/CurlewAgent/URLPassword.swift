import CurlewTransport

/// Hides the password of a URL's `user:password@` part. Debug messages carry URLs with it hidden,
/// so no observer (log, interface, export) ever holds it; only the transport gets the real URL.
public enum URLPassword {
    static let marker = HiddenText.marker
    private static let markerBytes = Array(marker.utf8)

    /// `text` with the password of every URL in it replaced by the marker (also a URL inside
    /// another's query, or one written in JSON with escaped slashes); unchanged, and not copied,
    /// when it has none. One pass over the bytes, whatever the text holds.
    public static func masking(in text: String) -> String {
        guard ASCII.contains(UInt8(ascii: "@"), in: text) else { return text }
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        var copied = 0
        forEachPassword(in: bytes) { range in
            output += bytes[copied..<range.lowerBound]
            output += markerBytes
            copied = range.upperBound
        }
        guard copied > 0 else { return text }
        output += bytes[copied...]
        return String(decoding: output, as: UTF8.self)
    }

    static func hasPassword(_ text: String) -> Bool {
        guard ASCII.contains(UInt8(ascii: "@"), in: text) else { return false }
        var found = false
        forEachPassword(in: Array(text.utf8)) { _ in found = true }
        return found
    }

    /// Calls `body` with the byte range of each password, in order: after "scheme://user:" (or
    /// ":\/\/" as JSON writes it) and before the "@" that ends the authority.
    private static func forEachPassword(in bytes: [UInt8], _ body: (Range<Int>) -> Void) {
        var index = 0
        while index < bytes.count {
            let separator = separatorLength(bytes, at: index)
            guard separator > 0 else { index += 1; continue }
            let authorityStart = index + separator
            var end = authorityStart
            var colon: Int?
            var at: Int?
            while end < bytes.count {
                let byte = bytes[end]
                if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
                // A backslash ends the authority only as JSON's escape of a slash (`\/`): libcurl
                // reads any other as part of the user information, password included (found by a
                // new user's trial: `u:pa\ss@` went to the log in clear).
                if byte == UInt8(ascii: "\\"), end + 1 < bytes.count, bytes[end + 1] == UInt8(ascii: "/") { break }
                if byte == UInt8(ascii: "@") { at = end }
                if byte == UInt8(ascii: ":"), colon == nil, at == nil { colon = end }
                end += 1
            }
            if let at, let colon, colon < at, !bytes[(colon + 1)..<at].elementsEqual(markerBytes) {
                body((colon + 1)..<at)
            }
            index = end
        }
    }

    /// 3 for "://" at `index`, 5 for ":\/\/", else 0.
    private static func separatorLength(_ bytes: [UInt8], at index: Int) -> Int {
        guard bytes[index] == UInt8(ascii: ":") else { return 0 }
        if index + 2 < bytes.count, bytes[index + 1] == UInt8(ascii: "/"), bytes[index + 2] == UInt8(ascii: "/") { return 3 }
        if index + 4 < bytes.count, bytes[index + 1] == UInt8(ascii: "\\"), bytes[index + 2] == UInt8(ascii: "/"),
           bytes[index + 3] == UInt8(ascii: "\\"), bytes[index + 4] == UInt8(ascii: "/") { return 5 }
        return 0
    }
}
