/// Why a request failed. `kind` is for code to switch on; `message` says what happened in words.
public struct RequestError: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable, Codable {
        // Refused before sending.
        case invalidURL
        case invalidHeader
        case invalidBody
        /// A chain step names a `{{variable}}` no earlier step captured.
        case unresolvedVariable
        // From the network.
        case couldNotResolveHost
        case couldNotConnect
        case connectTimeout
        case totalTimeout
        case tlsFailure
        case tooManyRedirects
        case responseTooLarge
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

    public var description: String {
        code.map { "\(kind.rawValue): \(message) (code \($0))" } ?? "\(kind.rawValue): \(message)"
    }

    /// True for failures that mean the network path itself is unusable.
    public var isUnreachable: Bool {
        [.couldNotResolveHost, .couldNotConnect, .connectTimeout].contains(kind)
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
