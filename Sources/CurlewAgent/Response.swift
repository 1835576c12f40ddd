import Foundation

/// A response body read by the request's response serializer.
public enum ResponseValue: Sendable, Equatable {
    case data(Data)
    case text(String)
    case json(JSONValue)
}

/// The final response of a request.
public struct Response: Sendable {
    public var requestID: UInt64
    public var statusCode: Int
    /// As received, without CRLF: "HTTP/1.1 200 OK".
    public var statusLine: String
    /// "1.0", "1.1", "2" or "3".
    public var httpVersion: String
    public var headers: HTTPHeaders
    public var body: Data
    public var value: ResponseValue
    /// The URL of the last hop, after redirects.
    public var url: String

    /// The body as JSON, parsing it if the serializer did not.
    public func json() throws(JSONSyntaxError) -> JSONValue {
        if case .json(let value) = value { return value }
        return try JSONValue.parse(body)
    }

    /// The body as UTF-8 text, or nil when it is not valid UTF-8.
    public var text: String? {
        String(data: body, encoding: .utf8)
    }
}
