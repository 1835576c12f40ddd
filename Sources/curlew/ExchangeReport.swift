import CurlewAgent
import Foundation

/// The text `curlew send` and `curlew demo` print for one finished request.
struct ExchangeReport {
    var message: DebugMessage
    var showsRequest: Bool
    var showsBody: Bool
    /// `curlew send` leaves the error out: it goes to stderr as the command's failure, once.
    var showsError = true

    var text: String {
        var lines: [String] = []
        if showsRequest, let sent = message.sent {
            lines += sent.head.components(separatedBy: "\r\n").dropLast().map { "> " + $0 }
            if let body = sent.body { lines.append(Self.describe(body, prefix: "> ")) }
        }
        if let response = message.response {
            lines.append("< " + response.statusLine)
            lines += response.headers.map { "< \($0.name): \($0.value)" }
            lines.append("<")
            // An event stream's body is not kept: its events were shown as they came, and its
            // summary follows.
            if showsBody, response.body.size > 0, !message.hasUnkeptEventStreamBody { lines.append(Self.describe(response.body, prefix: "")) }
        }
        if showsError, let error = message.error {
            lines.append("error: \(error)")
        }
        if message.sent != nil || message.response != nil, let chart = TimingChart.lines(message) {
            lines.append("")
            lines.append("Timing  \(connectionSummary)")
            lines += chart
        }
        if let tls = message.connection?.tls {
            lines.append("")
            lines += Self.describe(tls)
        }
        if let transfer = message.transfer, !transfer.lines.isEmpty {
            lines.append("")
            lines.append("Transfer")
            lines += transfer.lines.map { "  " + $0 }
        }
        if let stream = message.stream, stream.eventCount > 0 || stream.reconnectAttempt > 0 {
            lines.append("")
            lines.append("Stream  \(stream.eventCount) event(s) in \(stream.chunks) chunk(s), \(stream.bytes) B"
                + (stream.lastEventID.map { ", last event ID \($0)" } ?? "")
                + (stream.retryMilliseconds.map { ", retry \($0) ms" } ?? "")
                + (stream.reconnectAttempt > 0 ? ", reconnection \(stream.reconnectAttempt)" : ""))
        }
        if let pipeline = message.pipeline {
            let rows = pipeline.lines
            if !rows.isEmpty {
                lines.append("")
                lines.append("Pipeline")
                lines += rows.map { "  " + $0 }
            }
        }
        return lines.joined(separator: "\n")
    }

    private var connectionSummary: String {
        guard let connection = message.connection else { return "" }
        var parts: [String] = []
        if !connection.remoteIP.isEmpty { parts.append("\(connection.remoteIP):\(connection.remotePort)") }
        if !connection.httpVersion.isEmpty { parts.append("HTTP/\(connection.httpVersion)") }
        parts.append(message.connectionKind)
        if let uses = connection.requestsOnConnection, uses > 1 { parts.append("request \(uses) on it") }
        if connection.redirectCount > 0 { parts.append("\(connection.redirectCount) redirect(s)") }
        parts.append("\(connection.bytesSent) B sent, \(message.bytesReceivedText) received")
        return "(" + parts.joined(separator: ", ") + ")"
    }

    /// The TLS session: version, cipher, ALPN, then each certificate with its pin.
    static func describe(_ tls: TLSInfo) -> [String] {
        var lines = ["TLS  \(tls.version)  \(tls.cipher)" + (tls.alpn.isEmpty ? "  (no ALPN)" : "  ALPN \(tls.alpn)")]
        for (index, certificate) in tls.certificates.enumerated() {
            lines.append("  [\(index)] \(certificate.subject)")
            lines.append("      issuer  \(certificate.issuer)")
            if !certificate.alternativeNames.isEmpty { lines.append("      names   \(certificate.alternativeNames.joined(separator: ", "))") }
            lines.append("      valid   \(certificate.notBefore) to \(certificate.notAfter)")
            lines.append("      pin     \(certificate.publicKeyPin)")
        }
        return lines
    }

    /// Whether `describe` shows a body as text (it is text without a NUL), not as a preview.
    static func showsAsText(_ body: BodySnapshot) -> Bool {
        body.text.map { !$0.contains("\u{0}") } ?? false
    }

    /// A body as text when it is text, otherwise its size and a hex preview.
    static func describe(_ body: BodySnapshot, prefix: String) -> String {
        if showsAsText(body), let text = body.text {
            let shown = text.hasSuffix("\n") ? String(text.dropLast()) : text
            // The body's size on the wire: the kept text may be longer or shorter once redacted.
            let note = body.isTruncated ? "\n\(prefix)[… \(body.size) bytes in all, the rest not kept]" : ""
            return shown.split(separator: "\n", omittingEmptySubsequences: false).map { prefix + $0 }.joined(separator: "\n") + note
        }
        let preview = body.data.prefix(32).map { String(format: "%02x", $0) }.joined(separator: " ")
        return "\(prefix)[\(body.size) bytes of binary data\(body.contentType.map { ", " + $0 } ?? "")] \(preview)\(body.size > 32 ? " …" : "")"
    }

    /// One line: method, URL, status or error, duration.
    static func summary(_ message: DebugMessage) -> String {
        let method = message.original?.method ?? "?"
        let url = message.original?.url ?? "?"
        let outcome = message.error.map { "✗ \($0.kind.rawValue): \($0.message)" }
            ?? message.response.map { "✓ \($0.statusCode)" } ?? message.state.rawValue
        let duration = message.timings.map { TimingBreakdown.format($0.elapsed) }
            ?? (message.pipeline?.hasNoNetworkTiming == true ? "from \(message.pipeline!.source.rawValue), no network" : "-")
        let attempt = (message.pipeline?.attempt ?? 1) > 1 ? "  (attempt \(message.pipeline!.attempt))" : ""
        return "\(method) \(url)  \(outcome)  \(duration)\(message.connection?.reused == true ? "  (reused)" : "")\(attempt)"
    }
}
