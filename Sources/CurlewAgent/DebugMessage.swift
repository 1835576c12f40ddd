import Foundation
import CurlewTransport

/// The request as Curlew composed it, before the transport added anything.
///
/// Its fields are held by reference, in one immutable block: a finished request's debug message
/// is read by every observer, the logger's redaction checks and its record writer, and each read
/// of a struct this large copied it, retaining and releasing each of its strings and arrays (some
/// twenty calls a copy, seven copies a logged request). A copy now retains one reference; a change
/// to a field makes a new block.
public struct ComposedRequest: Sendable, Equatable, Codable {
    private var fields: SharedValue<Fields>

    /// The fields themselves.
    struct Fields: Sendable, Equatable {
        var method: String
        var url: String
        var headers: [HeaderField]
        var params: JSONValue
        var body: BodySnapshot?
        var timeoutMilliseconds: Int64
        var automaticHeaders: [String]
        var transfer: TransferRecord?
        var isAsTyped: Bool
    }

    public var method: String {
        get { fields.value.method }
        set { update { $0.method = newValue } }
    }
    public var url: String {
        get { fields.value.url }
        set { update { $0.url = newValue } }
    }
    /// Defaults merged with the request's own headers, in sending order.
    public var headers: [HeaderField] {
        get { fields.value.headers }
        set { update { $0.headers = newValue } }
    }
    /// The merged parameters (defaults and request), wherever they were encoded.
    public var params: JSONValue {
        get { fields.value.params }
        set { update { $0.params = newValue } }
    }
    public var body: BodySnapshot? {
        get { fields.value.body }
        set { update { $0.body = newValue } }
    }
    public var timeoutMilliseconds: Int64 {
        get { fields.value.timeoutMilliseconds }
        set { update { $0.timeoutMilliseconds = newValue } }
    }
    /// Headers the agent added rather than the request (config defaults, User-Agent, the body's
    /// Content-Type), so re-sending the request leaves them to be added again.
    public var automaticHeaders: [String] {
        get { fields.value.automaticHeaders }
        set { update { $0.automaticHeaders = newValue } }
    }
    /// The request side of the transfer record (upload file, form parts, download); recorded in
    /// `DebugMessage.transfer`, not here.
    public var transfer: TransferRecord? {
        get { fields.value.transfer }
        set { update { $0.transfer = newValue } }
    }
    /// Only the method and URL as typed are known: the request ended before it was composed
    /// (refused, or cancelled while it waited), or no observer listened when it was.
    public var isAsTyped: Bool {
        get { fields.value.isAsTyped }
        set { update { $0.isAsTyped = newValue } }
    }

    public init(method: String, url: String, headers: [HeaderField], params: JSONValue, body: BodySnapshot?, timeoutMilliseconds: Int64,
                automaticHeaders: [String] = [], transfer: TransferRecord? = nil, isAsTyped: Bool = false) {
        fields = SharedValue(Fields(method: method, url: url, headers: headers, params: params, body: body, timeoutMilliseconds: timeoutMilliseconds,
                                    automaticHeaders: automaticHeaders, transfer: transfer, isAsTyped: isAsTyped))
    }

    /// Makes a new block with `changes` applied (the old one may be shared with other copies):
    /// one for each setter, one for several fields changed at once.
    mutating func update(_ changes: (inout Fields) -> Void) {
        var changed = fields.value
        changes(&changed)
        fields = SharedValue(changed)
    }

    public static func == (lhs: ComposedRequest, rhs: ComposedRequest) -> Bool {
        lhs.fields === rhs.fields || lhs.fields.value == rhs.fields.value
    }

    private enum CodingKeys: String, CodingKey {
        case method, url, headers, params, body, timeoutMilliseconds, automaticHeaders
        case isAsTyped = "asTyped"
    }

    /// This request without its transfer record, and the record, which a debug message keeps
    /// apart (`DebugMessage.transfer`), so a message reads back from a log as it was written.
    func splittingTransfer() -> (ComposedRequest, TransferRecord?) {
        // Without a record nothing is split.
        guard let transfer else { return (self, nil) }
        var request = self
        request.transfer = nil
        return (request, transfer)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            method: try container.decode(String.self, forKey: .method), url: try container.decode(String.self, forKey: .url),
            headers: try container.decode([HeaderField].self, forKey: .headers), params: try container.decode(JSONValue.self, forKey: .params),
            body: try container.decodeIfPresent(BodySnapshot.self, forKey: .body),
            timeoutMilliseconds: try container.decode(Int64.self, forKey: .timeoutMilliseconds),
            // Logs written before this field existed: every header counts as the request's own.
            automaticHeaders: try container.decodeIfPresent([String].self, forKey: .automaticHeaders) ?? [],
            isAsTyped: try container.decodeIfPresent(Bool.self, forKey: .isAsTyped) ?? false
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(method, forKey: .method)
        try container.encode(url, forKey: .url)
        try container.encode(headers, forKey: .headers)
        try container.encode(params, forKey: .params)
        try container.encodeIfPresent(body, forKey: .body)
        try container.encode(timeoutMilliseconds, forKey: .timeoutMilliseconds)
        try container.encode(automaticHeaders, forKey: .automaticHeaders)
        try container.encode(isAsTyped, forKey: .isAsTyped)
    }
}

extension ComposedRequest: CustomReflectable {
    /// Its fields, as a plain struct's: printed, dumped and shown in a failed test as before they
    /// were held by reference.
    public var customMirror: Mirror {
        Mirror(self, children: ["method": method, "url": url, "headers": headers, "params": params, "body": body as Any,
                                "timeoutMilliseconds": timeoutMilliseconds, "automaticHeaders": automaticHeaders,
                                "transfer": transfer as Any, "isAsTyped": isAsTyped],
               displayStyle: .struct)
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

    /// Whether a field is named `Set-Cookie`, found without making the fields into strings.
    var setsCookie: Bool { storedHeaders["Set-Cookie"] != nil }

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
///
/// Its optional fields are spelled `Optional<…>`: a `var` declared `T?` starts as nil before the
/// initializer runs, and the initializer then released each nil, stored the value and made the
/// whole message once more (a copy and a destroy of every field, some 2,000 instructions a
/// message) before returning it.
public struct DebugMessage: Sendable, Equatable, Codable {
    public var requestID: UInt64
    /// For an exchange after a request's first (a retry, a replay, the network's answer after a
    /// cached copy), the id of the request's first exchange: its handle's id.
    public var firstExchangeID: Optional<UInt64>
    /// `true` on an exchange after which its request goes on with another of its own (an
    /// attempt the agent retries, one a plugin replays, the cached copy `cacheThenNetwork` hands
    /// over before the network's answer); nil on the exchange the request ends with (whose
    /// answer its handle and callbacks get, unless they were answered already).
    public var requestGoesOn: Optional<Bool>
    public var name: Optional<String>
    public var groupID: Optional<UInt64>
    /// Position in a chain or group, when the request belongs to one: its member's index,
    /// counted from 0 as `GroupInfo.indexInParent` is (the log's `step`; the interface shows
    /// steps counted from 1).
    public var step: Optional<Int>
    /// The terminal state: succeeded, failed or cancelled.
    public var state: RequestState
    public var startedAt: Date
    /// As composed; nil only when composing itself failed.
    public var original: Optional<ComposedRequest>
    /// As sent on the wire; nil when nothing was written.
    public var sent: Optional<WireRequest>
    public var response: Optional<ResponseSnapshot>
    public var error: Optional<RequestError>
    public var timings: Optional<TimingBreakdown>
    public var connection: Optional<ConnectionInfo>
    /// Label of the queue callbacks ran on.
    public var callbackQueue: String
    /// What the middle layer did (cache, mock, attempts, signer, ...); nil when none of it was in play.
    public var pipeline: Optional<PipelineRecord>
    /// Uploads from files, form parts, downloads and large bodies; nil when none applied.
    public var transfer: Optional<TransferRecord>
    /// What a streamed response carried (chunks, events); nil when the request did not stream.
    public var stream: Optional<StreamRecord>

    /// The response was an event stream whose body was handed on as it came and not kept: its
    /// body has a size and no bytes, and its events are in `stream`.
    public var hasUnkeptEventStreamBody: Bool {
        guard stream != nil, let body = response?.body else { return false }
        return body.data.isEmpty && body.size > 0
    }

    /// Every exchange id this message answers for: its own, its request's first exchange's and
    /// each earlier attempt's. A retry's, a replay's and the network's answer after a cached copy
    /// are exchanges with ids of their own, while the request's handle (a group member's too)
    /// keeps the first exchange's: a record kept by request finds the latest exchange under any
    /// of them.
    public var answeredRequestIDs: [UInt64] {
        var ids = [requestID]
        if let firstExchangeID, firstExchangeID != requestID { ids.append(firstExchangeID) }
        for attempt in pipeline?.attempts ?? [] where !ids.contains(attempt.requestID) {
            ids.append(attempt.requestID)
        }
        return ids
    }

    /// Whether the request ends with this exchange (`requestGoesOn`).
    public var endsRequest: Bool { requestGoesOn != true }

    public init(
        requestID: UInt64, name: String?, groupID: UInt64? = nil, step: Int? = nil, state: RequestState,
        startedAt: Date, original: ComposedRequest?, sent: WireRequest?, response: ResponseSnapshot?,
        error: RequestError?, timings: TimingBreakdown?, connection: ConnectionInfo?, callbackQueue: String,
        pipeline: PipelineRecord? = nil, transfer: TransferRecord? = nil, stream: StreamRecord? = nil, firstExchangeID: UInt64? = nil,
        requestGoesOn: Bool = false
    ) {
        self.firstExchangeID = firstExchangeID
        // Kept as `true` or nil, as a session log's record reads it.
        self.requestGoesOn = requestGoesOn ? true : nil
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
