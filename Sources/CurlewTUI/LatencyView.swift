import CurlewAgent
import CurlewSessions

/// Latency mode's view: progress, percentiles per phase, and the histogram of total times.
enum LatencyView {
    static func draw(_ state: inout LatencyState, in area: Rect, into frame: inout FrameBuffer) {
        let stats = state.stats()
        let done = state.done
        // Answers with an error status count as errors, also inside a run whose verdict allowed
        // them (a batch of policy any); requests without an answer are counted apart, kept out
        // of the figures.
        let errors = "\(stats.total.errors) error\(stats.total.errors == 1 ? "" : "s")"
        let unanswered = state.unansweredSummary.map { " · \($0)" } ?? ""
        let counts = state.runsGroup
            ? "runs · \(state.runs.filter { !$0.succeeded }.count) failed · \(state.answeredCount) requests, \(errors)\(unanswered)"
                + (state.cancelledRuns > 0 ? " · \(state.cancelledRuns) cancelled" : "")
            : "answered · \(errors)\(unanswered)" + (state.cancelled > 0 ? " · \(state.cancelled) cancelled" : "")
        let ended = state.runsGroup ? state.runs.count : state.answeredCount
        frame.put("Latency  \(state.name) · \(ended)/\(state.total) \(counts)\(state.ended ? "" : " · x stops") · Esc closes",
                  row: area.row, column: area.column + 1, style: .title, width: area.width - 2)
        // Once ended, the bar shows how much ran: a run stopped after 3 of 10,000 is not full.
        let filled = state.ended ? state.completed : done
        frame.put(Chrome.progressBar(Double(filled) / Double(max(1, state.total)), width: max(10, area.width - 4)), row: area.row + 1, column: area.column + 1, style: .accent)
        var row = area.row + 3
        frame.put(TextWidth.fit("phase", to: 12) + TextWidth.fitRight("p50", to: 12) + TextWidth.fitRight("p90", to: 12) + TextWidth.fitRight("p99", to: 12),
                  row: row, column: area.column + 2, style: .dim)
        row += 1
        if state.runsGroup {
            // A whole run first: the time the group took, start to verdict.
            let run = state.runPercentiles
            let cells = [run.p50, run.p90, run.p99].map { TextWidth.fitRight($0.map(TimingBreakdown.format) ?? "-", to: 12) }.joined()
            frame.put(TextWidth.fit("run", to: 12) + cells, row: row, column: area.column + 2, style: .bold)
            row += 1
        }
        for phase in stats.total.phases where phase.p50 != nil && row < area.row + area.height {
            let cells = [phase.p50, phase.p90, phase.p99].map { TextWidth.fitRight($0.map(TimingBreakdown.format) ?? "-", to: 12) }.joined()
            frame.put(TextWidth.fit(phase.name, to: 12) + cells, row: row, column: area.column + 2, style: phase.name == "total" ? .bold : .plain)
            row += 1
        }
        row += 1
        guard row < area.row + area.height else { return }
        frame.put(state.runsGroup ? "run time" : "total time", row: row, column: area.column + 2, style: .dim)
        row += 1
        let histogram = state.runsGroup ? state.runHistogram : stats.histogram
        let widest = max(1, histogram.max() ?? 1)
        let barWidth = max(5, area.width - 30)
        let bounds = LogStats.bucketBounds
        for (index, count) in histogram.enumerated() where row < area.row + area.height {
            let label = index < bounds.count ? "< \(format(bounds[index])) ms" : "≥ \(format(bounds[bounds.count - 1])) ms"
            let bar = String(repeating: "█", count: count == 0 ? 0 : max(1, count * barWidth / widest))
            frame.put(TextWidth.fitRight(label, to: 11) + " " + TextWidth.fitRight("\(count)", to: 6) + " " + bar, row: row, column: area.column + 2,
                      style: count == 0 ? .dim : .plain)
            row += 1
        }
    }

    private static func format(_ milliseconds: Double) -> String {
        milliseconds == milliseconds.rounded() ? String(Int(milliseconds)) : String(milliseconds)
    }
}
