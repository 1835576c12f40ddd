import CCurl
import Foundation

/// Why an exchange failed, classified so that callers never need to know libcurl's codes.
public struct TransferError: Error, Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable, Codable {
        case invalidURL
        case couldNotResolveHost
        case couldNotConnect
        /// A proxy would not carry the exchange: its answer to CONNECT was not a success, or a
        /// SOCKS proxy's handshake failed.
        case proxyRefused
        /// No connection to the proxy came up. Nothing is known of the server. (A proxy whose name
        /// does not resolve is `couldNotResolveHost`, and says so.)
        case proxyUnreachable
        /// The TLS connection to an https proxy failed (its certificate, or the handshake). The
        /// server was never asked.
        case proxyTLSFailure
        case connectTimeout
        case totalTimeout
        case tlsFailure
        /// The server's public key is not one of the pinned ones.
        case pinMismatch
        /// The server's certificate does not lead to a trusted authority (self-signed, unknown issuer).
        case untrustedCertificate
        /// The server's certificate does not name the host that was asked for.
        case hostnameMismatch
        /// The server's certificate has expired (or is not valid yet).
        case certificateExpired
        case tooManyRedirects
        /// A redirect from HTTPS to plain HTTP, refused unless the request allows downgrades.
        case insecureRedirect
        /// A redirect to something other than an http or https URL (ftp:, file:, a malformed location).
        case redirectRefused
        case responseTooLarge
        /// A local file could not be read (an upload) or written (a download, a large body).
        case localFile
        /// A resumed download got a 206 whose `Content-Range` does not continue where it stopped.
        case rangeMismatch
        case cancelled
        /// The peer reset or dropped the connection while the exchange was under way.
        case connectionReset
        /// The connection closed before the whole body announced by the server arrived.
        case incompleteResponse
        /// The server closed the connection without sending anything.
        case emptyResponse
        /// The server's bytes are not valid HTTP (bad status line, broken chunked encoding).
        case invalidResponse
        /// Anything else; `code` and `message` carry libcurl's own description.
        case other
    }

    public var kind: Kind
    /// libcurl's result code, or 0 when the failure was decided by Curlew itself (cancel).
    public var code: Int
    public var message: String

    public init(kind: Kind, code: Int = 0, message: String) {
        self.kind = kind
        self.code = code
        self.message = message
    }

    static let cancelled = TransferError(kind: .cancelled, message: "stopped by the caller")

    /// Classifies a libcurl result. Timeouts need the connection state to tell connect from total.
    /// `status` and `statusLine` are those of the last status line read (0 and empty for none).
    /// `proxy` is the proxy the exchange may go through (empty for none, or when `no_proxy` exempts
    /// the URL) and `target` the URL it went
    /// to last (a redirect's): they tell a connection to the proxy that failed from one to the server.
    /// `requestSent` tells whether any of the request went out; `tunnelOpened`, whether a proxy
    /// answered CONNECT with a success.
    static func classify(
        code: CURLcode, message: String, connected: Bool, responseLimitHit: Bool, connectTimeoutApplied: Bool,
        status: Int = 0, statusLine: String = "", proxy: String = "", target: String = "", requestSent: Bool = true,
        tunnelOpened: Bool = false
    ) -> TransferError {
        let kind: Kind
        var message = message
        switch code {
        case _ where connected && (100..<200).contains(status) && [CURLE_UNSUPPORTED_PROTOCOL, CURLE_GOT_NOTHING, CURLE_WEIRD_SERVER_REPLY].contains(code):
            // After a 1xx, libcurl reads what follows as the final answer: bytes without a status
            // line it names HTTP/0.9, a clean close an empty reply. Either way the server's
            // mistake was sending no final answer. (A reset after one stays a reset, which a
            // retry may get past.)
            kind = .invalidResponse
            message = "the server sent only \(statusLine), an informational status, and no final answer after it (\(message))"
        case CURLE_UNSUPPORTED_PROTOCOL where connected:
            // The server's reply, not the URL: an HTTP/0.9 answer, an unknown version. Said in
            // words of the answer, libcurl's kept after them.
            kind = .invalidResponse
            if message.hasPrefix("Unsupported HTTP") || message.hasPrefix("Unsupported response code") {
                message = "the response's status line is not one HTTP reads: an unknown version or no three-digit status code (\(message))"
            } else if message.contains("HTTP/0.9") {
                message = "the response has no status line: its first bytes are not HTTP/1.x or HTTP/2, and an HTTP/0.9 answer is not read (\(message))"
            }
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL:
            kind = .invalidURL
        case CURLE_OUT_OF_MEMORY where !requestSent:
            // Nothing of the request went out: libcurl 7.88 fails a request head longer than it
            // sends (`RequestHeadLimit`) so, which a signer's query or a redirect's location can
            // make after the agent checked it.
            kind = .other
            message = "the request could not be sent: its head is longer than libcurl sends (\(RequestHeadLimit.bytes >> 20) MiB), or memory ran out"
        case CURLE_OUT_OF_MEMORY where connected:
            // libcurl 7.88 says "Out of memory" when a line of the response's head outgrows its
            // 100 KiB buffer, which a hostile server does at will.
            kind = .invalidResponse
            message = "a line of the response's head is longer than libcurl reads (100 KiB), or memory ran out"
        case CURLE_COULDNT_RESOLVE_PROXY where message.hasPrefix("Unsupported proxy "),
             CURLE_COULDNT_CONNECT where message.hasPrefix("Unsupported proxy "):
            // libcurl cannot read the proxy the environment names ("Unsupported proxy syntax in
            // …", "Unsupported proxy scheme for …"): a setting to change, not worth a retry.
            kind = .other
            message = "the proxy setting cannot be used (\(message))"
        case CURLE_COULDNT_RESOLVE_PROXY:
            // Not retried, as a server's name that does not resolve is not.
            kind = .couldNotResolveHost
            message = "the proxy's name could not be resolved (\(message))"
        case CURLE_COULDNT_RESOLVE_HOST where !proxy.isEmpty && !namesHost(of: target, message):
            // A SOCKS proxy's name is resolved as a server's is, and said with the same code.
            kind = .couldNotResolveHost
            message = "the proxy's name could not be resolved (\(message))"
        case CURLE_COULDNT_RESOLVE_HOST:
            kind = .couldNotResolveHost
        case CURLE_COULDNT_CONNECT where !proxy.isEmpty && !namesEndpoint(of: target, message):
            // Through a proxy libcurl connects to the proxy alone, and names what it tried.
            kind = .proxyUnreachable
            message = "could not connect to the proxy (\(message))"
        case CURLE_COULDNT_CONNECT:
            kind = .couldNotConnect
        case CURLE_OPERATION_TIMEDOUT:
            kind = (!connected && connectTimeoutApplied) ? .connectTimeout : .totalTimeout
        case _ where [CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CIPHER, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_INVALIDCERTSTATUS].contains(code)
            && ASCII.hasPrefixIgnoringCase(proxy, "https://") && (!tunnelOpened || !ASCII.hasPrefixIgnoringCase(target, "https://")):
            // With an https proxy, TLS with the proxy comes first, and the server's own only
            // inside a tunnel the proxy opened: before that, the failure is the proxy's, whose
            // certificate the server's settings (`insecure`, a CA file) do not cover.
            kind = .proxyTLSFailure
            message = "the TLS connection to the proxy failed (\(message))"
                + (code == CURLE_PEER_FAILED_VERIFICATION ? "; the proxy's certificate is checked against the system's authorities" : "")
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            kind = .pinMismatch
        case CURLE_PEER_FAILED_VERIFICATION:
            kind = ASCII.containsIgnoringCase(message, "expired") || ASCII.containsIgnoringCase(message, "not yet valid") ? .certificateExpired
                : ASCII.containsIgnoringCase(message, "host name") || ASCII.containsIgnoringCase(message, "hostname") ? .hostnameMismatch
                : .untrustedCertificate
        case CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM,
            CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE,
            CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ISSUER_ERROR,
            CURLE_SSL_CRL_BADFILE, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_SHUTDOWN_FAILED:
            kind = .tlsFailure
        case CURLE_TOO_MANY_REDIRECTS:
            kind = .tooManyRedirects
        case CURLE_FILESIZE_EXCEEDED:
            kind = .responseTooLarge
        case CURLE_WRITE_ERROR where responseLimitHit:
            kind = .responseTooLarge
        case CURLE_WRITE_ERROR, CURLE_READ_ERROR:
            kind = .localFile
        case CURLE_RECV_ERROR where ASCII.containsIgnoringCase(message, "too large response headers"):
            // libcurl 7.88 stops reading a head past 300 KiB in all with a receive error, as if
            // the connection had failed: the server's answer, not the network.
            kind = .invalidResponse
            message = "the response's head is longer than libcurl reads (300 KiB in all)"
        case CURLE_RECV_ERROR where ASCII.containsIgnoringCase(message, "CONNECT tunnel failed"):
            // libcurl 7.88 reports a proxy's refusal of a tunnel as a receive error. The server
            // was never asked: nothing is known of whether it can be reached.
            kind = .proxyRefused
            message = "the proxy refused the tunnel to the server (\(message))"
        case CURLE_PROXY where message.hasPrefix("Could not resolve host:") || message.hasPrefix("Failed to resolve"):
            // `socks5://` and `socks4://` resolve the server's name here, once the proxy has
            // answered, and say so with CURLE_PROXY: the server's name, not the proxy's failure.
            kind = .couldNotResolveHost
        case CURLE_PROXY:
            // A SOCKS proxy's handshake that failed: it refused the exchange, or is no SOCKS proxy.
            kind = .proxyRefused
            message = "the proxy would not carry the exchange (\(message))"
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR:
            kind = message.localizedCaseInsensitiveContains("chunk") ? .invalidResponse : .connectionReset
        case CURLE_PARTIAL_FILE:
            kind = .incompleteResponse
        case CURLE_GOT_NOTHING:
            kind = .emptyResponse
        case CURLE_WEIRD_SERVER_REPLY, CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_BAD_CONTENT_ENCODING:
            kind = .invalidResponse
        default:
            kind = .other
        }
        return TransferError(kind: kind, code: Int(code.rawValue), message: message)
    }

    /// Whether libcurl's connect failure `message` ("Failed to connect to HOST port PORT after…")
    /// names the host and port of `url`: the server was tried, not a proxy (one `no_proxy` exempts
    /// it from, which libcurl decides). The URL is read by libcurl's own
    /// parser; a URL it cannot read counts as the server's, as before a proxy was told apart, and
    /// so does an international host: libcurl converts it to its ASCII form to connect and names
    /// that form, which libcurl 7.88's URL parser cannot make (`CURLU_PUNYCODE` fails).
    static func namesEndpoint(of url: String, _ message: String) -> Bool {
        guard let (host, port) = LibcurlURL.endpoint(of: url) else { return true }
        let said = message.lowercased()
        return said.contains("to \(host) port \(port) ") || said.contains("to \(host). port \(port) ")
    }

    /// Whether libcurl's resolve failure `message` ("Could not resolve host: NAME") names the
    /// host of `url`; a URL libcurl cannot read counts as named.
    static func namesHost(of url: String, _ message: String) -> Bool {
        guard let (host, _) = LibcurlURL.endpoint(of: url) else { return true }
        var said = message.lowercased()
        if said.hasSuffix(".") { said.removeLast() }
        return said.hasSuffix("resolve host: \(host)")
    }
}
