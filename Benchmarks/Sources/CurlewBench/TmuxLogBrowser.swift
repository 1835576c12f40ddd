import BenchMeasurement
import Foundation

/// The log browser as users run it: `curlew tui LOG` in a tmux pane of 160x50 on a private tmux
/// server, read back with `capture-pane`. Times the first screen, the whole log indexed, a key
/// answered while indexing goes on, and a filter typed at the prompt; reads the process's peak
/// RSS from the kernel's high-water mark.
///
/// Before the clock starts, the interface's binary is started once (`--version`), read through,
/// and tmux started once (`-V`): writing a log of gigabytes just before pushes them and the
/// Swift libraries out of the page cache, and the first start then reads them back from disk,
/// which measures the disk, whatever the log (one such start took 1.45 s, the next 0.04 s). That
/// first start's time is reported beside the figures.
struct TmuxLogBrowser {
    struct Outcome {
        /// Wall seconds of the binary's start before the measurement (`curlew --version`).
        var firstStart: Double
        var firstScreen: Double
        var indexed: Double
        /// Seconds from a key (`/`) to its prompt on screen, for each probe made while indexing.
        var keyLatencies: [Double]
        var filter: Double
        var matched: Int
        var peakRSSKiB: Int
        var cpuSeconds: Double
    }

    let curlew: String
    let log: String
    let entries: Int
    private let pane = TmuxPane()

    init(curlew: String, log: String, entries: Int) {
        self.curlew = curlew
        self.log = log
        self.entries = entries
    }

    func measure(filter: String, deadline: Double) throws -> Outcome {
        defer { pane.stop() }
        let firstStart = try ChildProcess.run(curlew, ["--version"]).wallSeconds
        if let binary = FileHandle(forReadingAtPath: curlew) {
            while let chunk = try binary.read(upToCount: 8 << 20), !chunk.isEmpty {}
            try binary.close()
        }
        _ = try ChildProcess.run("tmux", ["-V"])
        let started = ContinuousClock.now
        // exec: the pane's process is curlew itself, so its /proc entry is the interface's.
        let pid = try pane.start("exec \(TmuxPane.quoted(curlew)) tui --no-mouse \(TmuxPane.quoted(log))")
        try pane.wait(deadline: deadline, every: 0.01) { $0.contains(" entries") }
        let firstScreen = seconds(ContinuousClock.now - started)
        var keyLatencies: [Double] = []
        var lastProbe = ContinuousClock.now
        let complete = "\(entries) of \(entries) entries"
        try pane.wait(deadline: deadline, every: 0.05) { screen in
            if screen.contains(complete) && !screen.contains("(indexing…)") { return true }
            // A key every half second while indexing goes on: `/` opens the filter prompt.
            if seconds(ContinuousClock.now - lastProbe) >= 0.5 {
                let pressed = ContinuousClock.now
                try pane.send("/")
                try pane.wait(deadline: 5, every: 0.01) { $0.contains("filter: ") }
                keyLatencies.append(seconds(ContinuousClock.now - pressed))
                try pane.send("Escape")
                try pane.wait(deadline: 5, every: 0.01) { !$0.contains("filter: ") }
                lastProbe = ContinuousClock.now
            }
            return false
        }
        let indexedAt = seconds(ContinuousClock.now - started)
        try pane.send("/")
        try pane.wait(deadline: 5, every: 0.005) { $0.contains("filter: ") }
        try pane.send(filter, literal: true)
        try pane.wait(deadline: 5, every: 0.005) { $0.contains(filter) }
        let entered = ContinuousClock.now
        try pane.send("Enter")
        var matched = 0
        try pane.wait(deadline: deadline, every: 0.005) { screen in
            guard let range = screen.range(of: #"(\d+) entries match"#, options: .regularExpression) else { return false }
            matched = Int(screen[range].split(separator: " ").first ?? "") ?? 0
            return true
        }
        let filtered = seconds(ContinuousClock.now - entered)
        let peak = ProcessStatus.kilobytes("VmHWM", of: "\(pid)") ?? 0
        return Outcome(firstStart: firstStart, firstScreen: firstScreen, indexed: indexedAt, keyLatencies: keyLatencies,
                       filter: filtered, matched: matched, peakRSSKiB: peak, cpuSeconds: TmuxPane.cpuSeconds(pid: pid))
    }
}
