/// One phase of a timing waterfall laid out on a bar of a given width: the CLI prints it as text
/// and the interface draws it with colours, so both show the same bars and the same reasons.
public struct WaterfallRow: Sendable, Equatable {
    public var phase: String
    /// "0.412 ms", or "n/a" for a phase that did not happen.
    public var duration: String
    /// Where the phase's bar starts and how many cells it takes; nil when it did not happen.
    public var bar: (start: Int, length: Int)?
    /// Why the phase did not happen ("reused connection", "no TLS"); nil when it did.
    public var reason: String?

    public static func == (lhs: WaterfallRow, rhs: WaterfallRow) -> Bool {
        lhs.phase == rhs.phase && lhs.duration == rhs.duration && lhs.bar?.start == rhs.bar?.start
            && lhs.bar?.length == rhs.bar?.length && lhs.reason == rhs.reason
    }
}

/// How far an exchange got, for the phases its timings hold as zero although they did not
/// happen: the waterfall and the log tools (`log diff`, `log stats`) read them through this one
/// definition, so a row the waterfall calls missing is a phase the tools leave out.
public struct ExchangeReach: Sendable, Equatable {
    /// Whether the request went out (see `DebugMessage.requestWentOut`).
    public var requestWentOut: Bool
    /// Whether any of a response arrived (see `DebugMessage.receiveHappened`).
    public var receiveHappened: Bool
    /// Whether the exchange ever left the queue (see `DebugMessage.leftTheQueue`).
    public var leftTheQueue: Bool

    public init(requestWentOut: Bool, receiveHappened: Bool, leftTheQueue: Bool = true) {
        self.requestWentOut = requestWentOut
        self.receiveHappened = receiveHappened
        self.leftTheQueue = leftTheQueue
    }

    /// Why `phase` did not happen although the timings hold it; nil when it did.
    public func unreachedReason(_ phase: String) -> String? {
        if !leftTheQueue, phase != "queued" { return "never left the queue" }
        return switch phase {
        case "send", "wait": requestWentOut ? nil : "not sent"
        case "receive": !requestWentOut ? "not sent" : receiveHappened ? nil : "no response"
        default: nil
        }
    }
}

extension TimingBreakdown {
    /// The phases as waterfall rows on a bar `width` cells wide, scaled to the elapsed time.
    /// Every phase that happened gets at least one cell; one `reach` says was not reached
    /// reads why instead.
    public func waterfall(width: Int, reused: Bool, reach: ExchangeReach) -> [WaterfallRow] {
        let width = max(1, width)
        let span = max(Double(elapsed), 1)
        return segments.map { segment in
            let missing = reach.unreachedReason(segment.phase)
            guard let duration = segment.duration, missing == nil else {
                let reason = missing
                    ?? (reused && ["dns", "connect", "tls"].contains(segment.phase) ? "reused connection"
                    : segment.phase == "tls" ? "no TLS" : "did not happen")
                return WaterfallRow(phase: segment.phase, duration: "n/a", bar: nil, reason: reason)
            }
            let start = min(Int((Double(segment.start) / span * Double(width)).rounded(.down)), width - 1)
            let length = min(max(1, Int((Double(duration) / span * Double(width)).rounded())), width - start)
            return WaterfallRow(phase: segment.phase, duration: Self.format(duration), bar: (start, length), reason: nil)
        }
    }
}

extension DebugMessage {
    /// Whether the exchange had a receive phase: a response's head arrived, or bytes of one did,
    /// or an answer did that was refused as malformed (no status line, a bad status, lengths
    /// that disagree), whose bytes libcurl counts as none. An exchange that ended while it
    /// waited (a cancel, a timeout) records a receive of zero, which is no phase: the
    /// waterfall, `log diff` and `log stats` leave it out alike.
    public var receiveHappened: Bool {
        response != nil || (timings?.receive ?? 0) > 0 || error?.kind == .invalidResponse
    }

    /// Whether the request went out: an exchange that ended while its connection was being set
    /// up (refused, timed out, a failed handshake) records a send, wait and receive of zero,
    /// which are no phases, and the waterfall, `log diff` and `log stats` leave them out alike.
    public var requestWentOut: Bool {
        sent != nil || response != nil || timings.map { $0.send > 0 || $0.wait > 0 || $0.receive > 0 } ?? false
    }

    /// Whether the exchange ever left the queue: it began to resolve or connect, took a
    /// connection, or followed a redirect. One cancelled (or timed out) while it waited for a
    /// connection has only queued time, and no network total: `log stats` leaves it out of the
    /// totals rather than count it as the fastest answer.
    public var leftTheQueue: Bool {
        requestWentOut || timings.map { $0.dns != nil || $0.connect != nil || $0.tls != nil || $0.redirect != nil } ?? false
    }

    /// Which connection the exchange used, as the waterfall's title and `curlew send` say it.
    public var connectionKind: String {
        guard leftTheQueue else { return "no connection" }
        return connection?.reused == true ? "reused connection" : "new connection"
    }

    /// The bytes the exchange received, as the CLI and the interface both say it: libcurl's
    /// count (`"235 B"`), or, for an answer libcurl refused before counting a byte of it (a
    /// status line it does not read as HTTP, a head line too long), that they went uncounted,
    /// rather than a count of 0 beside a receive phase.
    public var bytesReceivedText: String {
        let count = connection?.bytesReceived ?? 0
        return count == 0 && error?.kind == .invalidResponse ? "uncounted (libcurl refused the answer)" : "\(count) B"
    }

    /// How far the exchange got.
    public var reach: ExchangeReach {
        ExchangeReach(requestWentOut: requestWentOut, receiveHappened: receiveHappened, leftTheQueue: leftTheQueue)
    }

    /// The waterfall of this exchange's timings, read from the message as the CLI and the
    /// interface both show it (connection reused or not, how far it got); nil without timings.
    public func waterfall(width: Int) -> [WaterfallRow]? {
        timings?.waterfall(width: width, reused: connection?.reused ?? false, reach: reach)
    }
}
