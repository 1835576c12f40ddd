import Foundation

/// How a request's parameters become its body (for methods that carry parameters in the body).
public enum RequestSerializer: Sendable, Equatable {
    /// `application/x-www-form-urlencoded`.
    case urlEncodedForm
    /// `application/json` from the parameters object.
    case json
    /// A body given as is, with its content type; parameters then go in the query string. The
    /// request's own `Content-Type` header wins over this type, and this type over a config
    /// default one, unless `Request.rawContentTypeIsFallback` says it was only a guess.
    case raw(Data, contentType: String)
}

/// How a response body becomes `Response.value`.
public enum ResponseSerializer: Sendable, Equatable {
    /// JSON when the content type says JSON, text when it is textual, bytes otherwise. Never fails.
    case automatic
    case data
    /// UTF-8 text; a body that is not valid UTF-8 fails the request.
    case text
    /// JSON; a body that does not parse fails the request. An empty body reads as `null`.
    case json
}

/// A discrete request: what to send and how to read the answer. A value: build it, copy it, start it.
public struct Request: Sendable {
    /// A label for logs and the UI.
    public var name: String?
    public var method: HTTPMethod
    /// Joined to the base URL (and API version). May carry its own query string.
    public var path: String
    /// Overrides the config's base URL for this request.
    public var baseURL: String?
    /// A full URL that wins over every base; one without a host is treated as a path.
    public var customURL: String?
    /// Use the config's CDN URL as the base.
    public var useCDN: Bool
    public var params: Parameters
    /// Merge the config's default parameters (on by default).
    public var usesDefaultParams: Bool
    /// Laid over the config's default headers: same name, request wins.
    public var headers: HTTPHeaders
    public var requestSerializer: RequestSerializer
    /// The type of a `.raw` body is a guess made for want of one (a workspace `body:` written
    /// without `contentType:`, the interface's body mode), which a config default `Content-Type`
    /// overrides. Off: the type was given with the body, and overrides a config default.
    public var rawContentTypeIsFallback = false

    /// The `Content-Type` a `.raw` body goes out under in place of its own type: the request's own
    /// header, else `configDefault` when the body's type is only a guess; nil when the body's own
    /// type goes out. The one rule for the composer and for whoever fills templates by that type.
    public func contentTypeOverridingRawBody(configDefault: String?) -> String? {
        headers["Content-Type"] ?? (rawContentTypeIsFallback ? configDefault : nil)
    }
    /// `text` with what sending this request would hide of it hidden, as shown before a log sees
    /// it: URL passwords and the credentials of the `Authorization` fields it sends, its own and
    /// then the config's `defaults` (`RedactionPolicy.hidingPasswords(in:sentWith:)`).
    func hidingPasswords(in text: String, sendingAlso defaults: [HeaderField]) -> String {
        RedactionPolicy.hidingPasswords(in: text, sentWith: headers.fields + defaults)
    }
    public var responseSerializer: ResponseSerializer
    /// Overrides the config's request timeout.
    public var timeout: Duration?
    /// Status codes that count as success; others fail with `unacceptableStatus`. Nil takes the
    /// config's (2xx by default).
    public var acceptableStatusCodes: Range<Int>?
    /// Changes to the config's certificate checks, field by field.
    public var tls: TLSOverrides?
    /// Overrides the config's redirect following.
    public var followRedirects: Bool?
    /// Overrides the config's `allowInsecureRedirects` (following https to http).
    public var allowInsecureRedirects: Bool?

    // Bodies and responses beyond memory.

    /// Send a `multipart/form-data` body; the params become its first text parts.
    public var form: MultipartForm?
    /// Stream the body from this file (any method; PUT and POST are usual). Its Content-Type
    /// is guessed from the extension unless a header sets it.
    public var uploadFile: String?
    /// Write the response body to a file, resuming an interrupted download of the same URL.
    public var download: Download?
    /// Overrides the config's HTTP version preference.
    public var httpVersion: HTTPVersionPreference?
    /// Overrides `NetworkConfig.cookies.enabled` for this request.
    public var usesCookies: Bool?
    /// Hand the response over as it arrives (`RequestCallbacks.streamed`, observers'
    /// `requestDidStream`); `Agent.stream(_:)` and `Agent.eventSource(_:)` set it.
    public var streamsResponse = false
    /// Which reconnection of an event source this request is (0 for the first connection);
    /// recorded in the debug message's stream record.
    public var reconnectAttempt = 0

    // The middle layer, per request. Nil and empty values take the config's.

    /// This request's cache choices.
    public var cache: CacheOptions?
    public var retry: RetryPolicy?
    /// Answer or redirect this request as a mock, whatever the config's rules (still under the
    /// config's `mocks.enabled` switch).
    public var mock: MockAction?
    public var duplicatePolicy: DuplicatePolicy?
    /// Run after the config's filters.
    public var urlFilters: [any URLFilter] = []
    /// The name of a signer registered in `NetworkConfig.signers`.
    public var signer: String?
    /// Run after the config's plugins.
    public var plugins: [any AgentPlugin] = []
    public var validation = ResponseValidation()
    public var reformer: Reformer?
    /// Overrides `NetworkConfig.reachability.precheck`.
    public var reachabilityPrecheck: Bool?
    /// As a group's member, the request is made from what the chain captured when it starts
    /// (`CaptureFilling`), rather than filled in from its `{{name}}` text.
    public var captureFilling: CaptureFilling?

    public init(
        _ method: HTTPMethod = .get,
        _ path: String = "",
        name: String? = nil,
        params: Parameters = [:],
        headers: HTTPHeaders = [:],
        baseURL: String? = nil,
        customURL: String? = nil,
        useCDN: Bool = false,
        usesDefaultParams: Bool = true,
        requestSerializer: RequestSerializer = .urlEncodedForm,
        responseSerializer: ResponseSerializer = .automatic,
        timeout: Duration? = nil,
        acceptableStatusCodes: Range<Int>? = nil,
        tls: TLSOverrides? = nil
    ) {
        self.name = name
        self.method = method
        self.path = path
        self.params = params
        self.headers = headers
        self.baseURL = baseURL
        self.customURL = customURL
        self.useCDN = useCDN
        self.usesDefaultParams = usesDefaultParams
        self.requestSerializer = requestSerializer
        self.responseSerializer = responseSerializer
        self.timeout = timeout
        self.acceptableStatusCodes = acceptableStatusCodes
        self.tls = tls
    }

    /// A request to a full URL.
    public static func url(_ url: String, method: HTTPMethod = .get, headers: HTTPHeaders = [:]) -> Request {
        Request(method, customURL: url, headers: headers)
    }

    private init(_ method: HTTPMethod, customURL: String, headers: HTTPHeaders) {
        self.init(method, "", headers: headers, customURL: customURL)
    }
}
