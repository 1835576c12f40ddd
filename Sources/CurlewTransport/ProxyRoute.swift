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
        guard let parsed = curl_url() else { return .unusable }
        defer { curl_url_cleanup(parsed) }
        guard curl_url_set(parsed, CURLUPART_URL, proxy, UInt32(CURLU_NON_SUPPORT_SCHEME | CURLU_GUESS_SCHEME)) == CURLUE_OK else { return .unusable }
        func part(_ which: CURLUPart, _ flags: UInt32 = 0) -> String? {
            var value: UnsafeMutablePointer<CChar>?
            guard curl_url_get(parsed, which, &value, flags) == CURLUE_OK, let value else { return nil }
            defer { curl_free(value) }
            return String(cString: value)
        }
        guard let scheme = part(CURLUPART_SCHEME)?.lowercased(), Self.schemes.contains(scheme),
              var host = part(CURLUPART_HOST, UInt32(CURLU_URLDECODE)), !host.isEmpty else { return .unusable }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let port: Int
        if let written = part(CURLUPART_PORT) {
            guard let number = Int(written), (1...65535).contains(number) else { return .unusable }
            port = number
        } else {
            port = scheme == "https" ? 443 : 1080
        }
        return .proxy(host: host, port: port)
    }

    /// The proxy schemes libcurl 7.88 takes; any other fails every exchange ("Unsupported proxy scheme").
    private static let schemes: Set<String> = ["http", "https", "socks4", "socks4a", "socks5", "socks5h", "socks"]
}
