import CurlewTransport
import Foundation
import Foundation

/// Where a request is in its life. Every request ends in exactly one terminal state.
public enum RequestState: String, Sendable, Equatable, Codable {
    case created
    /// Accepted by the agent, waiting for the transport (or a connection) to take it.
    case pending
    case inFlight
    case succeeded
    case failed
    case cancelled

    public var isTerminal: Bool {
        self == .succeeded || self == .failed || self == .cancelled
    }
}

/// Byte counts of a running request; totals are 0 while unknown.
public typealias RequestProgress = TransferProgress

/// Where a request's time went, in microseconds; a phase that did not happen is nil.
public typealias TimingBreakdown = TransferTimings

/// Facts about the connection a request used (protocol version, addresses, reuse, bytes, TLS).
public typealias ConnectionInfo = ConnectionFacts

/// What TLS negotiated: version, cipher, ALPN and the server's certificates.
public typealias TLSInfo = TLSFacts

/// The proxies an agent's exchanges go through (`NetworkConfig.proxies`).
public typealias ProxySettings = ProxyEnvironment

/// One certificate of a server's chain, with its public-key pin.
public typealias CertificateInfo = CertificateFacts

/// The identity of a request as observers see it.
public struct RequestInfo: Sendable, Equatable {
    public var id: UInt64
    public var name: String?
    public var method: String
    /// The composed URL; for a request not composed (refused, waiting), its path or custom URL.
    /// Its password is hidden, and the credentials of the `Authorization` fields the request
    /// sends, its own and the config's default ones, where the URL repeats them
    /// (`RedactionPolicy.hidingPasswords(in:sentWith:)`): shown before the exchange's record,
    /// which has its own redaction, and in a row in flight, which has no headers yet.
    public var url: String
    public var groupID: UInt64?
    public var step: Int?
    public var startedAt: Date
    /// Which try this exchange is, from 1; retries and replays of a request are exchanges of their own.
    public var attempt: Int
    /// For an exchange after the first, the id of the request's first exchange (its handle's id).
    public var firstExchangeID: UInt64?

    public init(id: UInt64, name: String?, method: String, url: String, groupID: UInt64? = nil, step: Int? = nil, startedAt: Date,
                attempt: Int = 1, firstExchangeID: UInt64? = nil) {
        self.attempt = attempt
        self.firstExchangeID = firstExchangeID
        self.id = id
        self.name = name
        self.method = method
        self.url = url
        self.groupID = groupID
        self.step = step
        self.startedAt = startedAt
    }
}
