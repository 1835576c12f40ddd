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
    /// The proxy for http URLs; empty for none.
    public let http: String
    /// The proxy for https URLs; empty for none.
    public let https: String
    /// The hosts, domains and addresses reached without a proxy, as `no_proxy` lists them
    /// (libcurl matches them); empty for none.
    public let noProxy: String

    /// The proxies `environment` names.
    public init(_ environment: [String: String]) {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let all = value("all_proxy") ?? value("ALL_PROXY") ?? ""
        http = value("http_proxy") ?? all
        https = value("https_proxy") ?? value("HTTPS_PROXY") ?? all
        noProxy = value("no_proxy") ?? value("NO_PROXY") ?? ""
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
    /// `noProxy` does not exempt its host, as libcurl reads the list (`*` alone for every host;
    /// names, with or without a leading dot, matching the host or a domain it is in, in any case;
    /// addresses as written). An entry libcurl would read as an address range (`10.0.0.0/8`) is
    /// not matched here, so the answer is yes whenever it may be.
    public func mayUseProxy(for url: String) -> Bool {
        guard !proxy(for: url).isEmpty else { return false }
        guard noProxy.trimmingCharacters(in: .whitespaces) != "*" else { return false }
        guard var host = URLComponents(string: url)?.host?.lowercased(), !host.isEmpty else { return true }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        for entry in noProxy.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }) {
            var name = entry.lowercased()
            if name.hasPrefix(".") { name.removeFirst() }
            if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
            guard !name.isEmpty else { continue }
            if host == name || host.hasSuffix("." + name) { return false }
        }
        return true
    }
}
