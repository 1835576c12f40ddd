import Foundation

/// A fully received request as the demo routes see it.
struct DemoRequest: Sendable {
    var method: String
    var uri: String
    var path: String
    var query: [(name: String, value: String)]
    var headers: [(name: String, value: String)]
    var body: [UInt8]
    var remoteAddress: String
    var keepAlive: Bool

    init(method: String, uri: String, headers: [(name: String, value: String)], body: [UInt8], remoteAddress: String, keepAlive: Bool) {
        self.method = method
        self.uri = uri
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
        self.keepAlive = keepAlive
        let components = URLComponents(string: uri)
        path = components?.percentEncodedPath.removingPercentEncoding ?? uri
        query = (components?.queryItems ?? []).map { ($0.name, $0.value ?? "") }
    }

    func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    func queryValue(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }

    /// Path segments after the leading slash: "/delay/2" gives ["delay", "2"].
    var segments: [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: true)
    }
}
