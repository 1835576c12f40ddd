import Foundation

/// Rewrites a request before it is composed (YTKNetwork's `YTKUrlFilterProtocol`, GofNetComponent's
/// common parameters). Filters run in order: the config's, then the request's.
public protocol URLFilter: Sendable {
    /// Shown in the request's pipeline record.
    var name: String { get }
    func filter(_ request: inout Request)
}

/// Adds parameters to every request (an app id, a platform); a request's own value wins. Added
/// more than once (a request retried or replayed), the result is the same.
public struct CommonParamsFilter: URLFilter {
    public var params: Parameters
    /// Put them in the query string even when the request's parameters go in its body.
    public var inQuery: Bool

    public init(_ params: Parameters, inQuery: Bool = true) {
        self.params = params
        self.inQuery = inQuery
    }

    public var name: String { "common params " + params.entries.map(\.key).joined(separator: ",") }

    public func filter(_ request: inout Request) {
        guard inQuery else {
            request.params = request.params.merged(over: params)
            return
        }
        let target = request.customURL ?? request.path
        let present = Set(request.params.entries.map(\.key)).union(Self.queryNames(of: target))
        let query = Parameters(params.entries.filter { !present.contains($0.key) }).percentEncoded
        guard !query.isEmpty else { return }
        let filtered = URLText.appendingQuery(query, to: target)
        if request.customURL != nil { request.customURL = filtered } else { request.path = filtered }
    }

    /// The parameter names of a path's or URL's query string, decoded.
    static func queryNames(of target: String) -> Set<String> {
        guard let question = target.firstIndex(of: "?") else { return [] }
        let query = target[target.index(after: question)...].prefix { $0 != "#" }
        return Set(query.split(separator: "&").map { pair in
            let name = String(pair.prefix { $0 != "=" })
            return name.removingPercentEncoding ?? name
        })
    }
}

/// Adds headers a request does not set itself.
public struct CommonHeadersFilter: URLFilter {
    public var headers: HTTPHeaders

    public init(_ headers: HTTPHeaders) {
        self.headers = headers
    }

    public var name: String { "common headers " + headers.fields.map(\.name).joined(separator: ",") }

    public func filter(_ request: inout Request) {
        request.headers = request.headers.merged(over: headers)
    }
}

/// Puts a prefix in front of the request's path (`/api` + `/users`). Full URLs are left alone.
public struct PathPrefixFilter: URLFilter {
    public var prefix: String

    public init(_ prefix: String) {
        self.prefix = prefix
    }

    public var name: String { "path prefix \(prefix)" }

    public func filter(_ request: inout Request) {
        guard request.customURL == nil, !request.path.contains("://") else { return }
        let trimmed = prefix.hasSuffix("/") ? String(prefix.dropLast()) : prefix
        let path = request.path.hasPrefix("/") ? request.path : "/" + request.path
        guard !path.hasPrefix(trimmed + "/") else { return }
        request.path = trimmed + path
    }
}
