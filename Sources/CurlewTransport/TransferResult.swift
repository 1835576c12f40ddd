import Foundation

/// Facts about the connection an exchange used.
public struct ConnectionFacts: Sendable, Equatable, Codable {
    /// "1.0", "1.1", "2" or "3"; empty when no response arrived.
    public var httpVersion: String
    public var remoteIP: String
    public var remotePort: Int
    public var localIP: String
    public var localPort: Int
    /// True when the exchange ran on a connection kept alive from an earlier one.
    public var reused: Bool
    /// Connections libcurl opened for this exchange (0 when reused).
    public var newConnections: Int
    public var redirectCount: Int
    /// The URL of the last hop, after redirects.
    public var effectiveURL: String
    /// Request bytes written: headers plus body.
    public var bytesSent: Int64
    /// Response bytes read: headers plus body.
    public var bytesReceived: Int64
    /// Exchanges this connection has carried, this one included; nil when not known (a reused
    /// connection whose earlier exchanges were not measured: see `TransferRequest.measuresExchange`).
    public var requestsOnConnection: Int?
    /// What TLS negotiated; nil for plain HTTP.
    public var tls: TLSFacts?

    public init(
        httpVersion: String = "", remoteIP: String = "", remotePort: Int = 0, localIP: String = "",
        localPort: Int = 0, reused: Bool = false, newConnections: Int = 0, redirectCount: Int = 0,
        effectiveURL: String = "", bytesSent: Int64 = 0, bytesReceived: Int64 = 0, requestsOnConnection: Int? = nil, tls: TLSFacts? = nil
    ) {
        self.requestsOnConnection = requestsOnConnection
        self.tls = tls
        self.httpVersion = httpVersion
        self.remoteIP = remoteIP
        self.remotePort = remotePort
        self.localIP = localIP
        self.localPort = localPort
        self.reused = reused
        self.newConnections = newConnections
        self.redirectCount = redirectCount
        self.effectiveURL = effectiveURL
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
    }
}

/// Everything the transport saw of one finished exchange, successful or not.
///
/// The request side is what really went over the wire (the final hop when redirects were followed);
/// the response side is the final response. A failed exchange keeps whatever was captured before
/// the failure.
///
/// Immutable, and a reference: it is handed from the transfer thread through the agent to the
/// callbacks and observers without copying its fields.
public final class TransferResult: Sendable {
    public let id: UInt64
    public let error: TransferError?
    /// Request line and header block exactly as written, CRLFs included.
    public let requestHead: [UInt8]
    /// The first `requestCaptureLimit` body bytes as written.
    public let requestBody: Data
    /// Full number of body bytes written.
    public let requestBodySize: Int64
    /// The status line of the final response, without CRLF; empty when none arrived.
    public let statusLine: String
    public let statusCode: Int
    public let responseHeaders: ReceivedHeaders
    /// In memory, or mapped from an unlinked temporary file when it was larger than the request's
    /// `spillThreshold` (`responseBodySpilled`); empty when it went to a download's file.
    public let responseBody: Data
    /// The body went to a temporary file and `responseBody` is mapped from it.
    public let responseBodySpilled: Bool
    /// The size of an event stream's body, which was reported as chunks and not kept
    /// (`responseBody` is then empty); 0 for any other body.
    public let discardedBodySize: Int64
    /// What became of the request's download, when it had one and a 2xx body started.
    public let download: DownloadOutcome?
    public let connection: ConnectionFacts
    public let timings: TransferTimings
    /// Whether `timings` and `connection` were measured in full; false for an exchange whose
    /// request did not ask for it and that libcurl did not fail (`TransferRequest.measuresExchange`).
    public let measured: Bool

    init(id: UInt64, error: TransferError?, requestHead: [UInt8], requestBody: Data, requestBodySize: Int64, statusLine: String,
         statusCode: Int, responseHeaders: ReceivedHeaders, responseBody: Data, responseBodySpilled: Bool = false,
         discardedBodySize: Int64 = 0, download: DownloadOutcome? = nil, connection: ConnectionFacts, timings: TransferTimings,
         measured: Bool = true) {
        self.id = id
        self.error = error
        self.requestHead = requestHead
        self.requestBody = requestBody
        self.requestBodySize = requestBodySize
        self.statusLine = statusLine
        self.statusCode = statusCode
        self.responseHeaders = responseHeaders
        self.responseBody = responseBody
        self.responseBodySpilled = responseBodySpilled
        self.discardedBodySize = discardedBodySize
        self.download = download
        self.connection = connection
        self.timings = timings
        self.measured = measured
    }

    /// The value of the first response header with this name, compared case-insensitively.
    public func responseHeader(_ name: String) -> String? {
        responseHeaders.first(name)
    }
}
