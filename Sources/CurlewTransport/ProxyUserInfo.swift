/// A proxy setting's user and password made safe for libcurl's URL parser. Written as they are,
/// libcurl reads `http://us#er:pw@proxy` as the proxy `us`, looks that name up (a DNS query that
/// carries part of the user name) and connects there; `http://user:/pw@proxy` likewise as the
/// proxy `user`. Percent-encoded, they reach the proxy as the user and password meant.
enum ProxyUserInfo {
    /// `proxy` with the bytes of its user and password that would end a URL's authority early
    /// (`/`, `?`, `#`, and an `@` before the last) percent-encoded, when what follows its last
    /// `@` is a host, maybe a port, and maybe a path. A `/` is taken for the authority's end,
    /// and left alone, only where what comes before it is a host and a port (`proxy:3128/a@b`;
    /// `us/er:pw@proxy` is a user name with a slash in it); without an `@` the setting is
    /// returned as it is.
    static func encoded(_ proxy: String) -> String {
        let bytes = Array(proxy.utf8)
        let start = authorityStart(of: bytes)
        guard let at = bytes[start...].lastIndex(of: UInt8(ascii: "@")) else { return proxy }
        let userInfo = bytes[start..<at]
        let slash = userInfo.firstIndex(of: UInt8(ascii: "/"))
        let cutBySlash = slash.map { !isHostAndPort(bytes[start..<$0], requiringPort: true) } ?? false
        guard cutBySlash || userInfo.contains(where: { endsAuthority($0) && $0 != UInt8(ascii: "/") }) else { return proxy }
        // What follows: a host and port, then at most a path.
        let rest = bytes[(at + 1)...]
        let host = rest[..<(rest.firstIndex(of: UInt8(ascii: "/")) ?? rest.endIndex)]
        guard isHostAndPort(host), !rest.contains(where: { $0 <= 0x20 || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) else { return proxy }
        var encoded = Array(bytes[..<start])
        for byte in userInfo {
            if endsAuthority(byte) {
                encoded += Array("%\(String(byte, radix: 16, uppercase: true))".utf8)
            } else {
                encoded.append(byte)
            }
        }
        encoded += bytes[at...]
        return String(decoding: encoded, as: UTF8.self)
    }

    /// Where a proxy setting's authority starts: after a scheme (a letter, then letters, digits
    /// and `+.-`, then `://`), else at its first byte.
    static func authorityStart(of bytes: [UInt8]) -> Int {
        guard let separator = bytes.firstRange(of: Array("://".utf8))?.lowerBound, separator > 0,
              bytes[..<separator].enumerated().allSatisfy({ ASCII.isSchemeByte($1, first: $0 == 0) }) else { return 0 }
        return separator + 3
    }

    private static func endsAuthority(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") || byte == UInt8(ascii: "@")
    }

    /// Whether `text` reads as a host with maybe a port (with `requiringPort`, with one): not
    /// empty, no `@`, and after a last `:` outside brackets a port of 1 to 5 digits up to 65535.
    private static func isHostAndPort(_ text: ArraySlice<UInt8>, requiringPort: Bool = false) -> Bool {
        guard !text.isEmpty, !text.contains(UInt8(ascii: "@")) else { return false }
        let closing = text.lastIndex(of: UInt8(ascii: "]")) ?? text.startIndex
        guard let colon = text[closing...].lastIndex(of: UInt8(ascii: ":")) else { return !requiringPort }
        guard colon > text.startIndex else { return false }
        let port = text[(colon + 1)...]
        guard (1...5).contains(port.count), port.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return false }
        return Int(String(decoding: port, as: UTF8.self)).map { $0 <= 65535 } ?? false
    }
}
