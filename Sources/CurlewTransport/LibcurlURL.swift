import CCurl

/// A URL as libcurl's own parser reads it, so that Curlew judges a host as libcurl does.
enum LibcurlURL {
    /// The host (lower case, without brackets or a trailing dot, an IPv4 address in its usual
    /// form) and port (the scheme's default when none is given) of `url`; nil when libcurl
    /// cannot read it, or when the host is not ASCII (libcurl 7.88's parser cannot give the ASCII
    /// form it connects to: `CURLU_PUNYCODE` fails).
    static func endpoint(of url: String) -> (host: String, port: String)? {
        endpointAsKept(of: url).map { (withoutTrailingDot($0.host), $0.port) }
    }

    /// `endpoint(of:)` with the host's trailing dot kept, as libcurl's parser keeps it
    /// (`127.0.0.1.`, which libcurl then reads as a name, not an address).
    static func endpointAsKept(of url: String) -> (host: String, port: String)? {
        reading(url) { part in
            guard let port = part(CURLUPART_PORT, UInt32(CURLU_DEFAULT_PORT)),
                  let host = part(CURLUPART_HOST, 0)?.lowercased(), !host.isEmpty, host.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
            return (unbracketed(host), port)
        }
    }

    /// `host` without one trailing dot (a host of a dot alone stays).
    static func withoutTrailingDot(_ host: String) -> String {
        host.count > 1 && host.hasSuffix(".") ? String(host.dropLast()) : host
    }

    /// What `read` makes of `url` as libcurl's parser reads it with `flags` (`CURLU_…`); `read`
    /// is given a function that returns one part, got with its own flags (nil when libcurl has
    /// none). Nil when libcurl cannot read the URL.
    static func reading<Result>(_ url: String, flags: UInt32 = 0, _ read: ((CURLUPart, UInt32) -> String?) -> Result?) -> Result? {
        guard let parsed = curl_url() else { return nil }
        defer { curl_url_cleanup(parsed) }
        guard curl_url_set(parsed, CURLUPART_URL, url, flags) == CURLUE_OK else { return nil }
        return read { which, partFlags in
            var value: UnsafeMutablePointer<CChar>?
            guard curl_url_get(parsed, which, &value, partFlags) == CURLUE_OK, let value else { return nil }
            defer { curl_free(value) }
            return String(cString: value)
        }
    }

    /// `host` without the brackets libcurl gives an IPv6 address.
    static func unbracketed(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }
}
