import CCurl

/// A libcurl easy handle kept for reuse, with the error buffer libcurl writes its messages into.
///
/// Used only on the transfer thread, one access at a time, so without the runtime's exclusivity
/// checks (as `Transfer`).
final class EasyHandle {
    let raw: UnsafeMutableRawPointer
    let errorBuffer: UnsafeMutablePointer<CChar>
    /// The plain exchange whose options the handle holds; nil when it was reset (libcurl's
    /// defaults) or holds anything else.
    @exclusivity(unchecked) var shape: HandleShape?
    /// The request header list set as `CURLOPT_HTTPHEADER`, owned here so that it lives as long
    /// as the option points at it; freed on reset.
    @exclusivity(unchecked) private var headerList: RequestHeaderList?
    /// The URL set as `CURLOPT_URL`, which libcurl keeps (a copy of it) until it is set again or
    /// the handle is reset; nil after a reset or a failed set.
    @exclusivity(unchecked) private var url: String?
    /// The remote and local address of the handle's latest exchange, whose strings the next
    /// exchange on the same connection reuses.
    @exclusivity(unchecked) var lastAddresses = (remote: "", local: "")
    /// When libcurl began to resolve a name for the handle's current hop (uptime nanoseconds), 0
    /// until it does: it does so only for a new connection whose name is not in its DNS cache.
    @exclusivity(unchecked) var resolveStartedAt: UInt64 = 0
    /// When libcurl opened the current hop's first socket (its name found), 0 until it does.
    @exclusivity(unchecked) var socketOpenedAt: UInt64 = 0
    /// libcurl may have counted a resend on this handle: it sent a request again within one
    /// exchange (a reused connection found closed before any answer). libcurl keeps that count
    /// on the handle until `curl_easy_reset` (or until it gives up at five), so a handle kept
    /// with its options would fail its sixth such resend, however many exchanges apart, with
    /// "Connection died, tried 5 times before giving up": such a handle is reset before it is
    /// kept (`EasyHandlePool.give`). One whose exchange failed is not kept at all.
    @exclusivity(unchecked) var mayHoldResends = false

    /// Forgets the stamps of the hop before (`Transfer.libcurlHeld`).
    func clearStamps() {
        resolveStartedAt = 0
        socketOpenedAt = 0
    }

    init?() {
        guard let raw = curl_easy_init() else { return nil }
        self.raw = raw
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer[0] = 0
    }

    deinit {
        _ = curlew_easy_setopt_pointer(raw, CURLOPT_SHARE, nil)
        curl_easy_cleanup(raw)
        errorBuffer.deallocate()
        // The header list is freed after this, with the stored properties: after the cleanup.
    }

    /// Sets the request header list for `fields` (with `suppressed` names sent empty to stop
    /// libcurl adding them). A handle that kept its options and already holds the same list
    /// keeps it: the list is built, and freed, only when the headers change.
    func setHeaders(_ fields: [(name: String, value: String)], suppressed: RequestHeaderList.Suppressed) -> CURLcode {
        if let headerList, headerList.holds(fields, suppressed: suppressed) { return CURLE_OK }
        let list = RequestHeaderList(fields, suppressed: suppressed)
        let code = curlew_easy_setopt_slist(raw, CURLOPT_HTTPHEADER, list.pointer)
        headerList = list  // the list it replaces is freed now that the option no longer points at it
        return code
    }

    /// libcurl's message for the last failure, or its generic text for `code` when it left none.
    /// A message libcurl cut off at its buffer's end inside a character loses that character's
    /// first bytes, rather than ending in a replacement character.
    func errorMessage(for code: CURLcode) -> String {
        var bytes = UnsafeRawBufferPointer(start: errorBuffer, count: strlen(errorBuffer))[...]
        if let last = bytes.lastIndex(where: { $0 & 0xC0 != 0x80 }), bytes[last] >= 0xC0 {
            // The lead byte's count of bytes, from its high bits.
            let length = bytes[last] >= 0xF0 ? 4 : bytes[last] >= 0xE0 ? 3 : 2
            if bytes.endIndex - last < length { bytes = bytes[..<last] }
        }
        let detail = String(decoding: bytes, as: UTF8.self)
        return detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
    }

    /// Sets the URL of the next exchange. A handle that already holds the same bytes keeps them:
    /// setting it again costs libcurl a copy and a free (about 400 instructions an exchange).
    func setURL(_ newURL: String) -> CURLcode {
        if let url, url.hasSameBytes(as: newURL) { return CURLE_OK }
        let code = newURL.withCString { curlew_easy_setopt_string(raw, CURLOPT_URL, $0) }
        url = code == CURLE_OK ? newURL : nil
        return code
    }

    func reset() {
        curl_easy_reset(raw)
        headerList = nil
        url = nil
        errorBuffer[0] = 0
        shape = nil
        mayHoldResends = false
    }
}

/// Easy handles returned after use, so a new exchange skips allocation and libcurl's setup.
struct EasyHandlePool {
    private var idle: [EasyHandle] = []
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    mutating func take() -> EasyHandle? {
        idle.popLast() ?? EasyHandle()
    }

    /// Takes a handle back once it is out of the multi handle. It leaves the cookie jar here,
    /// on every path (`curl_easy_reset` keeps a share), so a later exchange that does not use
    /// cookies cannot touch the jar, and the jar can be freed. A handle that held a plain
    /// exchange keeps its options for the next one of its shape; any other is reset, and so is
    /// one whose exchange may have left libcurl's count of resends on it
    /// (`EasyHandle.mayHoldResends`).
    ///
    /// One whose exchange failed, was cancelled or could not be set up (`reusable` false) is
    /// dropped: libcurl may keep state from it that a reset does not clear. After a name it
    /// could not resolve, 7.88 keeps the handle's receive buffer, and then refuses to size a
    /// new one (`CURLOPT_BUFFERSIZE`), so every later exchange on the handle failed with "A
    /// libcurl function was given a bad argument". A new handle costs a `curl_easy_init`.
    ///
    /// A handle kept with its options still points at its last exchange's context, freed by
    /// now (its header list is its own and still alive). libcurl reads the context only while
    /// the handle is in the multi handle, and the only way back in is `take()` followed by a
    /// configure that sets it again (the fast path sets the context pointers before anything
    /// else): an idle handle is never handed to libcurl as it is.
    mutating func give(_ handle: EasyHandle, reusable: Bool = true) {
        _ = curlew_easy_setopt_pointer(handle.raw, CURLOPT_SHARE, nil)
        guard reusable, idle.count < capacity else { return }
        if handle.shape == nil || handle.mayHoldResends { handle.reset() }
        idle.append(handle)
    }
}
