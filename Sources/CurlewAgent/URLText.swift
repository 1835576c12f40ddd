/// The few cuts the agent makes in URL text without parsing it whole: where the authority ends,
/// and where a query goes in front of the fragment.
enum URLText {
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
