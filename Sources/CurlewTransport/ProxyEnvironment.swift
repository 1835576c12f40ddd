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
    /// in any case; for an IPv4 address, an entry that is the same address or a range holding it,
    /// see `ipv4Entry(_:holds:)`; for an IPv6 address, an entry written the same, since libcurl
    /// 7.88 matches no other form and no range of one).
    public func mayUseProxy(for url: String) -> Bool {
        guard !proxy(for: url).isEmpty else { return false }
        guard noProxy != "*" else { return false }
        guard let kept = LibcurlURL.endpointAsKept(of: url)?.host else { return true }
        // libcurl reads a host written with a trailing dot (`127.0.0.1.`) as a name.
        let host = LibcurlURL.withoutTrailingDot(kept)
        let dotted = host != kept
        var address = in_addr()
        let ipv4 = !dotted && inet_pton(AF_INET, host, &address) == 1 ? UInt32(bigEndian: address.s_addr) : nil
        for entry in noProxy.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }) {
            if let ipv4 {
                if Self.ipv4Entry(entry, holds: ipv4) { return false }
                continue
            }
            var name = entry.lowercased()
            if host.contains(":") {
                if host == name { return false }
                continue
            }
            if name.hasPrefix(".") { name.removeFirst() }
            guard !name.isEmpty else { continue }
            if host == name || host.hasSuffix("." + name) { return false }
        }
        return true
    }

    /// Whether the `no_proxy` entry `entry` exempts the IPv4 address `host` (host order), as
    /// libcurl 7.88 reads one: an address, and after the first `/` a prefix length read as C's
    /// `atoi` reads it (`8x` is 8, `abc` is 0); a length from 1 to 31 compares that many leading
    /// bits, 0 or 32 the whole address, more than 32 nothing. An entry of 128 bytes or more
    /// matches nothing.
    static func ipv4Entry(_ entry: Substring, holds host: UInt32) -> Bool {
        guard entry.utf8.count < 128 else { return false }
        let slash = entry.firstIndex(of: "/")
        var network = in_addr()
        guard inet_pton(AF_INET, String(entry[..<(slash ?? entry.endIndex)]), &network) == 1 else { return false }
        let bits = slash.map { UInt32(bitPattern: Int32(truncatingIfNeeded: atoiValue(entry[entry.index(after: $0)...]))) } ?? 0
        guard bits <= 32 else { return false }
        let check = UInt32(bigEndian: network.s_addr)
        guard bits != 0, bits != 32 else { return host == check }
        let mask = UInt32.max << (32 - bits)
        return host & mask == check & mask
    }

    /// `text` read as C's `strtol` (base 10) reads it: white space, an optional sign, then
    /// digits up to the first other character; 0 for none, and the long's limits past them.
    private static func atoiValue(_ text: Substring) -> Int64 {
        var rest = text.utf8.drop { $0 == 0x20 || (0x09...0x0D).contains($0) }
        var negative = false
        if let sign = rest.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            negative = sign == UInt8(ascii: "-")
            rest = rest.dropFirst()
        }
        var value: Int64 = 0
        for byte in rest {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { break }
            let (times, overflowTimes) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowSum) = times.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            if overflowTimes || overflowSum { return negative ? Int64.min : Int64.max }
            value = sum
        }
        return negative ? -value : value
    }
}
