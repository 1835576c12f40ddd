import Foundation

/// The proxies the environment names, by libcurl's and curl's rules: `http_proxy` for http URLs,
/// `https_proxy` (or `HTTPS_PROXY`) for https ones, `all_proxy` (or `ALL_PROXY`) for either when
/// its own is not set, and `no_proxy` (or `NO_PROXY`) for the hosts reached directly. The
/// upper-case `HTTP_PROXY` is not read: a CGI program's environment carries a request's `Proxy`
/// header under that name. A variable set to nothing counts as not set, as libcurl reads it.
///
/// libcurl would look these variables up again for every exchange, half a dozen searches of the
/// environment each time; the engine reads them once, when it starts, and gives libcurl the result.
public struct ProxyEnvironment: Sendable, Equatable, CustomStringConvertible {
    /// The proxy for http URLs, as libcurl is given it (`ProxyUserInfo`); empty for none.
    public let http: String
    /// The proxy for https URLs, as libcurl is given it (`ProxyUserInfo`); empty for none.
    public let https: String
    /// The hosts, domains and addresses reached without a proxy, as `no_proxy` lists them
    /// (libcurl matches them); empty for none.
    public let noProxy: String
    /// The proxies' passwords, the longest first (so that one never uncovers part of another).
    private let passwords: [ProxyPassword]

    /// The proxies `environment` names.
    public init(_ environment: [String: String]) {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let all = value("all_proxy") ?? value("ALL_PROXY") ?? ""
        self.init(http: value("http_proxy") ?? all, https: value("https_proxy") ?? value("HTTPS_PROXY") ?? all,
                  noProxy: value("no_proxy") ?? value("NO_PROXY") ?? "")
    }

    /// These proxies, as a program sets them (each empty for none); a user or password in them
    /// is kept with its delimiters percent-encoded (`ProxyUserInfo`).
    public init(http: String, https: String, noProxy: String) {
        self.http = ProxyUserInfo.encoded(http)
        self.https = ProxyUserInfo.encoded(https)
        self.noProxy = noProxy
        passwords = [self.http, self.https].compactMap { ProxyPassword(proxy: $0) }.sorted { $0.password.count > $1.password.count }
    }

    /// These proxies with `host` reached directly too (added to `noProxy`): for a server of the
    /// process's own on loopback, which no proxy can reach for it. `*` (every host, and only
    /// when it stands alone) is kept as it is.
    public func exempting(_ host: String) -> ProxyEnvironment {
        guard noProxy != "*" else { return self }
        return ProxyEnvironment(http: http, https: https, noProxy: noProxy.isEmpty ? host : noProxy + "," + host)
    }

    /// `text` with every proxy's password hidden where libcurl's messages repeat the proxy as
    /// it was written ("Unsupported proxy syntax in 'http://user:secret@…'"), also when the
    /// message is cut off inside it.
    public func hidingPasswords(in text: String) -> String {
        passwords.reduce(text) { text, password in password.hiding(in: text) }
    }

    /// The proxies, passwords hidden.
    public var description: String {
        "http_proxy \(hidingPasswords(in: http).debugDescription), https_proxy \(hidingPasswords(in: https).debugDescription), no_proxy \(noProxy.debugDescription)"
    }

    /// The proxies this process's environment names now.
    public static func ofProcess() -> ProxyEnvironment {
        ProxyEnvironment(ProcessInfo.processInfo.environment)
    }

    /// The proxy for `url` (an http or https URL); empty for none. Whether `noProxy` exempts the
    /// URL's host is libcurl's to decide.
    func proxy(for url: String) -> String {
        ASCII.isHTTPS(url) ? https : http
    }

    /// Where an exchange with `url` connects first: its proxy when one may carry it
    /// (`mayUseProxy`), else straight to its host.
    public func route(for url: String) -> ProxyRoute {
        mayUseProxy(for: url) ? .to(proxy(for: url)) : .direct
    }

    /// Whether an exchange with `url` may go through a proxy: one is set for its scheme and
    /// `noProxy` does not exempt its host, as libcurl 7.88 reads the list (`*` alone for every
    /// host; for a name, entries with or without a leading dot matching it or a domain it is in,
    /// in any case; for an address, an entry that is the same address, brackets and dots not
    /// taken off). An entry libcurl would read as an address range (`10.0.0.0/8`) is not matched
    /// here, so the answer is yes whenever it may be.
    public func mayUseProxy(for url: String) -> Bool {
        guard !proxy(for: url).isEmpty else { return false }
        guard noProxy != "*" else { return false }
        guard let host = LibcurlURL.endpoint(of: url)?.host else { return true }
        var address = in_addr()
        let isAddress = host.contains(":") || inet_pton(AF_INET, host, &address) == 1
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
