import CurlewTransport

/// Why a request failed. `kind` is for code to switch on; `message` says what happened in words.
public struct RequestError: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable, Codable, CaseIterable {
        // Refused before sending.
        case invalidURL
        /// The method is not an HTTP token.
        case invalidMethod
        case invalidHeader
        case invalidBody
        /// The TLS settings cannot be applied (a pin that is neither a pin nor a certificate).
        case invalidTLSSettings
        /// A chain step names a `{{variable}}` no earlier step captured.
        case unresolvedVariable
        // From the network.
        case couldNotResolveHost
        case couldNotConnect
        /// A proxy would not carry the request (its answer to CONNECT was not a success, or a
        /// SOCKS proxy's handshake failed).
        case proxyRefused
        /// No connection to the proxy came up; nothing is known of the server.
        case proxyUnreachable
        /// The TLS connection to an https proxy failed; the server was never asked.
        case proxyTLSFailure
        case connectTimeout
        case totalTimeout
        case tlsFailure
        /// The server's public key is not one of the pinned ones; no response is delivered.
        case pinMismatch
        /// The server's certificate does not lead to a trusted authority (self-signed, unknown issuer).
        case untrustedCertificate
        /// The server's certificate does not name the host asked for.
        case hostnameMismatch
        /// The server's certificate has expired or is not valid yet.
        case certificateExpired
        case tooManyRedirects
        /// A redirect from HTTPS to plain HTTP; allow it with `allowInsecureRedirects`.
        case insecureRedirect
        /// A redirect to a URL that is not http or https.
        case redirectRefused
        case responseTooLarge
        /// A local file could not be read (an upload, a form's file part) or written (a download).
        case localFile
        /// A resumed download got a partial answer that does not continue where it stopped.
        case rangeMismatch
        case connectionReset
        case incompleteResponse
        case emptyResponse
        case invalidResponse
        case cancelled
        // From the answer.
        case unacceptableStatus
        case responseSerialization
        /// A chain step's capture found nothing at its JSON path, header or status.
        case captureFailed
        /// A nested group did not succeed.
        case groupFailed
        /// The body does not have the declared JSON shape; the message names the path.
        case validationFailed
        /// The business validator found a failure in a successful response; `code` is its code.
        case businessFailure
        /// The response's content type is not the one required.
        case unexpectedContentType
        /// The reformer threw.
        case reformFailed
        /// An identical request is in flight and the duplicate policy rejects this one.
        case tooFrequent
        /// The reachability pre-check found the host unreachable.
        case notReachable
        /// A mock fixture could not be served (its body file is unreadable).
        case mockFailed
        /// The request's signer is not registered, or it threw.
        case signingFailed
        /// Any other libcurl failure; `code` is libcurl's code.
        case other
    }

    public var kind: Kind
    public var message: String
    /// The HTTP status for `unacceptableStatus`, libcurl's code for network failures, else nil.
    public var code: Int?

    public init(_ kind: Kind, _ message: String, code: Int? = nil) {
        self.kind = kind
        self.message = message
        self.code = code
    }

    /// The agent's reading of a transport failure. The switch is exhaustive, so a kind added to
    /// the transport does not compile until it is mapped here.
    public init(_ failure: TransferError) {
        let kind: Kind = switch failure.kind {
        case .invalidURL: .invalidURL
        case .couldNotResolveHost: .couldNotResolveHost
        case .couldNotConnect: .couldNotConnect
        case .proxyRefused: .proxyRefused
        case .proxyUnreachable: .proxyUnreachable
        case .proxyTLSFailure: .proxyTLSFailure
        case .connectTimeout: .connectTimeout
        case .totalTimeout: .totalTimeout
        case .tlsFailure: .tlsFailure
        case .pinMismatch: .pinMismatch
        case .untrustedCertificate: .untrustedCertificate
        case .hostnameMismatch: .hostnameMismatch
        case .certificateExpired: .certificateExpired
        case .tooManyRedirects: .tooManyRedirects
        case .insecureRedirect: .insecureRedirect
        case .redirectRefused: .redirectRefused
        case .responseTooLarge: .responseTooLarge
        case .localFile: .localFile
        case .rangeMismatch: .rangeMismatch
        case .cancelled: .cancelled
        case .connectionReset: .connectionReset
        case .incompleteResponse: .incompleteResponse
        case .emptyResponse: .emptyResponse
        case .invalidResponse: .invalidResponse
        case .other: .other
        }
        self.init(kind, failure.message, code: failure.code == 0 ? nil : failure.code)
    }

    public var description: String {
        code.map { "\(kind.rawValue): \(message) (code \($0))" } ?? "\(kind.rawValue): \(message)"
    }

    /// True for failures found before anything was sent: a request that could not be built,
    /// signed or served from a mock, or that a rate limit or the reachability check held back.
    public var cameBeforeSending: Bool {
        [.invalidURL, .invalidMethod, .invalidHeader, .invalidBody, .invalidTLSSettings, .unresolvedVariable,
         .tooFrequent, .notReachable, .signingFailed, .mockFailed].contains(kind)
    }

    /// True for failures where an answer came and a check declared for it failed: its status, a
    /// validation, a capture, its content type, the business rule, its serializer or a reformer.
    /// The others mean no answer to judge (the request could not be built or sent, the
    /// connection failed, the answer was cut).
    public var judgesAnAnswer: Bool {
        [.unacceptableStatus, .captureFailed, .validationFailed, .businessFailure, .unexpectedContentType, .responseSerialization,
         .reformFailed].contains(kind)
    }

    /// True for failures that mean the network path itself is unusable.
    public var isUnreachable: Bool {
        [.couldNotResolveHost, .couldNotConnect, .proxyUnreachable, .connectTimeout, .notReachable].contains(kind)
    }
}

/// A failed request as callers receive it: the error, the response when one arrived (a 500's body
/// is often the most useful part), and the config's user-facing tip.
public struct RequestFailure: Error, Sendable, CustomStringConvertible {
    public var requestID: UInt64
    public var error: RequestError
    public var response: Response?
    public var tip: String

    public var description: String { error.description }
}
