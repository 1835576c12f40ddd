/// A proxy's password as its setting writes it, found and hidden in libcurl's messages, which
/// repeat a proxy they cannot use as written ("Unsupported proxy syntax in 'http://user:…'").
struct ProxyPassword: Sendable, Equatable {
    /// The setting up to the password: `http://user:`, or `user:` without a scheme.
    let lead: String
    let password: String

    /// The password of `proxy`: after any scheme (letters, digits, `+.-`, then `://`), from the
    /// first `:` to the last `@` (a password may hold `/`, `#`, `@` or `://` unescaped); nil
    /// when it has none.
    init?(proxy: String) {
        var start = proxy.startIndex
        if let separator = proxy.range(of: "://") {
            let scheme = proxy.utf8[..<separator.lowerBound]
            let isScheme = !scheme.isEmpty && scheme.enumerated().allSatisfy { ASCII.isSchemeByte($1, first: $0 == 0) }
            if isScheme { start = separator.upperBound }
        }
        let rest = proxy[start...]
        guard let at = rest.lastIndex(of: "@"), let colon = rest[..<at].firstIndex(of: ":") else { return nil }
        let first = rest.index(after: colon)
        guard first < at else { return nil }
        lead = String(proxy[..<first])
        password = String(rest[first..<at])
    }

    /// `text` with the password hidden wherever the lead is followed by it, whole and then `@`,
    /// or cut short by the end of the text (libcurl's messages stop at 255 bytes).
    func hiding(in text: String) -> String {
        var output = ""
        var rest = text[...]
        while let found = rest.range(of: lead) {
            output += rest[..<found.upperBound]
            let after = rest[found.upperBound...]
            let common = zip(after, password).prefix { $0 == $1 }.count
            let end = after.index(after.startIndex, offsetBy: common)
            let whole = common == password.count && after[end...].first == "@"
            let cut = common > 0 && end == after.endIndex
            if whole || cut {
                output += HiddenText.marker
                rest = after[end...]
            } else {
                rest = after
            }
        }
        return output + rest
    }
}
