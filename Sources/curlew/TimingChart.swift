import CurlewAgent

/// A text waterfall of a request's phases: one line per phase with its duration and a bar placed
/// on a shared time axis, so where the time went is visible at a glance.
enum TimingChart {
    /// The chart of `message`'s timings; nil when it has none.
    static func lines(_ message: DebugMessage, width: Int = 40) -> [String]? {
        guard let timings = message.timings, let rows = message.waterfall(width: width) else { return nil }
        var output = rows.map { row in
            let label = row.phase.padding(toLength: 9, withPad: " ", startingAt: 0)
            guard let bar = row.bar else { return "  \(label) \(row.duration.leftPadded(to: 10))  (\(row.reason ?? ""))" }
            return "  \(label) \(row.duration.leftPadded(to: 10))  |" + String(repeating: " ", count: bar.start) + String(repeating: "█", count: bar.length)
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
