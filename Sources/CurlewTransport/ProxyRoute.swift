/// Where an exchange with a URL connects first: the server itself, or the proxy that carries it.
public enum ProxyRoute: Sendable, Equatable {
    /// Straight to the URL's host.
    case direct
    /// To the proxy at `host` and `port` (libcurl's default when the setting names none: 443 for
    /// an https proxy, 1080 for any other).
    case proxy(host: String, port: Int)
    /// A proxy is set for the URL but names no host or port libcurl could connect to.
    case unusable

    /// The route to `proxy`, a proxy setting as libcurl is given it (`ProxyUserInfo`): its scheme,
    /// user information and any path are set aside, and what remains is a host (an IPv6 address
    /// in brackets) with maybe a port.
    static func to(_ proxy: String) -> ProxyRoute {
        let bytes = Array(proxy.utf8)
        let start = ProxyUserInfo.authorityStart(of: bytes)
        let scheme = start > 0 ? String(decoding: bytes[..<(start - 3)], as: UTF8.self).lowercased() : "http"
        var authority = bytes[start...]
        if let end = authority.firstIndex(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) {
            authority = authority[..<end]
        }
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) { authority = authority[(at + 1)...] }
        var host = authority
        var port: ArraySlice<UInt8>?
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else { return .unusable }
            host = authority[(authority.startIndex + 1)..<close]
            let rest = authority[(close + 1)...]
            if rest.first == UInt8(ascii: ":") { port = rest.dropFirst() } else if !rest.isEmpty { return .unusable }
        } else if let colon = authority.lastIndex(of: UInt8(ascii: ":")) {
            host = authority[..<colon]
            port = authority[(colon + 1)...]
        }
        guard !host.isEmpty, !host.contains(where: { $0 <= 0x20 }) else { return .unusable }
        let number: Int
        if let port {
            guard (1...5).contains(port.count), port.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                  let value = Int(String(decoding: port, as: UTF8.self)), (1...65535).contains(value) else { return .unusable }
            number = value
        } else {
            number = scheme == "https" ? 443 : 1080
        }
        return .proxy(host: String(decoding: host, as: UTF8.self), port: number)
    }
}
