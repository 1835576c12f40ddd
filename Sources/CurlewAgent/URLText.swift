/// The few cuts the agent makes in URL text without parsing it whole: whether it starts with a
/// scheme, where the authority ends, and where a query goes in front of the fragment.
public enum URLText {
    /// True for text that starts with a scheme and "://" (a full URL, not a path to put after a
    /// base URL); whether its host is valid is checked later.
    public static func startsWithScheme(_ text: String) -> Bool {
        var length = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
                length += 1
            case UInt8(ascii: ":"):
                return length > 0 && text.utf8.dropFirst(length).starts(with: "://".utf8)
            default:
                return false
            }
        }
        return false
    }

    /// What follows the scheme and authority: `/path?query#fragment`, or "" when nothing does.
    /// Text without `://` is taken as starting at its authority.
    static func afterAuthority(_ url: String) -> Substring {
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
