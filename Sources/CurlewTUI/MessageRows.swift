import CurlewAgent
import Foundation

/// The one-line row format shared by Live and the log browser.
enum MessageRows {
    static func heading(width: Int) -> String {
        columns(time: "time", method: "method", status: "status", duration: "duration", size: "size", url: "url", width: width)
    }

    static func columns(time: String, method: String, status: String, duration: String, size: String, url: String, width: Int) -> String {
        let fixed = 12 + 1 + 7 + 1 + 6 + 1 + 10 + 1 + 9 + 1
        return TextWidth.fit(time, to: 12) + " " + TextWidth.fit(method, to: 7) + " " + TextWidth.fit(status, to: 6) + " "
            + TextWidth.fitRight(duration, to: 10) + " " + TextWidth.fitRight(size, to: 9) + " " + TextWidth.fit(url, to: max(0, width - fixed))
    }

    /// A finished exchange's status as a row shows it: the response's code, else `cancl` for one
    /// cancelled, else `ERR`. The one rule for Live, the log browser and History.
    static func status(of message: DebugMessage) -> String {
        message.response.map { String($0.statusCode) } ?? (message.state == .cancelled ? "cancl" : "ERR")
    }

    /// A finished exchange's row style: dim when cancelled, bad for an error without an answer,
    /// else its status's.
    static func style(of message: DebugMessage) -> Style {
        message.state == .cancelled ? .dim : message.error != nil && message.response == nil ? .bad : .status(message.response?.statusCode)
    }

    /// The row of a log entry whose line can no longer be read, from what the index holds of
    /// it (no start time: the index keeps none). Hiding secrets, its URL shows its host and its
    /// path's first segment only: without the record, a credential its path repeats (a Basic
    /// password in `/basic-auth/user/PASS`, from a log written with `--no-redact`) cannot be told.
    static func row(summary: SessionRecordSummary, hiding: RedactionPolicy?, width: Int) -> String {
        let status = summary.statusCode > 0 ? String(summary.statusCode) : summary.failed ? "ERR" : ""
        let url = hiding.map { shortened($0.redactText(summary.url)) } ?? summary.url
        return columns(time: "", method: summary.method, status: status, duration: summary.elapsedMicros.map(TimingBreakdown.format) ?? "",
                       size: summary.responseSize.map { ByteCountText.of($0) } ?? "", url: url, width: width)
    }

    /// `url` up to its path's first segment, `…` for what follows (more of the path, a query).
    private static func shortened(_ url: String) -> String {
        let bytes = Array(url.utf8)
        let slash = UInt8(ascii: "/")
        func endsPart(_ byte: UInt8) -> Bool { byte == slash || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") }
        // A scheme only at the start (`/cb?next=https://x` has none): letters, digits, + - ., then `://`.
        let scheme = bytes.prefix { ($0 | 0x20) >= UInt8(ascii: "a") && ($0 | 0x20) <= UInt8(ascii: "z") || "0123456789+-.".utf8.contains($0) }.count
        let authority = scheme > 0 && bytes[scheme...].starts(with: "://".utf8) ? scheme + 3 : 0
        guard let path = bytes[authority...].firstIndex(where: endsPart) else { return url }
        guard let cut = bytes[path] == slash ? bytes[(path + 1)...].firstIndex(where: endsPart) : path else { return url }
        return String(decoding: bytes[..<cut], as: UTF8.self) + (bytes[cut] == slash ? "/…" : "…")
    }

    /// The text and style of a row for a request that may still be running.
    /// `hiding`: the policy whose secrets (a URL's secret query parameters) the row hides, nil
    /// while they are revealed.
    static func row(info: RequestInfo, state: RequestState, progress: RequestProgress?, message: DebugMessage?, hiding: RedactionPolicy?,
                    clock: Calendar, width: Int) -> (String, Style) {
        let time = info.startedAt.clockText(using: clock)
        func shown(_ url: String) -> String { hiding?.redactText(url) ?? url }
        guard let message else {
            let status = state == .inFlight ? "…" : state == .pending ? "wait" : state.rawValue
            let size = progress.map { ByteCountText.of($0.bytesReceived) } ?? ""
            return (columns(time: time, method: info.method, status: status, duration: "", size: size, url: shown(info.url), width: width), .dim)
        }
        // Hidden as the message's own redaction hides it: with the credentials it carries (a Basic
        // password the path repeats), so a row never shows what its detail and log hide.
        let url = hiding.map { $0.including(credentialsOf: message).redactText(message.original?.url ?? info.url) } ?? (message.original?.url ?? info.url)
        let status = Self.status(of: message)
        let duration = message.timings.map { TimingBreakdown.format($0.elapsed) } ?? ""
        let size = message.response.map { ByteCountText.of($0.body.size) } ?? ""
        let shownURL = message.error.map { "\(url)  ✗ \($0.kind.rawValue)" } ?? url
        let style = Self.style(of: message)
        return (columns(time: time, method: message.original?.method ?? info.method, status: status, duration: duration, size: size, url: shownURL, width: width), style)
    }
}
