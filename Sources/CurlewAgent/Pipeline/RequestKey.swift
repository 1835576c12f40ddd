import CurlewTransport
import Foundation

/// The identity of a request, for the cache and for duplicate detection: method, the URL as
/// composed with its query parameters sorted (and volatile ones dropped), the chosen headers, the
/// credentials it carries, and the body. Header values, credentials and the body appear in the
/// key only as SHA-256 digests, so a key written to disk holds no secret, and no request can be
/// made to share another's key. (A weak credential could still be found from its digest by
/// trying candidates, one reason the cache directory is owner-only.) `text` is the whole key
/// (compared in full, so a digest collision of the name reads as a different request); `digest`
/// names it.
struct RequestKey: Sendable, Equatable {
    let text: String
    let digest: String

    /// - Parameters:
    ///   - url: the URL as sent, password included (only its digest enters the key).
    ///   - credentialHeaders: headers that identify the user (Authorization, Cookie, API keys):
    ///     requests made with different credentials never share a key.
    init(method: String, url: String, headers: [HeaderField], body: Data?, keyHeaders: [String], credentialHeaders: [String],
         isVolatileParam: (String) -> Bool) {
        let (userinfo, plainURL) = Self.splittingUserinfo(url)
        let canonical = Self.canonicalURL(plainURL, isVolatileParam: isVolatileParam)
        // A URL that repeats its password (`/basic-auth/user/PASS`), or a `Basic` one its headers
        // carry, enters the key as a digest, like the credentials; no URL of a request has the
        // form "digest …".
        let repeats = Self.repeatsPassword(of: userinfo, in: canonical) || RedactionPolicy.hidingPasswords(in: canonical, sentWith: headers) != canonical
        var text = method.uppercased() + " " + (repeats ? "digest " + SHA256Digest.hex(of: Data(canonical.utf8)) : canonical)
        for name in keyHeaders.sorted() {
            let values = Self.values(of: name, in: headers)
            if !values.isEmpty { text += "\n" + name.lowercased() + ": " + SHA256Digest.hex(of: Data(values.joined(separator: ", ").utf8)) }
        }
        var credentials = userinfo.map { ["userinfo=" + $0] } ?? []
        for name in credentialHeaders.map({ $0.lowercased() }).sorted() where !keyHeaders.contains(where: { $0.lowercased() == name }) {
            let values = Self.values(of: name, in: headers)
            if !values.isEmpty { credentials.append(name + "=" + values.joined(separator: ", ")) }
        }
        if !credentials.isEmpty { text += "\ncredentials " + SHA256Digest.hex(of: Data(credentials.joined(separator: "\n").utf8)) }
        if let body, !body.isEmpty { text += "\nbody " + String(body.count) + " " + SHA256Digest.hex(of: body) }
        self.text = text
        self.digest = SHA256Digest.hex(of: Data(text.utf8))
    }

    private static func values(of name: String, in headers: [HeaderField]) -> [String] {
        headers.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
    }

    /// Whether `url` holds the password of `userinfo` (`user:password`), when it is long enough to
    /// be looked for as a credential is: as the user info writes it, or as it decodes, with any
    /// of its bytes percent-encoded (`PercentDecodedView.occurrences`).
    private static func repeatsPassword(of userinfo: String?, in url: String) -> Bool {
        guard let userinfo, let colon = userinfo.firstIndex(of: ":") else { return false }
        let written = Array(userinfo[userinfo.index(after: colon)...].utf8)
        let decoded = PercentDecodedView(written)?.bytes ?? written
        let searched = [written, decoded].filter { $0.count >= RedactionPolicy.minimumHiddenCredential }
        return !searched.isEmpty && !PercentDecodedView.occurrences(of: searched, in: Array(url.utf8)).isEmpty
    }

    /// The `user:password` of a URL, and the URL without it.
    static func splittingUserinfo(_ url: String) -> (userinfo: String?, url: String) {
        guard let schemeEnd = url.range(of: "://") else { return (nil, url) }
        let authorityEnd = URLText.afterAuthority(url).startIndex
        guard let at = url[schemeEnd.upperBound..<authorityEnd].lastIndex(of: "@") else { return (nil, url) }
        return (String(url[schemeEnd.upperBound..<at]), String(url[..<schemeEnd.upperBound]) + String(url[url.index(after: at)...]))
    }

    /// The URL without its fragment, with `name=value` pairs of the query sorted and volatile
    /// names removed, so `?b=2&a=1&ts=9` and `?a=1&b=2` share an entry. Sorted by bytes, not by
    /// Unicode's canonical order, which calls different bytes equal and would keep their order.
    static func canonicalURL(_ url: String, isVolatileParam: (String) -> Bool) -> String {
        // Split by bytes, not Characters: a combining mark after `&` joins it into one Character.
        let bytes = Array(url.utf8)
        let end = bytes.firstIndex(of: UInt8(ascii: "#")) ?? bytes.endIndex
        guard let question = bytes[..<end].firstIndex(of: UInt8(ascii: "?")) else { return String(decoding: bytes[..<end], as: UTF8.self) }
        let pairs = bytes[(question + 1)..<end].split(separator: UInt8(ascii: "&")).filter { pair in
            let name = String(decoding: pair.prefix { $0 != UInt8(ascii: "=") }, as: UTF8.self)
            return !isVolatileParam(name.removingPercentEncoding ?? name)
        }.sorted { $0.lexicographicallyPrecedes($1) }
        let base = String(decoding: bytes[..<question], as: UTF8.self)
        // A secret parameter's value enters the key as its digest, like a credential header's.
        let query = pairs.map { pair in
            hidingSecretValues(in: Substring(String(decoding: pair, as: UTF8.self))) { SHA256Digest.hex(of: Data($0.utf8)) }
        }
        return pairs.isEmpty ? base : base + "?" + query.joined(separator: "&")
    }

    /// `url` with the value of each secret query parameter (`RedactionPolicy.isSecretName` with
    /// the default names) replaced by `replacement` of it, for what a cache entry stores on disk;
    /// with `alsoInFragment`, the fragment's pairs too (`#access_token=…`), for what a refusal
    /// shows. A value runs to the next `&`, spaces and all; a pair starts after `;` too
    /// (`QueryPairs`).
    static func hidingSecretParameters(in url: String, alsoInFragment: Bool = false, by replacement: (Substring) -> String) -> String {
        let hash = url.firstIndex(of: "#") ?? url.endIndex
        var hidden = String(url[..<hash])
        if let question = url[..<hash].firstIndex(of: "?") {
            hidden = String(url[...question]) + hidingSecretValues(in: url[url.index(after: question)..<hash], by: replacement)
        }
        guard hash < url.endIndex else { return hidden }
        return hidden + (alsoInFragment ? "#" + hidingSecretValues(in: url[url.index(after: hash)...], by: replacement) : String(url[hash...]))
    }

    /// The redaction's defaults, whose rule for secret parameter names the key follows.
    private static let defaultRedaction = RedactionPolicy()

    /// `name=value` pairs (`QueryPairs`) with each value replaced whose name is a secret
    /// parameter's, or that a log would hide for what it holds (`a=1%20token=…`, encoded JSON
    /// with a secret member).
    private static func hidingSecretValues(in pairs: Substring, by replacement: (Substring) -> String) -> String {
        QueryPairs.mapping(pairs, isSecret: { defaultRedaction.isSecretName($0.removingPercentEncoding ?? String($0)) }) { name, value, secret in
            if secret { return replacement(value) }
            // Judged as a log's URL is: a value it would hide goes whole.
            let pair = "?" + name + "=" + value
            return value.isEmpty || defaultRedaction.redactingURL(pair) == pair ? nil : replacement(value)
        }
    }
}
