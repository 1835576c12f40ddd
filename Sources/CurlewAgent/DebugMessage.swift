import Foundation
import CurlewTransport

/// The request as Curlew composed it, before the transport added anything.
public struct ComposedRequest: Sendable, Equatable, Codable {
    public var method: String
    public var url: String
    /// Defaults merged with the request's own headers, in sending order.
    public var headers: [HeaderField]
    /// The merged parameters (defaults and request), wherever they were encoded.
    public var params: JSONValue
    public var body: BodySnapshot?
    public var timeoutMilliseconds: Int64
    /// Headers the agent added rather than the request (config defaults, User-Agent, the body's
    /// Content-Type), so re-sending the request leaves them to be added again.
    public var automaticHeaders: [String]
    /// The request side of the transfer record (upload file, form parts, download); recorded in
    /// `DebugMessage.transfer`, not here.
    public var transfer: TransferRecord?
    /// Only the method and URL as typed are known: the request ended before it was composed
    /// (refused, or cancelled while it waited), or no observer listened when it was.
    public var isAsTyped: Bool

    public init(method: String, url: String, headers: [HeaderField], params: JSONValue, body: BodySnapshot?, timeoutMilliseconds: Int64,
                automaticHeaders: [String] = [], transfer: TransferRecord? = nil, isAsTyped: Bool = false) {
        self.transfer = transfer
        self.isAsTyped = isAsTyped
        self.method = method
        self.url = url
        self.headers = headers
        self.params = params
        self.body = body
        self.timeoutMilliseconds = timeoutMilliseconds
        self.automaticHeaders = automaticHeaders
    }

    private enum CodingKeys: String, CodingKey {
        case method, url, headers, params, body, timeoutMilliseconds, automaticHeaders
        case isAsTyped = "asTyped"
    }

    /// This request without its transfer record, and the record, which a debug message keeps
    /// apart (`DebugMessage.transfer`), so a message reads back from a log as it was written.
    func splittingTransfer() -> (ComposedRequest, TransferRecord?) {
        // Without a record nothing is split: splitting copies the request field by field.
        guard transfer != nil else { return (self, nil) }
        var request = self
        request.transfer = nil
        return (request, transfer)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        method = try container.decode(String.self, forKey: .method)
        url = try container.decode(String.self, forKey: .url)
        headers = try container.decode([HeaderField].self, forKey: .headers)
        params = try container.decode(JSONValue.self, forKey: .params)
        body = try container.decodeIfPresent(BodySnapshot.self, forKey: .body)
        timeoutMilliseconds = try container.decode(Int64.self, forKey: .timeoutMilliseconds)
        // Logs written before this field existed: every header counts as the request's own.
        automaticHeaders = try container.decodeIfPresent([String].self, forKey: .automaticHeaders) ?? []
        isAsTyped = try container.decodeIfPresent(Bool.self, forKey: .isAsTyped) ?? false
    }
}

/// The request exactly as written to the connection (the final hop, when redirects were followed).
public struct WireRequest: Sendable, Equatable, Codable {
    /// Request line and header block, CRLFs included, as libcurl wrote them.
    public var head: String
    public var body: BodySnapshot?

    public init(head: String, body: BodySnapshot?) {
        self.head = head
        self.body = body
    }
}

/// The final response as received.
public struct ResponseSnapshot: Sendable, Equatable, Codable {
    public var statusCode: Int
    public var statusLine: String
    public var httpVersion: String
    /// The header fields, in the order received.
    public var headers: [HeaderField] {
        get { storedHeaders.fields }
        set { storedHeaders = HTTPHeaders(newValue) }
    }
    public var body: BodySnapshot

    /// The fields as given, or as the transport received them: kept as bytes, they are made into
    /// strings only for a reader that asks for `headers` (the session log writes and checks the
    /// bytes; see `receivedHeaders`).
    private var storedHeaders: HTTPHeaders

    public init(statusCode: Int, statusLine: String, httpVersion: String, headers: [HeaderField], body: BodySnapshot) {
        self.init(statusCode: statusCode, statusLine: statusLine, httpVersion: httpVersion, fields: HTTPHeaders(headers), body: body)
    }

    /// A response whose fields stay as they are held (as received, for a response's) until read.
    init(statusCode: Int, statusLine: String, httpVersion: String, fields: HTTPHeaders, body: BodySnapshot) {
        self.statusCode = statusCode
        self.statusLine = statusLine
        self.httpVersion = httpVersion
        self.storedHeaders = fields
        self.body = body
    }

    /// The fields as the transport received them, when they are kept so.
    var receivedHeaders: ReceivedHeaders? { storedHeaders.receivedHeaders }

    /// The fields under `headers`, as an array, whatever holds them here.
    private enum CodingKeys: String, CodingKey {
        case statusCode, statusLine, httpVersion, headers, body
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(statusCode: try container.decode(Int.self, forKey: .statusCode), statusLine: try container.decode(String.self, forKey: .statusLine),
                  httpVersion: try container.decode(String.self, forKey: .httpVersion), headers: try container.decode([HeaderField].self, forKey: .headers),
                  body: try container.decode(BodySnapshot.self, forKey: .body))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(statusCode, forKey: .statusCode)
        try container.encode(statusLine, forKey: .statusLine)
        try container.encode(httpVersion, forKey: .httpVersion)
        try container.encode(headers, forKey: .headers)
        try container.encode(body, forKey: .body)
    }
}

/// Everything known about one finished request: HLNetworking's debug message, made complete.
/// One per request, whatever its outcome; the session log stores one per line.
public struct DebugMessage: Sendable, Equatable, Codable {
    public var requestID: UInt64
    public var name: String?
    public var groupID: UInt64?
    /// Position in a chain or group, when the request belongs to one: its member's index,
    /// counted from 0 as `GroupInfo.indexInParent` is (the log's `step`; the interface shows
    /// steps counted from 1).
    public var step: Int?
    /// The terminal state: succeeded, failed or cancelled.
    public var state: RequestState
    public var startedAt: Date
    /// As composed; nil only when composing itself failed.
    public var original: ComposedRequest?
    /// As sent on the wire; nil when nothing was written.
    public var sent: WireRequest?
    public var response: ResponseSnapshot?
    public var error: RequestError?
    public var timings: TimingBreakdown?
    public var connection: ConnectionInfo?
    /// Label of the queue callbacks ran on.
    public var callbackQueue: String
    /// What the middle layer did (cache, mock, attempts, signer, ...); nil when none of it was in play.
    public var pipeline: PipelineRecord?
    /// Uploads from files, form parts, downloads and large bodies; nil when none applied.
    public var transfer: TransferRecord?
    /// What a streamed response carried (chunks, events); nil when the request did not stream.
    public var stream: StreamRecord?

    /// The response was an event stream whose body was handed on as it came and not kept: its
    /// body has a size and no bytes, and its events are in `stream`.
    public var hasUnkeptEventStreamBody: Bool {
        guard stream != nil, let body = response?.body else { return false }
        return body.data.isEmpty && body.size > 0
    }

    public init(
        requestID: UInt64, name: String?, groupID: UInt64? = nil, step: Int? = nil, state: RequestState,
        startedAt: Date, original: ComposedRequest?, sent: WireRequest?, response: ResponseSnapshot?,
        error: RequestError?, timings: TimingBreakdown?, connection: ConnectionInfo?, callbackQueue: String,
        pipeline: PipelineRecord? = nil, transfer: TransferRecord? = nil, stream: StreamRecord? = nil
    ) {
        self.stream = stream
        self.pipeline = pipeline
        self.transfer = transfer
        self.requestID = requestID
        self.name = name
        self.groupID = groupID
        self.step = step
        self.state = state
        self.startedAt = startedAt
        self.original = original
        self.sent = sent
        self.response = response
        self.error = error
        self.timings = timings
        self.connection = connection
        self.callbackQueue = callbackQueue
    }
}
