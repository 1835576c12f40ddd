import CCurl
import Foundation

/// The live state of one exchange while libcurl runs it: the capture buffers its callbacks fill and
/// the resources (body buffer, upload and download files) that must outlive the transfer. (The
/// header list belongs to the easy handle, which may keep it for the next exchange.)
///
/// Used only on the transfer thread: by libcurl's callbacks (which never run inside one another)
/// and by the loop between its calls into libcurl. No two accesses to a property can overlap, so
/// the properties go without the runtime's exclusivity checks, which cost about 2,000
/// instructions per exchange here.
final class Transfer {
    let id: UInt64
    let handle: EasyHandle
    let submittedAt: UInt64
    /// Whether the loop samples the exchange's progress (`sampleProgress`), fixed for all its hops.
    let reportsProgress: Bool
    @exclusivity(unchecked) private(set) var addedAt: UInt64 = 0
    /// The hop on the wire now: the request as composed, or where redirects led it. Replaced only
    /// between hops (`beginNextHop`), never while `request` is lent out: the borrow it yields
    /// would outlive the object.
    @exclusivity(unchecked) private var held: PendingTransfer
    /// The request of the hop on the wire now, read in place.
    var request: TransferRequest {
        _read { yield held.request }
    }
    /// When the current hop was handed to libcurl; `addedAt` for the first.
    @exclusivity(unchecked) private var hopStartedAt: UInt64 = 0
    /// Redirects followed so far, and what the hops before the current one sent, received and opened.
    @exclusivity(unchecked) private var hops = 0
    @exclusivity(unchecked) private var earlierHopsBytesSent: Int64 = 0
    @exclusivity(unchecked) private var earlierHopsBytesReceived: Int64 = 0
    @exclusivity(unchecked) private var earlierHopsNewConnections = 0
    /// The last hop that went out and was answered (a redirect): the result of a hop after it
    /// that failed before sending anything (its target refused the connection) shows what went
    /// out, and its error names the redirect.
    @exclusivity(unchecked) private var answeredHop: AnsweredHop?
    private let maxResponseBytes: Int
    private let requestCaptureLimit: Int
    private let connectTimeoutApplied: Bool
    /// The whole exchange's limit, redirects included.
    private let totalTimeout: Duration?
    private let outbox: EventOutbox
    /// The engine's cookie jar, for exchanges that use cookies.
    private let cookieShare: UnsafeMutableRawPointer?
    private let proxies: ProxyEnvironment

    @exclusivity(unchecked) private var bodyBuffer: UnsafeMutableRawBufferPointer?
    /// The file a streamed upload reads from, or the multipart body, for the current hop.
    @exclusivity(unchecked) private var uploadFile: UploadFile?
    @exclusivity(unchecked) private var form: MultipartBody?
    /// Where a 2xx body goes when the request is a download.
    @exclusivity(unchecked) private var download: DownloadWriter?
    /// The temporary file a body too large for memory went to.
    @exclusivity(unchecked) private var spilledBody: BodyFile?
    /// The status and content type the current response's chunks are reported with; nil while
    /// its body is not streamed (no streaming asked, or a redirect's body).
    @exclusivity(unchecked) private var chunkLabel: (status: Int, contentType: String?)?
    /// An event stream's body is reported as it arrives but not kept: it may run for days.
    @exclusivity(unchecked) private var discardsBody = false
    /// What TLS negotiated for the current hop, read once when its first response arrives.
    @exclusivity(unchecked) private var tlsFacts: TLSFacts?
    @exclusivity(unchecked) private var tlsRead = false
    /// Whether the current response's body has been routed (to memory, a spill file or the download).
    @exclusivity(unchecked) private var bodyRouted = false
    /// A failure Curlew decided itself (a local file, a range mismatch), which wins over libcurl's code.
    @exclusivity(unchecked) private(set) var localFailure: TransferError?

    /// The request's head as written, kept as bytes: one allocation, read without the
    /// exclusivity checks a `Data` makes.
    @exclusivity(unchecked) private var requestHead: [UInt8] = []
    @exclusivity(unchecked) private var requestBody = Data()
    @exclusivity(unchecked) private var requestBodySize: Int64 = 0
    /// Whether the current hop's request has a body (or upload) to send after its head.
    @exclusivity(unchecked) private var hopSendsBody = false
    /// When the hop's request last went out (its head's or body's latest bytes), as stamped on
    /// the transfer thread by the debug callbacks that follow libcurl's writes; with the wire
    /// capture only.
    @exclusivity(unchecked) private var sendStamp = SendStamp()
    /// When the latest status line arrived, on the same clock as `sendStamp`.
    @exclusivity(unchecked) private var statusLineAt: UInt64 = 0
    /// When libcurl had a connection for the hop's request and was about to send it (about its
    /// pre-transfer mark, which it sets once the request head is written), 0 until
    /// then, and how many times it was about to send it in this hop (more than once when it sent
    /// it again: on a fresh connection after a reused one was found closed, a refused HTTP/2
    /// stream, a 417 to `Expect`).
    @exclusivity(unchecked) private var readyAt: UInt64 = 0
    @exclusivity(unchecked) private var requestsSentThisHop = 0
    @exclusivity(unchecked) private var statusLine = ""
    @exclusivity(unchecked) private var responseHeaders = ReceivedHeaders()
    @exclusivity(unchecked) private var responseBody = Data()
    /// The body's bytes so far, wherever they are kept.
    @exclusivity(unchecked) private var receivedBodyBytes = 0
    /// An event stream's body bytes so far, reported as chunks and not kept.
    @exclusivity(unchecked) private var discardedBodyBytes: Int64 = 0
    /// Where an announced body is written instead of `responseBody` (see `BodyBufferPool`).
    @exclusivity(unchecked) private var announcedBody: BodyBufferPool.Buffer?
    private let bodyBuffers: BodyBufferPool
    /// The loop's preemption count for this turn, for `sendStamp`.
    private let preemptions: TurnPreemptions
    @exclusivity(unchecked) private var responseLimitHit = false
    /// The current response's Content-Length, once a field gave it.
    @exclusivity(unchecked) private var announcedLength: Int?
    @exclusivity(unchecked) private var lastProgressAt: UInt64 = 0
    @exclusivity(unchecked) private var lastProgress = TransferProgress(bytesSent: 0, totalBytesToSend: 0, bytesReceived: 0, totalBytesToReceive: 0)

    /// The most bytes libcurl reads from the connection at once, and hands the write callback:
    /// libcurl's default is 16 KiB. A 1 MiB body then takes 16 reads, polls and callbacks
    /// instead of 64, about 15 % of the client's CPU on large bodies. Kept under glibc's 128 KiB
    /// mapping threshold: libcurl allocates the buffer again and again, and at 128 KiB each
    /// allocation became a mapping faulted in page by page (five times the page faults, about
    /// 1.8 µs more per small request).
    static let receiveBufferSize = 64 << 10

    /// Progress is reported at most this often per exchange, so fast exchanges cost no events.
    static let progressInterval: UInt64 = 100_000_000

    init(_ pending: PendingTransfer, handle: EasyHandle, outbox: EventOutbox, bodyBuffers: BodyBufferPool, preemptions: TurnPreemptions,
         cookieShare: UnsafeMutableRawPointer?, proxies: ProxyEnvironment) {
        self.cookieShare = cookieShare
        self.proxies = proxies
        self.id = pending.id
        self.handle = handle
        self.submittedAt = pending.submittedAt
        reportsProgress = pending.request.reportsProgress
        held = pending
        self.maxResponseBytes = pending.request.maxResponseBytes
        self.requestCaptureLimit = pending.request.requestCaptureLimit
        self.connectTimeoutApplied = pending.request.connectTimeout != nil
        self.totalTimeout = pending.request.totalTimeout
        self.outbox = outbox
        self.bodyBuffers = bodyBuffers
        self.preemptions = preemptions
    }

    deinit {
        bodyBuffer?.deallocate()
        if let announcedBody { bodyBuffers.give(announcedBody) }
        _ = download?.finish(succeeded: false)
    }

    /// Applies every option of `request` to the easy handle. Returns libcurl's code on the first
    /// failure. A handle that holds a plain exchange's options of the same shape gets only this
    /// exchange's own (see `HandleShape`).
    func configure() -> CURLcode {
        held.lend { request in
            // Matched rather than compared with nil, which copies each optional first.
            if case .none = request.body, case .none = request.upload { hopSendsBody = false } else { hopSendsBody = true }
            let proxy = proxies.proxy(for: request.url)
            if let shape = handle.shape, shape.matches(request, proxy: proxy) {
                let code = configureExchange(request)
                if code != CURLE_OK { handle.shape = nil }
                return code
            }
            if handle.shape != nil { handle.reset() }
            let code = configureFully(request, proxy: proxy)
            handle.shape = code == CURLE_OK ? HandleShape(request, proxy: proxy) : nil
            return code
        }
    }

    /// What differs between two exchanges of one shape: the URL, the context pointers the
    /// callbacks find this transfer by, and the header list.
    private func configureExchange(_ request: TransferRequest) -> CURLcode {
        let easy = handle.raw
        let context = Unmanaged.passUnretained(self).toOpaque()
        handle.errorBuffer[0] = 0
        var code = CURLE_OK
        func set(_ result: CURLcode) { if code == CURLE_OK { code = result } }
        set(handle.setURL(request.url))
        set(curlew_easy_setopt_pointer(easy, CURLOPT_PRIVATE, context))
        set(curlew_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, context))
        set(curlew_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, context))
        set(curlew_easy_setopt_pointer(easy, CURLOPT_PREREQDATA, context))
        if request.capturesWire {
            set(curlew_easy_setopt_pointer(easy, CURLOPT_DEBUGDATA, context))
        }
        set(applyHeaders(of: request, libcurlSetsContentType: false))
        return code
    }

    private func configureFully(_ request: TransferRequest, proxy: String) -> CURLcode {
        let easy = handle.raw
        let context = Unmanaged.passUnretained(self).toOpaque()
        var code = CURLE_OK
        func set(_ result: CURLcode) { if code == CURLE_OK { code = result } }

        set(handle.setURL(request.url))
        set(curlew_easy_setopt_pointer(easy, CURLOPT_PRIVATE, context))
        set(curlew_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, handle.errorBuffer))
        set(curlew_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1))
        set(curlew_easy_setopt_long(easy, CURLOPT_BUFFERSIZE, Self.receiveBufferSize))
        set(curlew_easy_setopt_data_callback(easy, CURLOPT_WRITEFUNCTION, TransferCallbacks.write))
        set(curlew_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, context))
        set(curlew_easy_setopt_data_callback(easy, CURLOPT_HEADERFUNCTION, TransferCallbacks.header))
        set(curlew_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, context))
        // The stamps that tell how long libcurl held the exchange in its queue (`libcurlHeld`).
        let handleContext = Unmanaged.passUnretained(handle).toOpaque()
        set(curlew_easy_setopt_resolver_start_callback(easy, TransferCallbacks.resolverStart))
        set(curlew_easy_setopt_pointer(easy, CURLOPT_RESOLVER_START_DATA, handleContext))
        set(curlew_easy_setopt_sockopt_callback(easy, TransferCallbacks.socketOpened))
        set(curlew_easy_setopt_pointer(easy, CURLOPT_SOCKOPTDATA, handleContext))
        set(curlew_easy_setopt_prereq_callback(easy, TransferCallbacks.prerequest))
        set(curlew_easy_setopt_pointer(easy, CURLOPT_PREREQDATA, context))
        if request.capturesWire {
            // Verbose mode stays off until each request is about to be sent (`requestWillBeSent`).
            set(curlew_easy_setopt_debug_callback(easy, TransferCallbacks.debug))
            set(curlew_easy_setopt_pointer(easy, CURLOPT_DEBUGDATA, context))
        }

        if request.usesCookies, let cookieShare {
            set(curlew_easy_setopt_pointer(easy, CURLOPT_SHARE, cookieShare))
            set(Self.setString(easy, CURLOPT_COOKIEFILE, ""))
        }
        set(applyMethodAndBody(request))
        set(applyHeaders(of: request, libcurlSetsContentType: form != nil))
        if let target = request.download, download == nil {
            download = DownloadWriter(target: target, url: request.url)
        }

        if let total = request.totalTimeout {
            set(curlew_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, Self.milliseconds(total)))
        }
        if let connect = request.connectTimeout {
            set(curlew_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(connect)))
        }
        // Redirects are followed hop by hop by the transport (see `RedirectHop`); libcurl may
        // speak nothing but HTTP, whatever a URL or a server says.
        set(curlew_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0))
        set(Self.setString(easy, CURLOPT_PROTOCOLS_STR, "http,https"))
        set(Self.setString(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https"))
        // Given even when empty: without them libcurl searches the environment for every exchange.
        set(Self.setString(easy, CURLOPT_PROXY, proxy))
        set(Self.setString(easy, CURLOPT_NOPROXY, proxies.noProxy))
        // A proxy's answer to CONNECT is not the server's: its head stays out of the response's.
        set(curlew_easy_setopt_long(easy, CURLOPT_SUPPRESS_CONNECT_HEADERS, 1))
        if request.download == nil {
            set(curlew_easy_setopt_off_t(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(request.maxResponseBytes)))
        }

        set(curlew_easy_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, request.tls.verifyPeer ? 1 : 0))
        set(curlew_easy_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, request.tls.verifyHost ? 2 : 0))
        if let caFile = request.tls.caFile {
            set(Self.setString(easy, CURLOPT_CAINFO, caFile))
        }
        if let pin = request.tls.pinnedPublicKey {
            set(Self.setString(easy, CURLOPT_PINNEDPUBLICKEY, pin))
        }
        if let trusted = request.tls.trustedCertificates {
            set(trusted.withUnsafeBytes { curlew_easy_setopt_blob(easy, CURLOPT_CAINFO_BLOB, $0.baseAddress, $0.count) })
            // Only the pinned certificates: no directory of system authorities either.
            set(curlew_easy_setopt_pointer(easy, CURLOPT_CAPATH, nil))
        }
        if let certificate = request.tls.clientCertificate {
            set(Self.setString(easy, CURLOPT_SSLCERT, certificate))
        }
        if let key = request.tls.clientKey {
            set(Self.setString(easy, CURLOPT_SSLKEY, key))
        }
        let version: Int
        switch request.protocolPreference {
        case .automatic: version = Int(CURL_HTTP_VERSION_2TLS)
        case .http1_1: version = Int(CURL_HTTP_VERSION_1_1)
        case .http2: version = Int(CURL_HTTP_VERSION_2_0)
        case .http2PriorKnowledge: version = Int(CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE)
        }
        set(curlew_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, version))
        if Self.waitsForMultiplexing(request) {
            set(curlew_easy_setopt_long(easy, CURLOPT_PIPEWAIT, 1))
        }
        return code
    }

    /// Whether the exchange waits for a connection being set up to the same host to say whether
    /// it multiplexes, instead of opening one per request: concurrent HTTP/2 requests then share one.
    static func waitsForMultiplexing(_ request: borrowing TransferRequest) -> Bool {
        request.protocolPreference != .http1_1 && (ASCII.isHTTPS(request.url) || request.protocolPreference == .http2PriorKnowledge)
    }

    private func applyMethodAndBody(_ request: TransferRequest) -> CURLcode {
        let easy = handle.raw
        let method = request.method
        switch request.upload {
        case .file(let path)?:
            return applyUploadFile(path, method: method)
        case .multipart(let parts)?:
            switch MultipartBody.make(parts, for: easy) {
            case .failure(let error):
                localFailure = error
                return CURLE_READ_ERROR
            case .success(let body):
                form = body
                var code = curlew_easy_setopt_pointer(easy, CURLOPT_MIMEPOST, UnsafeMutableRawPointer(body.raw))
                if code == CURLE_OK, method != "POST" { code = Self.setString(easy, CURLOPT_CUSTOMREQUEST, method) }
                return code
            }
        case nil:
            break
        }
        if let body = request.body {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(body.count, 1), alignment: 1)
            _ = body.copyBytes(to: buffer.bindMemory(to: UInt8.self))
            bodyBuffer = buffer
            var code = curlew_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
            if code == CURLE_OK { code = curlew_easy_setopt_pointer(easy, CURLOPT_POSTFIELDS, buffer.baseAddress) }
            if code == CURLE_OK, method != "POST" { code = Self.setString(easy, CURLOPT_CUSTOMREQUEST, method) }
            return code
        }
        switch method {
        case "GET":
            return curlew_easy_setopt_long(easy, CURLOPT_HTTPGET, 1)
        case "HEAD":
            return curlew_easy_setopt_long(easy, CURLOPT_NOBODY, 1)
        case "POST":
            let code = curlew_easy_setopt_long(easy, CURLOPT_POST, 1)
            return code == CURLE_OK ? curlew_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, 0) : code
        default:
            return Self.setString(easy, CURLOPT_CUSTOMREQUEST, method)
        }
    }

    /// A body streamed from a file: libcurl's upload mode, with the request's own method.
    private func applyUploadFile(_ path: String, method: String) -> CURLcode {
        let easy = handle.raw
        switch UploadFile.open(path) {
        case .failure(let error):
            localFailure = error
            return CURLE_READ_ERROR
        case .success(let file):
            uploadFile = file
            // Read through the file itself, as a form's file parts are (kept alive by `uploadFile`).
            let context = Unmanaged.passUnretained(file).toOpaque()
            var code = curlew_easy_setopt_long(easy, CURLOPT_UPLOAD, 1)
            func set(_ result: CURLcode) { if code == CURLE_OK { code = result } }
            set(curlew_easy_setopt_off_t(easy, CURLOPT_INFILESIZE_LARGE, curl_off_t(file.size)))
            set(curlew_easy_setopt_data_callback(easy, CURLOPT_READFUNCTION, UploadFile.readCallback))
            set(curlew_easy_setopt_pointer(easy, CURLOPT_READDATA, context))
            set(curlew_easy_setopt_seek_callback(easy, UploadFile.seekCallback))
            set(curlew_easy_setopt_pointer(easy, CURLOPT_SEEKDATA, context))
            if method != "PUT" { set(Self.setString(easy, CURLOPT_CUSTOMREQUEST, method)) }
            return code
        }
    }

    private func applyHeaders(of request: TransferRequest, libcurlSetsContentType: Bool) -> CURLcode {
        let headers = request.headers
        var suppressed: RequestHeaderList.Suppressed = []
        // A GET without a body gets neither from libcurl; anything else may.
        if !HandleShape.isPlain(request) {
            if !headers.contains(where: { ASCII.equalsIgnoringCase($0.name, "Expect") }) { suppressed.insert(.expect) }
            if !libcurlSetsContentType, !headers.contains(where: { ASCII.equalsIgnoringCase($0.name, "Content-Type") }) {
                suppressed.insert(.contentType)
            }
        }
        return handle.setHeaders(headers, suppressed: suppressed)
    }

    func markAdded() {
        addedAt = DispatchTime.now().uptimeNanoseconds
        lastProgressAt = addedAt
        startHop(at: addedAt)
    }

    /// The hop handed to libcurl at `now`: the stamps of the hop before are forgotten.
    private func startHop(at now: UInt64) {
        hopStartedAt = now
        readyAt = 0
        requestsSentThisHop = 0
        handle.clearStamps()
    }

    /// Whether the response of the hop just finished is a redirect to follow, to refuse, or the result.
    func redirectDecision() -> RedirectHop.Decision {
        let status = long(CURLINFO_RESPONSE_CODE)
        // Most responses are not redirects: decided without looking for a Location header.
        guard request.followRedirects, RedirectHop.isFollowed(status) else { return .finish }
        let location = responseHeaders.lastAsURLText("Location")
        return RedirectHop.decide(after: request, status: status, location: location, hopsSoFar: hops)
    }

    /// `next` with what is left of the total timeout, which covers every hop; nil when nothing
    /// is left.
    func withRemainingTime(_ next: TransferRequest) -> TransferRequest? {
        guard let totalTimeout else { return next }
        let remaining = totalTimeout - .nanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - addedAt))
        guard remaining >= .milliseconds(1) else { return nil }
        var next = next
        next.totalTimeout = remaining
        return next
    }

    /// Counts the hop just finished and configures the handle for `next`. The handle must be out of
    /// the multi handle; `curl_easy_reset` keeps its connections, so the next hop can reuse one.
    func beginNextHop(_ next: TransferRequest) -> CURLcode {
        earlierHopsBytesSent += currentHopBytesSent()
        earlierHopsBytesReceived += currentHopBytesReceived()
        earlierHopsNewConnections += long(CURLINFO_NUM_CONNECTS)
        hops += 1
        // Moved, not copied: the next hop starts its own.
        answeredHop = AnsweredHop(requestHead: requestHead, requestBody: requestBody, requestBodySize: requestBodySize, statusLine: statusLine)
        requestHead = []
        requestBody = Data()
        requestBodySize = 0
        statusLine = ""
        responseHeaders.removeAll()
        responseBody = Data()
        releaseUnusedAnnouncedBody()
        if let buffer = announcedBody { bodyBuffers.give(buffer); announcedBody = nil }
        receivedBodyBytes = 0
        discardedBodyBytes = 0
        bodyBuffer?.deallocate()
        bodyBuffer = nil
        uploadFile = nil
        spilledBody = nil
        bodyRouted = false
        tlsRead = false
        tlsFacts = nil
        handle.reset()
        form = nil
        held = PendingTransfer(id: id, request: next, submittedAt: submittedAt)
        startHop(at: DispatchTime.now().uptimeNanoseconds)
        return configure()
    }

    private func long(_ info: CURLINFO) -> Int {
        var value = 0
        _ = curlew_easy_getinfo_long(handle.raw, info, &value)
        return value
    }

    private func offset(_ info: CURLINFO) -> Int64 {
        var value: curl_off_t = 0
        _ = curlew_easy_getinfo_off_t(handle.raw, info, &value)
        return Int64(value)
    }

    /// Request bytes of the current hop: the capture when there is one, libcurl's totals otherwise.
    private func currentHopBytesSent() -> Int64 {
        requestHead.isEmpty ? Int64(long(CURLINFO_REQUEST_SIZE)) + offset(CURLINFO_SIZE_UPLOAD_T) : Int64(requestHead.count) + requestBodySize
    }

    private func currentHopBytesReceived() -> Int64 {
        Int64(long(CURLINFO_HEADER_SIZE)) + offset(CURLINFO_SIZE_DOWNLOAD_T)
    }

    // MARK: Callbacks from libcurl

    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return true }
        if !bodyRouted, !routeBody() { return false }
        if let chunkLabel {
            outbox.events.append(.chunk(id: id, status: chunkLabel.status, contentType: chunkLabel.contentType, Data(bytes)))
            if discardsBody {
                discardedBodyBytes += Int64(bytes.count)
                return true
            }
        }
        if let download, download.isOpen {
            if let failure = download.write(bytes) {
                localFailure = failure
                return false
            }
            receivedBodyBytes += bytes.count
            return true
        }
        if receivedBodyBytes + bytes.count > maxResponseBytes {
            responseLimitHit = true
            return false
        }
        if spilledBody != nil || (request.spillThreshold.map { receivedBodyBytes + bytes.count > $0 } ?? false) {
            return spill(bytes)
        }
        if let buffer = announcedBody {
            if receivedBodyBytes + bytes.count <= buffer.capacity {
                (buffer.address + receivedBodyBytes).copyMemory(from: source, byteCount: bytes.count)
                receivedBodyBytes += bytes.count
                return true
            }
            // More than the server announced: go on in ordinary memory.
            responseBody = Data(bytes: buffer.address, count: receivedBodyBytes)
            bodyBuffers.give(buffer)
            announcedBody = nil
        }
        responseBody.append(contentsOf: bytes)
        receivedBodyBytes += bytes.count
        return true
    }

    /// Decides where the current response's body goes, on its first byte: a download's file for a
    /// 2xx answer to a download, memory otherwise. False when the download's file refused.
    private func routeBody() -> Bool {
        bodyRouted = true
        let status = long(CURLINFO_RESPONSE_CODE)
        chunkLabel = request.streamsBody && !(300..<400).contains(status)
            ? (status, responseHeaders.last("Content-Type")) : nil
        discardsBody = chunkLabel.map { EventStreamResponse.matches(status: $0.status, contentType: $0.contentType) } ?? false
        guard let download, !download.isOpen, DownloadWriter.takes(status: long(CURLINFO_RESPONSE_CODE)) else { return true }
        if let failure = download.begin(status: long(CURLINFO_RESPONSE_CODE), headers: responseHeaders) {
            localFailure = failure
            return false
        }
        return true
    }

    /// Writes `bytes` to the spill file, moving what memory holds there first.
    private func spill(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if spilledBody == nil {
            switch BodyFile.anonymous(in: request.spillDirectory) {
            case .failure(let error):
                localFailure = error
                return false
            case .success(let file):
                spilledBody = file
                let kept: Bool
                if let buffer = announcedBody {
                    kept = file.write(UnsafeRawBufferPointer(start: buffer.address, count: receivedBodyBytes))
                    bodyBuffers.give(buffer)
                    announcedBody = nil
                } else {
                    kept = responseBody.withUnsafeBytes { file.write($0) }
                    responseBody = Data()
                }
                guard kept else { return spillFailed(file) }
            }
        }
        guard let file = spilledBody, file.write(bytes) else { return spillFailed(spilledBody) }
        receivedBodyBytes += bytes.count
        return true
    }

    private func spillFailed(_ file: BodyFile?) -> Bool {
        localFailure = TransferError(kind: .localFile, code: 23,
                                     message: "could not write the response body to a temporary file in \(request.spillDirectory): \(file?.failure ?? "unknown error")")
        return false
    }

    /// The TLS session of the connection: version, cipher, ALPN and the server's chain.
    private func readTLSFacts() -> TLSFacts? {
        let collector = CertificateCollector()
        var version = [CChar](repeating: 0, count: 64)
        var cipher = [CChar](repeating: 0, count: 128)
        var alpn = [CChar](repeating: 0, count: 80)
        let found = curlew_tls_describe(handle.raw, &version, version.count, &cipher, cipher.count, &alpn, alpn.count,
                                        TransferCallbacks.certificate, Unmanaged.passUnretained(collector).toOpaque())
        guard found == 1 else { return nil }
        return TLSFacts(version: String(nulTerminated: version), cipher: String(nulTerminated: cipher), alpn: String(nulTerminated: alpn),
                        certificates: collector.certificates)
    }

    /// Gives back the announced body's buffer when nothing was written into it (a redirect's or a
    /// HEAD response's body).
    private func releaseUnusedAnnouncedBody() {
        guard let buffer = announcedBody, receivedBodyBytes == 0 else { return }
        bodyBuffers.give(buffer)
        announcedBody = nil
    }

    /// Takes one line of the response's head; false stops the exchange (`localFailure` says why).
    func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let kind = ResponseHeaderLine(bytes)
        switch kind {
        case .statusLine(let line):
            announcedLength = nil
            // Only the wire capture's send stamps are measured against it.
            if request.capturesWire { statusLineAt = DispatchTime.now().uptimeNanoseconds }
            statusLine = ResponseHeaderLine.text(bytes, line)
            bodyRouted = false
            if !tlsRead {
                tlsRead = true
                if ASCII.isHTTPS(request.url) { tlsFacts = readTLSFacts() }
            }
            responseHeaders.removeAll()
            // Room for a typical response's head at once, instead of growing step by step.
            responseHeaders.reserveCapacity(512)
            releaseUnusedAnnouncedBody()
        case .continuation:
            responseHeaders.append(bytes, as: kind, notingPlainText: request.capturesWire)
        case .field(let name, let value):
            responseHeaders.append(bytes, as: kind, notingPlainText: request.capturesWire)
            guard ASCII.isName(UnsafeRawBufferPointer(rebasing: bytes[name]), "content-length") else { break }
            switch announce(UnsafeRawBufferPointer(rebasing: bytes[value])) {
            case .refused:
                return false
            case .length(let length):
                // Make room for an announced body once: growing a large one by doubling costs a
                // fresh, kernel-zeroed allocation and a copy at every step (see `BodyBufferPool`).
                if receivedBodyBytes == 0, announcedBody == nil, request.download == nil,
                   length > 0, length <= maxResponseBytes, request.spillThreshold.map({ length <= $0 }) ?? true {
                    announcedBody = bodyBuffers.take(atLeast: length)
                }
            }
        case .other:
            break
        }
        return true
    }

    /// What a Content-Length field said.
    private enum Announcement {
        case length(Int)
        /// Not one number, or a number other than one given before: `localFailure` says so.
        case refused
    }

    /// Takes a Content-Length value: one number, or a list of them (`5, 5`), each of which must
    /// agree with the ones before, in this field and earlier ones. Two lengths leave the body's
    /// end to a guess a hostile server can steer (RFC 9110, section 8.6), and so does a value
    /// that is not a number: libcurl 7.88 reads `+5`, `5abc` and `5, 6` as 5 and `0x5` as 0,
    /// and takes the last field. RFC 9112 (section 6.3) makes either an unrecoverable error.
    private func announce(_ value: UnsafeRawBufferPointer) -> Announcement {
        if let number = Self.decimal(value) { return announce(number) }
        guard value.contains(UInt8(ascii: ",")) else { return notANumber(value) }
        var said = Announcement.refused
        for member in value.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
            var trimmed = member[...]
            while let first = trimmed.first, first == 0x20 || first == 0x09 { trimmed = trimmed.dropFirst() }
            while let last = trimmed.last, last == 0x20 || last == 0x09 { trimmed = trimmed.dropLast() }
            guard let number = Self.decimal(UnsafeRawBufferPointer(rebasing: trimmed)) else { return notANumber(value) }
            said = announce(number)
            if case .refused = said { return said }
        }
        return said
    }

    private func announce(_ number: Int) -> Announcement {
        if let announced = announcedLength, announced != number {
            localFailure = TransferError(kind: .invalidResponse, message: "the response gives conflicting Content-Length values (\(announced) and \(number))")
            return .refused
        }
        announcedLength = number
        return .length(number)
    }

    private func notANumber(_ value: UnsafeRawBufferPointer) -> Announcement {
        let shown = String(decoding: value.prefix(40), as: UTF8.self) + (value.count > 40 ? "…" : "")
        localFailure = TransferError(kind: .invalidResponse, message: "the response's Content-Length \(shown.debugDescription) is not a number")
        return .refused
    }

    /// A run of ASCII digits as a number: nil for anything else, or beyond 18 digits.
    private static func decimal(_ digits: UnsafeRawBufferPointer) -> Int? {
        guard !digits.isEmpty, digits.count <= 18 else { return nil }
        var value = 0
        for digit in digits {
            guard digit >= 0x30, digit <= 0x39 else { return nil }
            value = value * 10 + Int(digit - 0x30)
        }
        return value
    }

    /// A request of this exchange is about to be sent, on a connection just made or picked (libcurl's
    /// pre-request callback). The moment is stamped (`readyAt`, for `libcurlHeld`); the rest is
    /// the wire capture's. libcurl reports what it sends only in
    /// verbose mode, which also formats a dozen lines of text per exchange that the capture does
    /// not keep, so the mode is on from here until a bodyless request's head has gone out (with a
    /// body it stays on to the end of the exchange).
    ///
    /// The mode is switched from inside libcurl's callbacks, on this exchange's own handle.
    /// libcurl 7.88 reads the option at every debug call and calls this callback before each
    /// request it sends, resends included; its documentation does not promise that setting
    /// options from a callback works, so the capture tests (`TransferEngineTests`) pin it.
    ///
    /// A request sent again within the exchange (a reused connection found closed, a proxy's
    /// tunnel) replaces what an earlier attempt captured: the capture describes the request that
    /// produced the response.
    func requestWillBeSent() {
        readyAt = DispatchTime.now().uptimeNanoseconds
        requestsSentThisHop += 1
        if requestsSentThisHop > 1 { handle.mayHoldResends = true }
        guard request.capturesWire else { return }
        sendStamp.start(at: readyAt, preemptions: preemptions.count())
        if !requestHead.isEmpty || requestBodySize > 0 {
            requestHead.removeAll(keepingCapacity: true)
            requestBody.removeAll(keepingCapacity: true)
            requestBodySize = 0
        }
        _ = curlew_easy_setopt_long(handle.raw, CURLOPT_VERBOSE, 1)
    }

    func observeOutgoingHeader(_ bytes: UnsafeRawBufferPointer) {
        requestHead.append(contentsOf: bytes)
        sendStamp.seen(at: DispatchTime.now().uptimeNanoseconds, preemptions: ThreadPreemptions.count)
        // A head ends with an empty line; nothing more goes out for a request without a body, so
        // verbose mode is off until the next request.
        if !hopSendsBody, bytes.count >= 4, bytes.loadUnaligned(fromByteOffset: bytes.count - 4, as: UInt32.self) == Self.endOfHead {
            _ = curlew_easy_setopt_long(handle.raw, CURLOPT_VERBOSE, 0)
        }
    }

    /// CR LF CR LF as four bytes read at once.
    private static let endOfHead = UInt32(littleEndian: 0x0A0D_0A0D)

    func observeOutgoingBody(_ bytes: UnsafeRawBufferPointer) {
        requestBodySize += Int64(bytes.count)
        let room = requestCaptureLimit - requestBody.count
        if room > 0 {
            requestBody.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes.prefix(room)))
        }
        sendStamp.seen(at: DispatchTime.now().uptimeNanoseconds, preemptions: ThreadPreemptions.count)
    }

    /// Reports the exchange's progress when `progressInterval` has passed since the last report
    /// (or its start) and it changed. The loop samples each exchange that reports progress this
    /// way instead of taking libcurl's progress callback, which it calls several times even for
    /// the shortest exchange.
    func sampleProgress(at now: UInt64) {
        guard now - lastProgressAt >= Self.progressInterval else { return }
        lastProgressAt = now
        let progress = TransferProgress(
            bytesSent: offset(CURLINFO_SIZE_UPLOAD_T), totalBytesToSend: max(0, offset(CURLINFO_CONTENT_LENGTH_UPLOAD_T)),
            bytesReceived: offset(CURLINFO_SIZE_DOWNLOAD_T), totalBytesToReceive: max(0, offset(CURLINFO_CONTENT_LENGTH_DOWNLOAD_T))
        )
        guard progress != lastProgress else { return }
        lastProgress = progress
        outbox.events.append(.progress(id: id, progress))
    }

    // MARK: Result

    /// Collects the capture and libcurl's facts. `cancelled` overrides libcurl's result code.
    /// `connectionUses` counts the exchange on its connection. `endedAt` is when libcurl finished
    /// it (uptime nanoseconds), 0 for now.
    func makeResult(code: CURLcode, cancelled: Bool, refusal: TransferError? = nil, connectionUses: inout ConnectionUses, endedAt: UInt64 = 0) -> TransferResult {
        releaseUnusedAnnouncedBody()
        if let buffer = announcedBody {
            responseBody = bodyBuffers.data(buffer, count: receivedBodyBytes)
            announcedBody = nil
        }
        // A file sent as the body, or as a form's part, that could not be read while it went out.
        if localFailure == nil, let failure = uploadFile?.failure ?? form?.readFailure {
            localFailure = TransferError(kind: .localFile, code: 26, message: failure)
        }
        var spilled = false
        if let file = spilledBody {
            if let mapped = file.mappedData() {
                responseBody = mapped
                spilled = true
            } else if localFailure == nil {
                localFailure = TransferError(kind: .localFile, code: 23, message: "could not map the response body's temporary file")
            }
            spilledBody = nil
        }
        // An exchange that failed is always measured: its error is classified by the measurements
        // (`connected` is read only then).
        let measured = request.measuresExchange || code != CURLE_OK || cancelled || refusal != nil || localFailure != nil
        let connection: ConnectionFacts
        let timings: TransferTimings
        let connected: Bool
        if measured {
            (connection, timings, connected) = measure(connectionUses: &connectionUses, cancelled: cancelled, endedAt: endedAt, code: code)
        } else {
            connection = ConnectionFacts(httpVersion: Self.versionName(long(CURLINFO_HTTP_VERSION)), redirectCount: hops,
                                         effectiveURL: string(CURLINFO_EFFECTIVE_URL, sameAs: request.url), tls: tlsFacts)
            timings = .zero
            connected = true
        }
        let status = statusLine.isEmpty ? 0 : long(CURLINFO_RESPONSE_CODE)
        // A 200 download without a single body byte (an empty resource) still creates its file;
        // a 204 has no content to write, and must not replace one.
        if download != nil, code == CURLE_OK, !cancelled, refusal == nil, localFailure == nil, !bodyRouted, status == 200 {
            _ = routeBody()
        }
        var error: TransferError?
        if cancelled {
            error = .cancelled
        } else if let refusal {
            error = refusal
        } else if let localFailure {
            error = localFailure
        } else if code != CURLE_OK {
            error = TransferError.classify(
                code: code,
                // libcurl repeats a proxy it cannot use as written, password and all (its own
                // message, before classifying adds to it, so that a password it cut off is seen so).
                message: proxies.hidingPasswords(in: handle.errorMessage(for: code)),
                connected: connected,
                responseLimitHit: responseLimitHit,
                connectTimeoutApplied: connectTimeoutApplied,
                status: status,
                statusLine: statusLine,
                proxy: proxies.mayUseProxy(for: request.url) ? proxies.proxy(for: request.url) : "",
                target: connection.effectiveURL,
                requestSent: !requestHead.isEmpty || long(CURLINFO_REQUEST_SIZE) > 0,
                tunnelOpened: (200..<300).contains(long(CURLINFO_HTTP_CONNECTCODE))
            )
        } else {
            error = nil
        }
        var downloadOutcome: DownloadOutcome?
        if let download {
            if status == 416 { download.abandonResume() }
            let finished = download.finish(succeeded: error == nil && DownloadWriter.takes(status: status))
            downloadOutcome = finished.outcome
            if error == nil, let failure = finished.error { error = failure }
            self.download = nil
        }
        // A redirect's target that was never reached: what went out last, and the error names
        // the redirect that led there (the exchange still has no answer).
        if error != nil, requestsSentThisHop == 0, let answeredHop {
            requestHead = answeredHop.requestHead
            requestBody = answeredHop.requestBody
            requestBodySize = answeredHop.requestBodySize
            // A cancel is the caller's, wherever the exchange had got to.
            if var failure = error, failure.kind != .cancelled {
                failure.message += " (redirected to \(connection.effectiveURL) by \(answeredHop.statusLine))"
                error = failure
            }
        }
        return TransferResult(
            id: id,
            error: error,
            requestHead: requestHead,
            requestBody: requestBody,
            requestBodySize: requestBodySize,
            statusLine: statusLine,
            statusCode: status,
            responseHeaders: responseHeaders,
            responseBody: responseBody,
            responseBodySpilled: spilled,
            discardedBodySize: discardedBodyBytes,
            download: downloadOutcome,
            connection: connection,
            timings: timings,
            measured: measured
        )
    }

    /// libcurl's text for `info`; `known` itself when it holds the same bytes (the URL without
    /// redirects, the addresses of a reused connection), so that no string is made.
    private func string(_ info: CURLINFO, sameAs known: String) -> String {
        var value: UnsafeMutablePointer<CChar>?
        _ = curlew_easy_getinfo_string(handle.raw, info, &value)
        guard let value else { return "" }
        let length = strlen(value)
        guard length > 0 else { return "" }
        if known.utf8.count == length, known.withUTF8Bytes({ memcmp($0.baseAddress!, value, length) == 0 }) { return known }
        return String(cString: value)
    }

    /// Whether libcurl's `code` says it refused an answer's bytes: an HTTP/0.9 or unknown reply,
    /// a head line too long, HTTP/2 frames it could not take, a body it could not decode: the
    /// codes `TransferError.classify` calls `invalidResponse` once connected, as the waterfall
    /// reads that kind (`DebugMessage.receiveHappened`). Before a connection, the same codes come
    /// with no first-byte mark, which is then zero anyway.
    private static func refusedAnAnswer(_ code: CURLcode) -> Bool {
        code == CURLE_WEIRD_SERVER_REPLY || code == CURLE_UNSUPPORTED_PROTOCOL || code == CURLE_OUT_OF_MEMORY
            || code == CURLE_HTTP2 || code == CURLE_HTTP2_STREAM || code == CURLE_BAD_CONTENT_ENCODING
    }

    /// The exchange's connection facts and timings from libcurl, counted against the connections
    /// seen so far; `connected` tells whether a connection was ready before it ended. A cancelled
    /// exchange's total runs to now: libcurl's stops at its last progress update, up to a
    /// second before. `code` is libcurl's result for the exchange.
    private func measure(connectionUses: inout ConnectionUses, cancelled: Bool, endedAt: UInt64, code: CURLcode) -> (connection: ConnectionFacts, timings: TransferTimings, connected: Bool) {
        let newConnections = long(CURLINFO_NUM_CONNECTS)
        let headerBytesSent = long(CURLINFO_REQUEST_SIZE)
        let wroteSomething = !requestHead.isEmpty || headerBytesSent > 0
        let reused = newConnections == 0 && wroteSomething
        let preTransfer = offset(CURLINFO_PRETRANSFER_TIME_T)
        let hopReceived = currentHopBytesReceived()
        let lastSendAt = sendStamp.lastSentAt
        let measuredWait = lastSendAt > 0 && statusLineAt > lastSendAt ? Int64((statusLineAt - lastSendAt) / 1000) : nil
        let queuedNanos = addedAt > submittedAt ? addedAt - submittedAt : 0
        let now = endedAt > hopStartedAt ? endedAt : DispatchTime.now().uptimeNanoseconds
        let total = cancelled ? Int64((now - hopStartedAt) / 1000) : offset(CURLINFO_TOTAL_TIME_T)
        let nameLookup = offset(CURLINFO_NAMELOOKUP_TIME_T)
        let connected = offset(CURLINFO_CONNECT_TIME_T)
        let held = libcurlHeld(total: total, now: now, nameLookup: nameLookup, connected: connected, preTransfer: preTransfer, reused: reused)
        let timings = TransferTimings.fromCumulativeMarks(
            queued: Int64(queuedNanos / 1000),
            nameLookup: nameLookup,
            connected: connected,
            tlsDone: offset(CURLINFO_APPCONNECT_TIME_T),
            preTransfer: preTransfer,
            // libcurl sets its first-byte mark on a read that found the connection closed too:
            // without a byte of an answer, there was no first byte and no receive phase. An
            // answer libcurl refused as malformed (no status line, a bad one, a head too long)
            // did arrive, though libcurl counts none of its bytes.
            firstByte: hopReceived > 0 || Self.refusedAnAnswer(code) ? offset(CURLINFO_STARTTRANSFER_TIME_T) : 0,
            total: total,
            measuredWait: measuredWait,
            reusedConnection: reused,
            heldByLibcurl: held,
            earlierHops: hops > 0 ? Int64((hopStartedAt - addedAt) / 1000) : nil
        )
        var connection = ConnectionFacts(
            httpVersion: Self.versionName(long(CURLINFO_HTTP_VERSION)),
            remoteIP: string(CURLINFO_PRIMARY_IP, sameAs: handle.lastAddresses.remote),
            remotePort: long(CURLINFO_PRIMARY_PORT),
            localIP: string(CURLINFO_LOCAL_IP, sameAs: handle.lastAddresses.local),
            localPort: long(CURLINFO_LOCAL_PORT),
            reused: reused,
            newConnections: earlierHopsNewConnections + newConnections,
            redirectCount: hops,
            effectiveURL: string(CURLINFO_EFFECTIVE_URL, sameAs: request.url),
            bytesSent: earlierHopsBytesSent + currentHopBytesSent(),
            bytesReceived: earlierHopsBytesReceived + hopReceived,
            tls: tlsFacts
        )
        handle.lastAddresses = (connection.remoteIP, connection.localIP)
        connectionUses.count(&connection)
        return (connection, timings, preTransfer > 0 || reused)
    }

    /// How long libcurl held this hop in its per-host queue before it began to make a
    /// connection or took one (microseconds), or nil when it never did: it ended waiting.
    ///
    /// libcurl 7.88 counts its total from when it first ran the hop, but its other marks from
    /// when the hop left that queue, and has no mark for the moment itself
    /// (`CURLINFO_QUEUE_TIME_T` came in 8.6). The moment is found from the stamps of the
    /// callbacks libcurl runs as it goes on, each less the mark libcurl set with it: the request
    /// about to be sent (less the pre-transfer mark), else the first socket opened (less the name
    /// lookup's), else the resolve begun. libcurl's clock starts a little after the transport
    /// handed it the hop; the gap is what the transport's time for the hop has over `total`.
    ///
    /// A request libcurl sent again within the hop has marks that add up over its attempts, so
    /// no stamp gives the moment: the wait is left where the marks put it (0).
    private func libcurlHeld(total: Int64, now: UInt64, nameLookup: Int64, connected: Int64, preTransfer: Int64, reused: Bool) -> Int64? {
        guard requestsSentThisHop <= 1 else { return 0 }
        func before(_ stamp: UInt64, _ markMicroseconds: Int64) -> UInt64 {
            let mark = UInt64(max(markMicroseconds, 0)) * 1000
            return stamp > mark ? stamp - mark : 0
        }
        let began: UInt64
        // The pre-transfer mark is set once the request is on its way; an exchange that failed
        // before it (a send error on a new connection) is placed by its connection's stamps.
        if readyAt > 0, preTransfer > 0 || reused {
            began = before(readyAt, preTransfer)
        } else if handle.socketOpenedAt > 0 {
            began = before(handle.socketOpenedAt, nameLookup)
        } else if handle.resolveStartedAt > 0 {
            began = handle.resolveStartedAt
        } else {
            // A connection's marks with no stamp cannot happen; without either it waited all along.
            return nameLookup > 0 || connected > 0 ? 0 : nil
        }
        let hop = now > hopStartedAt ? Int64((now - hopStartedAt) / 1000) : 0
        let libcurlStarted = hopStartedAt + UInt64(max(hop - max(total, 0), 0)) * 1000
        return began > libcurlStarted ? min(Int64((began - libcurlStarted) / 1000), max(total, 0)) : 0
    }

    /// A string option, passed through `withCString`: the implicit conversion copies a short
    /// string to the heap first, and libcurl copies it again anyway.
    private static func setString(_ easy: UnsafeMutableRawPointer, _ option: CURLoption, _ value: String) -> CURLcode {
        value.withCString { curlew_easy_setopt_string(easy, option, $0) }
    }

    private static func versionName(_ version: Int) -> String {
        switch version {
        case Int(CURL_HTTP_VERSION_1_0): return "1.0"
        case Int(CURL_HTTP_VERSION_1_1): return "1.1"
        case Int(CURL_HTTP_VERSION_2_0): return "2"
        case Int(CURL_HTTP_VERSION_3): return "3"
        default: return ""
        }
    }

    /// At least 1 ms; a limit beyond about 31 years (an absurd `Duration`) counts as 31 years
    /// instead of overflowing.
    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        let whole = min(max(seconds, 0), 1_000_000_000)
        return max(1, Int(whole) * 1000 + Int(max(attoseconds, 0) / 1_000_000_000_000_000))
    }
}
