import Foundation

/// One HTTP exchange as the transport sees it: everything needed to put it on the wire.
///
/// The agent composes this from its richer `Request`; nothing here is specific to libcurl.
public struct TransferRequest: Sendable {
    /// HTTP protocol preference. `automatic` negotiates HTTP/2 over TLS and uses HTTP/1.1 otherwise.
    public enum ProtocolPreference: String, Sendable, Equatable, CaseIterable {
        case automatic
        case http1_1 = "http1.1"
        /// HTTP/2 by ALPN over TLS, and by an `Upgrade: h2c` offer over plain HTTP.
        case http2
        /// HTTP/2 from the first byte, without negotiation (plain HTTP servers that expect it).
        case http2PriorKnowledge = "http2-prior-knowledge"
    }

    public var url: String
    public var method: String
    /// Header fields in the order they are sent. Values must already be validated (no CR/LF).
    public var headers: [(name: String, value: String)]
    public var body: Data?
    /// A body streamed from a file or built as multipart form data; wins over `body`.
    public var upload: UploadSource?
    /// Write a 2xx response's body to a file instead of memory.
    public var download: DownloadTarget?
    /// A body larger than this many bytes goes to an unlinked temporary file in `spillDirectory`
    /// and comes back mapped from it, so it never sits in the process's memory; nil keeps every
    /// body in memory.
    public var spillThreshold: Int?
    public var spillDirectory: String
    /// Send and keep cookies with the engine's shared cookie jar.
    public var usesCookies: Bool
    /// Report the response body as it arrives (`TransferEvent.chunk`), besides keeping it; a 2xx
    /// `text/event-stream` body is reported only, not kept, since it may never end.
    public var streamsBody: Bool
    /// Limit for the whole exchange; `nil` means none.
    public var totalTimeout: Duration?
    /// Limit for establishing the connection (DNS, TCP and TLS); `nil` means none.
    public var connectTimeout: Duration?
    public var followRedirects: Bool
    public var maxRedirects: Int
    /// Follow a redirect from https to plain http. Off, such a redirect fails with `insecureRedirect`.
    public var allowsInsecureRedirects: Bool
    /// Headers dropped when a redirect leads to another origin (scheme, host or port): credentials
    /// that were meant for the first server only. Compared case-insensitively.
    public var originBoundHeaderNames: [String]
    /// A response body larger than this fails with `responseTooLarge` instead of exhausting memory
    /// or disk. A download's file is not limited by it.
    public var maxResponseBytes: Int
    /// How many request-body bytes the wire capture keeps (the full size is always counted).
    public var requestCaptureLimit: Int
    public var tls: TLSOptions
    public var protocolPreference: ProtocolPreference
    /// Emit `progress` events: the transfer loop samples the exchange at most every 100 ms once it
    /// has run that long.
    public var reportsProgress: Bool
    /// Record the request as sent (head and body bytes, and the send phase's end). Off saves
    /// libcurl's verbose mode, which formats its informational text for every exchange; the
    /// result then has an empty capture, counts bytes sent from libcurl's totals, and a send
    /// phase of zero.
    public var capturesWire: Bool
    /// Measure the exchange: its timings, addresses, byte counts and connection reuse. Off, the
    /// result has zero timings and, of its connection facts, only the HTTP version, the effective
    /// URL, the redirect count and TLS (`TransferResult.measured` is false); an exchange libcurl
    /// failed, cancelled or refused is measured all the same (its error is classified by them).
    public var measuresExchange: Bool

    /// Inlinable: the agent makes one per exchange, and across modules a call of this size copied
    /// every argument once more.
    @inlinable
    public init(
        url: String,
        method: String = "GET",
        headers: [(name: String, value: String)] = [],
        body: Data? = nil,
        upload: UploadSource? = nil,
        download: DownloadTarget? = nil,
        spillThreshold: Int? = nil,
        spillDirectory: String = NSTemporaryDirectory(),
        usesCookies: Bool = false,
        streamsBody: Bool = false,
        totalTimeout: Duration? = .seconds(15),
        connectTimeout: Duration? = .seconds(10),
        followRedirects: Bool = true,
        maxRedirects: Int = 10,
        allowsInsecureRedirects: Bool = false,
        originBoundHeaderNames: [String] = TransferRequest.credentialHeaderNames,
        maxResponseBytes: Int = 256 << 20,
        requestCaptureLimit: Int = 1 << 20,
        tls: TLSOptions = TLSOptions(),
        protocolPreference: ProtocolPreference = .automatic,
        reportsProgress: Bool = true,
        capturesWire: Bool = true,
        measuresExchange: Bool = true
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.upload = upload
        self.download = download
        self.spillThreshold = spillThreshold
        self.spillDirectory = spillDirectory
        self.usesCookies = usesCookies
        self.streamsBody = streamsBody
        self.totalTimeout = totalTimeout
        self.connectTimeout = connectTimeout
        self.followRedirects = followRedirects
        self.maxRedirects = maxRedirects
        self.allowsInsecureRedirects = allowsInsecureRedirects
        self.originBoundHeaderNames = originBoundHeaderNames
        self.maxResponseBytes = maxResponseBytes
        self.requestCaptureLimit = requestCaptureLimit
        self.tls = tls
        self.protocolPreference = protocolPreference
        self.reportsProgress = reportsProgress
        self.capturesWire = capturesWire
        self.measuresExchange = measuresExchange
    }
}

extension TransferRequest {
    /// The headers HTTP itself defines as credentials; always origin-bound.
    public static let credentialHeaderNames = ["Authorization", "Proxy-Authorization", "Cookie"]
}

/// Certificate checks for HTTPS exchanges.
public struct TLSOptions: Sendable, Equatable {
    /// Verify the server's certificate chain. Turning this off is for local development only.
    public var verifyPeer: Bool
    /// Verify that the certificate names the host that was asked for.
    public var verifyHost: Bool
    /// A PEM bundle of trusted certificate authorities replacing the system's.
    public var caFile: String?
    /// A public-key pin: a PEM/DER file path or `sha256//BASE64` hashes separated by `;`.
    public var pinnedPublicKey: String?
    /// PEM certificates that are the only ones trusted (certificate pinning): they replace every
    /// authority, and a chain must lead to one of them (a pinned server certificate itself will do).
    public var trustedCertificates: Data?
    /// A client certificate (PEM) and its key for mutual TLS.
    public var clientCertificate: String?
    public var clientKey: String?

    public init(verifyPeer: Bool = true, verifyHost: Bool = true, caFile: String? = nil, pinnedPublicKey: String? = nil,
                trustedCertificates: Data? = nil, clientCertificate: String? = nil, clientKey: String? = nil) {
        self.verifyPeer = verifyPeer
        self.verifyHost = verifyHost
        self.caFile = caFile
        self.pinnedPublicKey = pinnedPublicKey
        self.trustedCertificates = trustedCertificates
        self.clientCertificate = clientCertificate
        self.clientKey = clientKey
    }

    /// Whether these are the options of a configuration that sets none: both checks on, no
    /// file, pin or certificate. Settled without the comparison of every field `==` makes.
    var isDefault: Bool {
        guard verifyPeer, verifyHost, case .none = caFile, case .none = pinnedPublicKey, case .none = trustedCertificates,
              case .none = clientCertificate, case .none = clientKey else { return false }
        return true
    }
}
