/// The options a plain exchange (a GET with no body, upload, download or cookies) leaves on an
/// easy handle, besides the ones set for every exchange (URL, context pointers, headers).
///
/// An easy handle back from a plain exchange keeps its options; the next exchange of the same
/// shape sets only its own, skipping `curl_easy_reset` and about a dozen `setopt` calls (libcurl
/// keeps options across transfers until they are changed or reset). Anything else starts from
/// a reset handle.
struct HandleShape: Equatable {
    let capturesWire: Bool
    let reportsProgress: Bool
    let totalTimeoutMilliseconds: Int?
    let connectTimeoutMilliseconds: Int?
    let maxResponseBytes: Int
    let tls: TLSOptions
    let protocolPreference: TransferRequest.ProtocolPreference
    let waitsForMultiplexing: Bool

    /// Nil when the request is not plain.
    init?(_ request: TransferRequest) {
        guard request.method == "GET", request.body == nil, request.upload == nil, request.download == nil, !request.usesCookies else { return nil }
        capturesWire = request.capturesWire
        reportsProgress = request.reportsProgress
        totalTimeoutMilliseconds = request.totalTimeout.map(Transfer.milliseconds)
        connectTimeoutMilliseconds = request.connectTimeout.map(Transfer.milliseconds)
        maxResponseBytes = request.maxResponseBytes
        tls = request.tls
        protocolPreference = request.protocolPreference
        waitsForMultiplexing = Transfer.waitsForMultiplexing(request)
    }
}
