import Foundation

/// The proxies the environment names, by libcurl's and curl's rules: `http_proxy` for http URLs,
/// `https_proxy` (or `HTTPS_PROXY`) for https ones, `all_proxy` (or `ALL_PROXY`) for either when
/// its own is not set, and `no_proxy` (or `NO_PROXY`) for the hosts reached directly. The
/// upper-case `HTTP_PROXY` is not read: a CGI program's environment carries a request's `Proxy`
/// header under that name. A variable set to nothing counts as not set, as libcurl reads it.
///
/// libcurl would look these variables up again for every exchange, half a dozen searches of the
/// environment each time; the engine reads them once, when it starts, and gives libcurl the result.
public struct ProxyEnvironment: Sendable, Equatable {
    public static func == (lhs: ProxyEnvironment, rhs: ProxyEnvironment) -> Bool {
        (lhs.http, lhs.https, lhs.noProxy) == (rhs.http, rhs.https, rhs.noProxy)
    }

    /// The proxy for http URLs; empty for none.
    public let http: String
    /// The proxy for https URLs; empty for none.
    public let https: String
    /// The hosts, domains and addresses reached without a proxy, as `no_proxy` lists them
    /// (libcurl matches them); empty for none.
    public let noProxy: String
    /// The user information of each proxy with a password, as written (`user:secret`), and as it
    /// is shown (`user:[REDACTED]`).
    private let credentials: [(written: String, shown: String)]

    /// The proxies `environment` names.
    public init(_ environment: [String: String]) {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let all = value("all_proxy") ?? value("ALL_PROXY") ?? ""
        self.init(http: value("http_proxy") ?? all, https: value("https_proxy") ?? value("HTTPS_PROXY") ?? all,
                  noProxy: value("no_proxy") ?? value("NO_PROXY") ?? "")
    }

    private init(http: String, https: String, noProxy: String) {
        self.http = http
        self.https = https
        self.noProxy = noProxy
        credentials = Set([http, https]).compactMap(Self.credentials(of:))
    }

    /// These proxies with `host` reached directly too (added to `noProxy`): for a server of the
    /// process's own on loopback, which no proxy can reach for it.
    public func exempting(_ host: String) -> ProxyEnvironment {
        ProxyEnvironment(http: http, https: https, noProxy: noProxy.isEmpty ? host : noProxy + "," + host)
    }

    /// `text` with every proxy's password hidden where libcurl's messages repeat the proxy as
    /// it was written ("Unsupported proxy syntax in 'http://user:secret@…'"), whether or not it
    /// reads as a URL.
    public func hidingPasswords(in text: String) -> String {
        credentials.reduce(text) { text, credential in text.replacingOccurrences(of: credential.written, with: credential.shown) }
    }

    /// The user information of `proxy` when it has a password: what comes before its last `@`,
    /// after any scheme, from the first `:` on (a password may hold `/`, `#` or `@` unescaped).
    private static func credentials(of proxy: String) -> (written: String, shown: String)? {
        var rest = Substring(proxy)
        if let scheme = rest.range(of: "://") { rest = rest[scheme.upperBound...] }
        guard let at = rest.lastIndex(of: "@"), let colon = rest[..<at].firstIndex(of: ":"), rest.index(after: colon) < at else { return nil }
        let user = rest[..<colon]
        return (String(rest[..<at]), user + ":" + HiddenText.marker)
    }

    /// The proxies this process's environment names now.
    public static func ofProcess() -> ProxyEnvironment {
        ProxyEnvironment(ProcessInfo.processInfo.environment)
    }

    /// The proxy for `url` (an http or https URL); empty for none. Whether `noProxy` exempts the
    /// URL's host is libcurl's to decide.
    func proxy(for url: String) -> String {
        ASCII.hasPrefixIgnoringCase(url, "https:") ? https : http
    }

    /// Whether an exchange with `url` may go through a proxy: one is set for its scheme and
    /// `noProxy` does not exempt its host, as libcurl 7.88 reads the list (`*` alone for every
    /// host; for a name, entries with or without a leading dot matching it or a domain it is in,
    /// in any case; for an address, an entry that is the same address, brackets and dots not
    /// taken off). An entry libcurl would read as an address range (`10.0.0.0/8`) is not matched
    /// here, so the answer is yes whenever it may be.
    public func mayUseProxy(for url: String) -> Bool {
        guard !proxy(for: url).isEmpty else { return false }
        guard noProxy.trimmingCharacters(in: .whitespaces) != "*" else { return false }
        guard var host = URLComponents(string: url)?.host?.lowercased(), !host.isEmpty else { return true }
        var isAddress = false
        if host.hasPrefix("["), host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
            isAddress = true
        } else {
            var address = in_addr()
            isAddress = host.contains(":") || inet_pton(AF_INET, host, &address) == 1
        }
        for entry in noProxy.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }) {
            var name = entry.lowercased()
            if isAddress {
                if host == name { return false }
                continue
            }
            if name.hasPrefix(".") { name.removeFirst() }
            guard !name.isEmpty else { continue }
            if host == name || host.hasSuffix("." + name) { return false }
        }
        return true
    }
}
