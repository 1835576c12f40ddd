/// The options a plain exchange (a GET with no body, upload, download or cookies) leaves on an
/// easy handle, besides the ones that differ between exchanges (the context pointers, set for
/// every one; the URL and the header list, set when they change: `EasyHandle.setURL`,
/// `EasyHandle.setHeaders`).
///
/// An easy handle back from a plain exchange keeps its options; the next exchange of the same
/// shape sets only its own, skipping `curl_easy_reset` and about a dozen `setopt` calls (libcurl
/// keeps options across transfers until they are changed or reset). Anything else starts from
/// a reset handle.
///
/// A class: the shape is read for every exchange, and a reference costs one retain where a copy
/// of its strings and TLS options costs a dozen.
final class HandleShape {
    private let capturesWire: Bool
    private let totalTimeout: Duration?
    private let connectTimeout: Duration?
    private let maxResponseBytes: Int
    private let tls: TLSOptions
    private let tlsIsDefault: Bool
    private let protocolPreference: TransferRequest.ProtocolPreference
    private let waitsForMultiplexing: Bool
    private let proxy: String

    /// The shape `request` leaves, sent through `proxy` (empty for none); nil when it is not plain.
    init?(_ request: TransferRequest, proxy: String) {
        guard Self.isPlain(request) else { return nil }
        capturesWire = request.capturesWire
        totalTimeout = request.totalTimeout
        connectTimeout = request.connectTimeout
        maxResponseBytes = request.maxResponseBytes
        tls = request.tls
        tlsIsDefault = request.tls.isDefault
        protocolPreference = request.protocolPreference
        waitsForMultiplexing = Transfer.waitsForMultiplexing(request)
        self.proxy = proxy
    }

    /// Whether `request` is plain and needs exactly these options: compared in place, since this
    /// runs for every exchange.
    func matches(_ request: borrowing TransferRequest, proxy: String) -> Bool {
        Self.isPlain(request) && capturesWire == request.capturesWire && self.proxy == proxy
            && totalTimeout == request.totalTimeout && connectTimeout == request.connectTimeout
            && maxResponseBytes == request.maxResponseBytes && protocolPreference == request.protocolPreference
            && (tlsIsDefault ? request.tls.isDefault : tls == request.tls) && waitsForMultiplexing == Transfer.waitsForMultiplexing(request)
    }

    /// A GET with no body, upload, download or cookies.
    static func isPlain(_ request: borrowing TransferRequest) -> Bool {
        guard request.method == "GET", !request.usesCookies, case .none = request.body, case .none = request.upload,
              case .none = request.download else { return false }
        return true
    }
}
