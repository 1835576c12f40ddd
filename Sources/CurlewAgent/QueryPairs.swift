/// `name=value` pairs as Curlew reads them wherever it decides which values are secret (the
/// cache key, a refusal's URL, what an import or a save moves to the secrets file), the same
/// way redaction's byte-level walk reads them: pairs are split at `&`; a pair whose value is
/// kept ends at a `;` too, which some servers read as `&` (`page=1;token=…`), while a value
/// that is replaced runs on to the `&` (`token=ab;cd`), so that no part of a secret stays
/// whichever way a server splits the pairs.
public enum QueryPairs {
    /// `pairs` with each value `replacement` gives one for (called with the pair's name and its
    /// value, both as written) replaced, and the rest written as `kept` writes it.
    public static func mapping(_ pairs: Substring, kept: (Substring) -> String = { String($0) },
                               _ replacement: (_ name: Substring, _ value: Substring) -> String?) -> String {
        pairs.split(separator: "&", omittingEmptySubsequences: false).map { pair in
            mapping(pair: pair, kept: kept, replacement)
        }.joined(separator: "&")
    }

    /// One `&`-separated pair, read on past each `;` that ends a name or a kept value.
    private static func mapping(pair: Substring, kept: (Substring) -> String, _ replacement: (Substring, Substring) -> String?) -> String {
        var output = ""
        var start = pair.startIndex
        while true {
            let rest = pair[start...]
            guard let mark = rest.firstIndex(where: { $0 == "=" || $0 == ";" }) else { return output + kept(rest) }
            var end = mark
            if rest[mark] == "=" {
                let value = rest[rest.index(after: mark)...]
                if let replaced = replacement(rest[..<mark], value) { return output + kept(rest[...mark]) + replaced }
                guard let semicolon = value.firstIndex(of: ";") else { return output + kept(rest) }
                end = semicolon
            }
            output += kept(rest[..<end]) + ";"
            start = rest.index(after: end)
        }
    }
}
