import CurlewAgent

/// A text waterfall of a request's phases: one line per phase with its duration and a bar placed
/// on a shared time axis, so where the time went is visible at a glance.
enum TimingChart {
    static func lines(_ timings: TimingBreakdown, reused: Bool, width: Int = 40) -> [String] {
        let span = max(Double(timings.elapsed), 1)
        func bar(from start: Int64, length: Int64) -> String {
            let column = min(Int((Double(start) / span * Double(width)).rounded(.down)), width - 1)
            let cells = max(1, Int((Double(length) / span * Double(width)).rounded()))
            return String(repeating: " ", count: column) + String(repeating: "█", count: min(cells, width - column))
        }
        var output = timings.segments.map { segment in
            let label = segment.phase.padding(toLength: 9, withPad: " ", startingAt: 0)
            guard let duration = segment.duration else {
                let reason = reused ? "reused connection" : (segment.phase == "tls" ? "no TLS" : "did not happen")
                return "  \(label) \("n/a".leftPadded(to: 10))  (\(reason))"
            }
            return "  \(label) \(TimingBreakdown.format(duration).leftPadded(to: 10))  |\(bar(from: segment.start, length: duration))"
        }
        output.append("  \("total".padding(toLength: 9, withPad: " ", startingAt: 0)) \(TimingBreakdown.format(timings.elapsed).leftPadded(to: 10))")
        return output
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
