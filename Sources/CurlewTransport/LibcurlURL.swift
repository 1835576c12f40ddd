import CCurl

/// A URL as libcurl's own parser reads it, so that Curlew judges a host as libcurl does.
enum LibcurlURL {
    /// The host (lower case, without brackets or a trailing dot, an IPv4 address in its usual
    /// form) and port (the scheme's default when none is given) of `url`; nil when libcurl
    /// cannot read it, or when the host is not ASCII (libcurl 7.88's parser cannot give the ASCII
    /// form it connects to: `CURLU_PUNYCODE` fails).
    static func endpoint(of url: String) -> (host: String, port: String)? {
        guard let parsed = curl_url() else { return nil }
        defer { curl_url_cleanup(parsed) }
        guard curl_url_set(parsed, CURLUPART_URL, url, 0) == CURLUE_OK else { return nil }
        func part(_ which: CURLUPart, _ flags: UInt32) -> String? {
            var value: UnsafeMutablePointer<CChar>?
            guard curl_url_get(parsed, which, &value, flags) == CURLUE_OK, let value else { return nil }
            defer { curl_free(value) }
            return String(cString: value)
        }
        guard let port = part(CURLUPART_PORT, UInt32(CURLU_DEFAULT_PORT)),
              var host = part(CURLUPART_HOST, 0)?.lowercased(), !host.isEmpty, host.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.count > 1, host.hasSuffix(".") { host.removeLast() }
        return (host, port)
    }
}
