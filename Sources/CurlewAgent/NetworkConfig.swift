import CurlewTransport
import Dispatch
import Foundation

/// The user-facing texts for failures, from HLNetworking's "tips".
public struct ErrorTips: Sendable, Equatable {
    public var generalError: String
    public var tooFrequent: String
    public var notReachable: String
    /// Append " (code N)" to the tip, N being the HTTP status or libcurl code.
    public var appendsErrorCode: Bool

    public init(
        generalError: String = "Something went wrong. Please try again later.",
        tooFrequent: String = "Requests are too frequent. Please wait a moment.",
        notReachable: String = "The network is not reachable.",
        appendsErrorCode: Bool = true
    ) {
        self.generalError = generalError
        self.tooFrequent = tooFrequent
        self.notReachable = notReachable
        self.appendsErrorCode = appendsErrorCode
    }
}

/// Global settings every request starts from. A value type: change a copy and build a new agent.
public struct NetworkConfig: Sendable {
    /// Prefix of every request's path unless the request names its own base or a full custom URL.
    public var baseURL: String
    /// Base for requests with `useCDN`; falls back to `baseURL` when nil.
    public var cdnURL: String?
    /// Inserted as a `v{version}` path segment between the base URL and the path.
    public var apiVersion: String?
    public var defaultHeaders: HTTPHeaders
    /// Merged into every request's parameters unless the request opts out; the request's win.
    public var defaultParams: Parameters
    public var userAgent: String
    /// Concurrent connections to one host; more requests wait for a free one. HLNetworking's 5.
    public var maxConnectionsPerHost: Int
    /// Concurrent connections overall; 0 means no limit.
    public var maxTotalConnections: Int
    /// Threads that drive transfers (1 to 16, and no more than the connection limits allow
    /// connections; the default, 1, keeps one connection pool). A client that keeps many requests
    /// in flight on a machine with cores to spare gets more of them through with 2: each thread
    /// has its own connections and its share of the connection limits, and a request keeps one
    /// thread from start to end (the calling transfer thread, else the one with the fewest in
    /// flight; with `.transferThread` delivery, a group's members the group's, within that
    /// thread's share of the limits). Requests that use cookies all run on the first thread,
    /// which owns the jar, within its share of the limits; with `cookies.enabled` the agent runs
    /// one thread, whatever this says, so that it has the whole limits. With `.transferThread`
    /// delivery a request's callbacks run on its thread, in order, and those of requests on
    /// different threads may run at the same time.
    public var transferThreads: Int = 1
    /// Limit for a whole request unless it sets its own. HLNetworking's 15 s.
    public var requestTimeout: Duration
    /// Limit for establishing a connection (DNS, TCP and TLS).
    public var connectTimeout: Duration
    public var followRedirects: Bool
    public var maxRedirects: Int
    /// Follow a redirect from https to plain http. Off by default: such a redirect fails with
    /// `insecureRedirect`, since whatever the request carries would then cross the network in clear.
    public var allowInsecureRedirects: Bool
    /// Headers (besides Authorization, Proxy-Authorization and Cookie) that are credentials: they
    /// are dropped when a redirect leads to another origin. The redaction policy's default header
    /// names, so what logs hide and what redirects drop agree.
    public var secretHeaderNames: [String]
    /// Where closures and delegate methods run, unless `callbackDelivery` is `.transferThread`.
    public var callbackQueue: DispatchQueue
    /// The callback queue (the default) or the transfer thread, which saves two thread hand-overs
    /// per request for callbacks that return quickly.
    public var callbackDelivery: CallbackDelivery = .callbackQueue
    public var tips: ErrorTips
    /// Response bodies larger than this fail with `responseTooLarge` (a download's file is not
    /// limited by it).
    public var maxResponseBytes: Int
    /// Response bodies larger than this go to an unlinked temporary file in `temporaryDirectory`
    /// as they arrive, and `Response.body` is mapped from it, so a large body never sits in the
    /// process's memory. Nil keeps every body in memory.
    public var memoryBodyLimit: Int? = 16 << 20
    public var temporaryDirectory: String = NSTemporaryDirectory()
    /// HTTP/1.1, HTTP/2 (negotiated) or HTTP/2 with prior knowledge; `automatic` uses HTTP/2 over
    /// TLS when the server offers it.
    public var httpVersion: HTTPVersionPreference = .automatic
    public var cookies = CookieSettings()
    /// The proxies exchanges go through: by default those the environment names when the config
    /// is made (`http_proxy`, `https_proxy`, `all_proxy`, `no_proxy`; README, "Proxies").
    public var proxies = ProxySettings.ofProcess()
    /// Bodies up to this size are kept whole in debug messages; larger ones as a preview.
    public var debugBodyLimit: Int
    public var tls: TLSSettings
    /// Status codes that count as success for requests that do not set their own.
    public var acceptableStatusCodes: Range<Int> = 200..<300

    // The middle layer: each feature is off until set, and costs nothing while off.

    /// Consulted for every request that names no base URL of its own, when it starts: change what
    /// it returns to move requests not yet started to another server (dynamic domain).
    public var baseURLProvider: (@Sendable () -> String)?
    public var urlFilters: [any URLFilter] = []
    /// Signers by name; a request names the one it needs in `Request.signer`.
    public var signers: [String: any RequestSigner] = [:]
    public var plugins: [any AgentPlugin] = []
    /// How many times plugins may replay one request.
    public var maxReplays = 1
    public var cache = CacheSettings()
    /// Applies to every request without a policy of its own; nil means no retries.
    public var retry: RetryPolicy?
    public var mocks = MockSettings()
    public var duplicates = DuplicateSettings()
    public var reachability = ReachabilitySettings()
    /// Checks responses of requests that have no business validator of their own, after their
    /// status, content-type and JSON-shape checks.
    public var businessValidator: BusinessValidator?

    public init(
        baseURL: String = "",
        cdnURL: String? = nil,
        apiVersion: String? = nil,
        defaultHeaders: HTTPHeaders = [:],
        defaultParams: Parameters = [:],
        userAgent: String = "Curlew/\(CurlewVersion.current)",
        maxConnectionsPerHost: Int = 5,
        maxTotalConnections: Int = 0,
        requestTimeout: Duration = .seconds(15),
        connectTimeout: Duration = .seconds(10),
        followRedirects: Bool = true,
        maxRedirects: Int = 10,
        allowInsecureRedirects: Bool = false,
        secretHeaderNames: [String] = RedactionPolicy.defaultHeaderNames.sorted(),
        callbackQueue: DispatchQueue = DispatchQueue(label: "curlew.callbacks"),
        tips: ErrorTips = ErrorTips(),
        maxResponseBytes: Int = 256 << 20,
        debugBodyLimit: Int = 1 << 20,
        tls: TLSSettings = TLSSettings()
    ) {
        self.baseURL = baseURL
        self.cdnURL = cdnURL
        self.apiVersion = apiVersion
        self.defaultHeaders = defaultHeaders
        self.defaultParams = defaultParams
        self.userAgent = userAgent
        self.maxConnectionsPerHost = maxConnectionsPerHost
        self.maxTotalConnections = maxTotalConnections
        self.requestTimeout = requestTimeout
        self.connectTimeout = connectTimeout
        self.followRedirects = followRedirects
        self.maxRedirects = maxRedirects
        self.allowInsecureRedirects = allowInsecureRedirects
        self.secretHeaderNames = secretHeaderNames
        self.callbackQueue = callbackQueue
        self.tips = tips
        self.maxResponseBytes = maxResponseBytes
        self.debugBodyLimit = debugBodyLimit
        self.tls = tls
    }
}

/// Certificate checks, global or per request (HLNetworking's `HLSecurityPolicyConfig`).
public struct TLSSettings: Sendable, Equatable {
    /// Accept certificates that do not verify (self-signed, expired, another host's). For local
    /// development only; pins are still checked.
    public var allowInvalidCertificates: Bool
    /// Check that the certificate names the host asked for.
    public var validatesDomainName: Bool
    /// PEM bundle of trusted authorities used instead of the system's.
    public var certificateAuthorityFile: String?
    public var pinning: SSLPinningMode
    /// A client certificate (PEM) and its private key, for mutual TLS.
    public var clientCertificate: String?
    public var clientKey: String?

    public init(allowInvalidCertificates: Bool = false, validatesDomainName: Bool = true, certificateAuthorityFile: String? = nil,
                pinning: SSLPinningMode = .none, clientCertificate: String? = nil, clientKey: String? = nil) {
        self.allowInvalidCertificates = allowInvalidCertificates
        self.validatesDomainName = validatesDomainName
        self.certificateAuthorityFile = certificateAuthorityFile
        self.pinning = pinning
        self.clientCertificate = clientCertificate
        self.clientKey = clientKey
    }

    /// The files these settings name: the authorities, the client certificate and key, and the
    /// pinned certificates (a `sha256//` pin names none).
    public var files: [String] {
        let pinned: [String] = switch pinning {
        case .none: []
        case .publicKey(let pins): pins.filter { !$0.hasPrefix("sha256//") }
        case .certificate(let paths): paths
        }
        return [certificateAuthorityFile, clientCertificate, clientKey].compactMap { $0 } + pinned
    }

    /// These settings with every field `overrides` sets replaced.
    public func applying(_ overrides: TLSOverrides) -> TLSSettings {
        var settings = self
        if let value = overrides.allowInvalidCertificates { settings.allowInvalidCertificates = value }
        if let value = overrides.validatesDomainName { settings.validatesDomainName = value }
        if let value = overrides.certificateAuthorityFile { settings.certificateAuthorityFile = value }
        if let value = overrides.pinning { settings.pinning = value }
        if let value = overrides.clientCertificate { settings.clientCertificate = value }
        if let value = overrides.clientKey { settings.clientKey = value }
        return settings
    }
}

/// How a server's identity is pinned (HLNetworking's `SSLPinningMode`).
public enum SSLPinningMode: Sendable, Equatable {
    case none
    /// The server's public key must be one of these: `sha256//BASE64` pins (as curl writes them and
    /// the debug message shows them) or paths of PEM or DER certificates whose key is pinned.
    case publicKey([String])
    /// Trust exactly these certificates (PEM files): they replace every authority, and the
    /// server's chain must lead to one of them; a pinned server certificate itself will do.
    case certificate([String])
}

/// Per-request changes to the config's `TLSSettings`, field by field: nil keeps the config's.
public struct TLSOverrides: Sendable, Equatable {
    public var allowInvalidCertificates: Bool?
    public var validatesDomainName: Bool?
    public var certificateAuthorityFile: String?
    public var pinning: SSLPinningMode?
    public var clientCertificate: String?
    public var clientKey: String?

    public init(allowInvalidCertificates: Bool? = nil, validatesDomainName: Bool? = nil, certificateAuthorityFile: String? = nil,
                pinning: SSLPinningMode? = nil, clientCertificate: String? = nil, clientKey: String? = nil) {
        self.allowInvalidCertificates = allowInvalidCertificates
        self.validatesDomainName = validatesDomainName
        self.certificateAuthorityFile = certificateAuthorityFile
        self.pinning = pinning
        self.clientCertificate = clientCertificate
        self.clientKey = clientKey
    }
}

/// Curlew's own version.
public enum CurlewVersion {
    public static let current = "0.1.0"
}
