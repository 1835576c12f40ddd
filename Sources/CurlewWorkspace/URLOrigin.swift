import Foundation

/// A URL's origin: its scheme, host and port, compared without case and with the scheme's
/// default port filled in (`HTTP://Example.com` is `http://example.com:80`). Nil parts (a URL
/// that does not parse, or has no host) make an origin that equals no other.
struct URLOrigin: Equatable {
    private let scheme: String?
    private let host: String?
    private let port: Int?

    init(_ text: String) {
        let components = URLComponents(string: text)
        scheme = components?.scheme?.lowercased()
        host = components?.host?.lowercased()
        port = components?.port ?? scheme.flatMap { ["http": 80, "https": 443][$0] }
    }

    static func == (lhs: URLOrigin, rhs: URLOrigin) -> Bool {
        guard let scheme = lhs.scheme, let host = lhs.host, let port = lhs.port else { return false }
        return scheme == rhs.scheme && host == rhs.host && port == rhs.port
    }
}
