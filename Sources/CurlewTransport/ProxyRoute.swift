import CCurl

/// Where an exchange with a URL connects first: the server itself, or the proxy that carries it.
public enum ProxyRoute: Sendable, Equatable {
    /// Straight to the URL's host.
    case direct
    /// To the proxy at `host` and `port` (libcurl's default when the setting names none: 443 for
    /// an https proxy, 1080 for any other).
    case proxy(host: String, port: Int)
    /// A proxy is set for the URL but names no host or port libcurl could connect to.
    case unusable

    /// The route to `proxy`, a proxy setting as libcurl is given it (`ProxyUserInfo`), read as
    /// libcurl 7.88 reads one: its URL parser with a scheme guessed when none is written, then
    /// only http, https and the socks schemes taken; the port written, else 443 for an https
    /// proxy and 1080 for any other.
    static func to(_ proxy: String) -> ProxyRoute {
        LibcurlURL.reading(proxy, flags: UInt32(CURLU_NON_SUPPORT_SCHEME | CURLU_GUESS_SCHEME)) { part -> ProxyRoute? in
            guard let scheme = part(CURLUPART_SCHEME, 0)?.lowercased(), schemes.contains(scheme),
                  let host = part(CURLUPART_HOST, UInt32(CURLU_URLDECODE)), !host.isEmpty else { return nil }
            let port = part(CURLUPART_PORT, 0).map { Int($0) ?? 0 } ?? (scheme == "https" ? 443 : 1080)
            guard (1...65535).contains(port) else { return nil }
            return .proxy(host: LibcurlURL.unbracketed(host), port: port)
        } ?? .unusable
    }

    /// The proxy schemes libcurl 7.88 takes; any other fails every exchange ("Unsupported proxy scheme").
    private static let schemes: Set<String> = ["http", "https", "socks4", "socks4a", "socks5", "socks5h", "socks"]
}
