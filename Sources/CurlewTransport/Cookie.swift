import Foundation

/// One cookie in the engine's jar, as libcurl keeps it.
public struct Cookie: Sendable, Equatable, Codable {
    /// The host the cookie belongs to (without a leading dot).
    public var domain: String
    /// Sent to subdomains of `domain` too (a `Domain` attribute was given).
    public var includesSubdomains: Bool
    public var path: String
    /// Sent over HTTPS only.
    public var secure: Bool
    /// Hidden from scripts (`HttpOnly`); recorded for the listing.
    public var httpOnly: Bool
    /// When it expires; nil for a session cookie, which is dropped when the jar is.
    public var expires: Date?
    public var name: String
    public var value: String

    public init(domain: String, includesSubdomains: Bool = false, path: String = "/", secure: Bool = false, httpOnly: Bool = false,
                expires: Date? = nil, name: String, value: String) {
        self.domain = domain
        self.includesSubdomains = includesSubdomains
        self.path = path
        self.secure = secure
        self.httpOnly = httpOnly
        self.expires = expires
        self.name = name
        self.value = value
    }

    /// A line of the Netscape cookie file format libcurl reads and writes:
    /// `domain TAB subdomains TAB path TAB secure TAB expiry TAB name TAB value`, with
    /// `#HttpOnly_` before the domain of an HttpOnly cookie. Nil for anything else.
    public init?(netscapeLine line: String) {
        // Prefixes are matched by Unicode scalars, not Characters: a combining mark after the
        // marker's "_" or the domain's "." joins it into one Character, and the line must read
        // back as it was written.
        var text = Substring(line)
        var httpOnly = false
        let marker = "#HttpOnly_".unicodeScalars
        if text.unicodeScalars.starts(with: marker) {
            httpOnly = true
            text = Substring(text.unicodeScalars.dropFirst(marker.count))
        } else if text.unicodeScalars.first == "#" {
            return nil
        }
        let fields = text.split(separator: "\t", omittingEmptySubsequences: false)
        guard fields.count == 7, !fields[0].isEmpty, !fields[5].isEmpty, let expiry = Int64(fields[4]), expiry >= 0 else { return nil }
        var domain = String(fields[0])
        if domain.unicodeScalars.first == "." { domain.unicodeScalars.removeFirst() }
        // "." or "..host" names no host, and neither "..host" nor "#host" (a comment line once
        // written without its dot) could be written back the same.
        guard let first = domain.unicodeScalars.first, first != ".", first != "#" else { return nil }
        self.init(domain: domain, includesSubdomains: fields[1] == "TRUE", path: String(fields[2]), secure: fields[3] == "TRUE",
                  httpOnly: httpOnly, expires: expiry == 0 ? nil : Date(timeIntervalSince1970: TimeInterval(min(expiry, Self.latestExpiry))),
                  name: String(fields[5]), value: String(fields[6]))
    }

    /// Whether the jar takes `line` as a cookie: a Netscape line (it has a tab) or a `Set-Cookie:`
    /// line. Anything else is not given to libcurl: `ALL`, `SESS`, `FLUSH` and `RELOAD` are
    /// commands to it, and a jar file must not be able to give them.
    public static func isJarInput(_ line: String) -> Bool {
        line.contains("\t") || ASCII.hasPrefixIgnoringCase(line, "Set-Cookie:")
    }

    /// Expiry times are kept up to the end of year 9999, so every one converts back to seconds.
    static let latestExpiry: Int64 = 253_402_300_799

    /// This cookie as a Netscape cookie file line (see `init(netscapeLine:)`).
    public var netscapeLine: String {
        let host = includesSubdomains ? "." + domain : domain
        let seconds = expires?.timeIntervalSince1970 ?? 0
        let expiry = seconds.isFinite ? Int64(max(1, min(seconds, Double(Self.latestExpiry)))) : Self.latestExpiry
        let written = expires == nil ? 0 : expiry
        return [(httpOnly ? "#HttpOnly_" : "") + host, includesSubdomains ? "TRUE" : "FALSE", path, secure ? "TRUE" : "FALSE",
                "\(written)", name, value].joined(separator: "\t")
    }
}
