import Foundation

/// Byte counts of a running exchange. Totals are 0 while unknown.
public struct TransferProgress: Sendable, Equatable {
    public var bytesSent: Int64
    public var totalBytesToSend: Int64
    public var bytesReceived: Int64
    public var totalBytesToReceive: Int64

    public init(bytesSent: Int64, totalBytesToSend: Int64, bytesReceived: Int64, totalBytesToReceive: Int64) {
        self.bytesSent = bytesSent
        self.totalBytesToSend = totalBytesToSend
        self.bytesReceived = bytesReceived
        self.totalBytesToReceive = totalBytesToReceive
    }
}

/// What the engine reports about an exchange. Per exchange: at most one `started`, any number of
/// `progress`, then exactly one `finished`, in that order.
public enum TransferEvent: Sendable {
    /// libcurl has taken the exchange; it is now in flight.
    case started(id: UInt64)
    case progress(id: UInt64, TransferProgress)
    /// A piece of the response body as it arrived, for exchanges with `streamsBody` (not for
    /// redirect responses), with the status and content type of the response it belongs to.
    case chunk(id: UInt64, status: Int, contentType: String?, Data)
    case finished(TransferResult)
}
