import CurlewAgent
import CurlewLocking

extension Agent {
    /// Sends a request and returns its debug message along with the outcome, for commands that
    /// show the whole exchange rather than just the response. Cancelling the calling task
    /// cancels the request; it still ends with its debug message (state `cancelled`).
    /// `streamed` receives the chunks and events of a request with `streamsResponse` as they arrive.
    func exchange(_ request: Request, streamed: (@Sendable (StreamItem) -> Void)? = nil) async -> (message: DebugMessage, failure: RequestFailure?) {
        let captured = Locked<DebugMessage?>(nil)
        let slot = CancellationSlot<RequestHandle>()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let handle = start(request, callbacks: RequestCallbacks(
                    success: { _ in continuation.resume(returning: (captured.withLock { $0! }, nil)) },
                    failure: { failure in continuation.resume(returning: (captured.withLock { $0! }, failure)) },
                    debug: { message in captured.withLock { $0 = message } },
                    streamed: streamed
                ))
                if slot.store(handle) { cancel(handle) }
            }
        } onCancel: {
            if let handle = slot.markCancelled() { cancel(handle) }
        }
    }
}

extension RequestError {
    /// The error as `curlew send` prints it, its number named for what it is (`(curl code 56)`,
    /// curl's number for the failure, which the exit status need not be: an invalid response
    /// exits 8; `(status 404)`). A business failure's code is the response's own.
    var commandLineDescription: String {
        guard let code, kind != .businessFailure else { return description }
        return "\(kind.rawValue): \(message) (" + (kind == .unacceptableStatus ? "status" : "curl code") + " \(code))"
    }

    /// Process exit status for `curlew send`: curl's numbers where curl has the same failure,
    /// so scripts written for curl keep working; 22 for an unacceptable HTTP status, as `curl -f`.
    var exitCode: Int32 {
        switch kind {
        case .invalidURL: 3
        case .invalidMethod, .invalidHeader, .invalidBody, .unresolvedVariable, .invalidTLSSettings: 2
        // curl: 5 when it is the proxy's name that does not resolve, 97 when a SOCKS proxy's
        // client does not resolve the server's.
        case .couldNotResolveHost: code == 5 || code == 97 ? Int32(code!) : 6
        case .couldNotConnect: 7
        case .proxyUnreachable: 7
        // curl's own codes for the proxy's TLS: 60 its certificate, 59 a cipher, 83 its issuer,
        // 91 its certificate's status; 35 for the rest of the handshake.
        case .proxyTLSFailure: [59, 60, 83, 91].contains(code ?? 0) ? Int32(code!) : 35
        case .connectTimeout, .totalTimeout: 28
        // curl: 58 for a client certificate problem, 77 for a bad CA file, 35 for the rest.
        case .tlsFailure: [58, 77].contains(code ?? 0) ? Int32(code!) : 35
        case .pinMismatch: 90
        case .untrustedCertificate, .hostnameMismatch, .certificateExpired: 60
        case .tooManyRedirects: 47
        case .insecureRedirect, .redirectRefused: 1
        case .responseTooLarge: 63
        // curl: 26 when a file to send cannot be read, 23 when the body cannot be written.
        case .localFile: code == 26 ? 26 : 23
        case .rangeMismatch: 33
        // curl 7.88 says 56 when a proxy refuses the tunnel, 97 when a SOCKS handshake fails.
        case .proxyRefused: code == 97 ? 97 : 56
        case .connectionReset: 56
        case .incompleteResponse: 18
        case .emptyResponse: 52
        case .invalidResponse: 8
        case .cancelled: 42
        case .unacceptableStatus: 22
        case .responseSerialization, .captureFailed, .groupFailed: 1
        case .validationFailed, .businessFailure, .unexpectedContentType, .reformFailed: 1
        case .tooFrequent, .mockFailed, .signingFailed: 1
        case .notReachable: 7
        case .other: Int32(clamping: code ?? 1)
        }
    }
}
