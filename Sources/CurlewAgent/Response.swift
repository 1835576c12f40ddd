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
    /// Where the answer came from: the network, the cache or a mock fixture.
    public var source: PipelineRecord.Source = .network
    /// What the request's reformer made of the response.
    public var reformed: (any Sendable)?
    /// Where a download's body went (then `body` is empty), and whether it resumed.
    public var download: DownloadReport?
    /// What a chain step's captures found in this response, in order, as its checks read them
    /// (`ResponseValidation.captures`); when one found nothing, those before it.
    public internal(set) var captured: [CapturedValue] = []

    public init(requestID: UInt64, statusCode: Int, statusLine: String, httpVersion: String, headers: HTTPHeaders, body: Data,
                value: ResponseValue, url: String, source: PipelineRecord.Source = .network, reformed: (any Sendable)? = nil) {
        self.requestID = requestID
        self.statusCode = statusCode
        self.statusLine = statusLine
        self.httpVersion = httpVersion
        self.headers = headers
        self.body = body
        self.value = value
        self.url = url
        self.source = source
        self.reformed = reformed
    }

    /// The reformed value as `Model`, or nil when there is none of that type.
    public func reformed<Model>(as type: Model.Type) -> Model? {
        reformed as? Model
    }

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
