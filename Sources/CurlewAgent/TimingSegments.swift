import Foundation

/// One phase of a request on a time axis starting at submission, in microseconds.
public struct TimingSegment: Sendable, Equatable {
    public var phase: String
    public var start: Int64
    /// nil when the phase did not happen (reused connection, plain HTTP).
    public var duration: Int64?
}

extension TimingBreakdown {
    /// The phases in order with where each starts, for waterfalls. Redirects follow the queue; the
    /// final hop's DNS, connect and TLS follow them; send, wait and receive end at the total, so any
    /// protocol setup in between shows as a gap.
    public var segments: [TimingSegment] {
        let finalHopStart = queued + (redirect ?? 0)
        let connectStart = finalHopStart + (dns ?? 0)
        let tlsStart = connectStart + (connect ?? 0)
        let receiveStart = queued + total - receive
        let waitStart = receiveStart - wait
        let sendStart = waitStart - send
        var segments = [TimingSegment(phase: "queued", start: 0, duration: queued)]
        if let redirect { segments.append(TimingSegment(phase: "redirects", start: queued, duration: redirect)) }
        segments += [
            TimingSegment(phase: "dns", start: finalHopStart, duration: dns),
            TimingSegment(phase: "connect", start: connectStart, duration: connect),
            TimingSegment(phase: "tls", start: tlsStart, duration: tls),
            TimingSegment(phase: "send", start: sendStart, duration: send),
            TimingSegment(phase: "wait", start: waitStart, duration: wait),
            TimingSegment(phase: "receive", start: receiveStart, duration: receive),
        ]
        return segments
    }

    /// From submission to the last byte. Saturating: a breakdown made in code (one read from a
    /// log has bounded phases) may hold any values, and every reader of a total goes through here.
    public var elapsed: Int64 {
        let (sum, overflow) = queued.addingReportingOverflow(total)
        return overflow ? (total > 0 ? .max : .min + 1) : sum
    }

    /// Microseconds as "0.412 ms", "12.3 ms" or "1.204 s".
    public static func format(_ microseconds: Int64) -> String {
        let milliseconds = Double(microseconds) / 1000
        if milliseconds >= 1000 { return String(format: "%.3f s", milliseconds / 1000) }
        if milliseconds >= 10 { return String(format: "%.1f ms", milliseconds) }
        return String(format: "%.3f ms", milliseconds)
    }
}
