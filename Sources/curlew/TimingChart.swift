import CurlewAgent

/// A text waterfall of a request's phases: one line per phase with its duration and a bar placed
/// on a shared time axis, so where the time went is visible at a glance.
enum TimingChart {
    static func lines(_ timings: TimingBreakdown, reused: Bool, width: Int = 40) -> [String] {
        let span = max(Double(timings.queued + timings.total), 1)
        func bar(from start: Int64, length: Int64) -> String {
            let column = Int((Double(start) / span * Double(width)).rounded(.down))
            let cells = max(1, Int((Double(length) / span * Double(width)).rounded()))
            return String(repeating: " ", count: min(column, width - 1)) + String(repeating: "█", count: min(cells, width - min(column, width - 1)))
        }
        var rows: [(String, Int64?, Int64, String?)] = []
        let connectStart = timings.queued + (timings.dns ?? 0)
        let tlsStart = connectStart + (timings.connect ?? 0)
        let receiveStart = timings.queued + timings.total - timings.receive
        let waitStart = receiveStart - timings.wait
        let sendStart = waitStart - timings.send
        if let redirect = timings.redirect { rows.append(("redirects", redirect, timings.queued, nil)) }
        rows.append(("queued", timings.queued, 0, nil))
        rows.append(("dns", timings.dns, timings.queued, reused ? "reused connection" : nil))
        rows.append(("connect", timings.connect, connectStart, reused ? "reused connection" : nil))
        rows.append(("tls", timings.tls, tlsStart, reused ? "reused connection" : "no TLS"))
        rows.append(("send", timings.send, sendStart, nil))
        rows.append(("wait", timings.wait, waitStart, nil))
        rows.append(("receive", timings.receive, receiveStart, nil))
        var output = rows.map { name, duration, start, absentReason in
            let label = name.padding(toLength: 9, withPad: " ", startingAt: 0)
            guard let duration else { return "  \(label) \("n/a".leftPadded(to: 10))  (\(absentReason ?? "did not happen"))" }
            return "  \(label) \(format(duration).leftPadded(to: 10))  |\(bar(from: start, length: duration))"
        }
        output.append("  \("total".padding(toLength: 9, withPad: " ", startingAt: 0)) \(format(timings.queued + timings.total).leftPadded(to: 10))")
        return output
    }

    /// Microseconds as "0.412 ms", "12.3 ms" or "1.204 s".
    static func format(_ microseconds: Int64) -> String {
        let milliseconds = Double(microseconds) / 1000
        if milliseconds >= 1000 { return String(format: "%.3f s", milliseconds / 1000) }
        if milliseconds >= 10 { return String(format: "%.1f ms", milliseconds) }
        return String(format: "%.3f ms", milliseconds)
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
