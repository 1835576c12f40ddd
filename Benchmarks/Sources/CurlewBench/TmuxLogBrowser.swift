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
    private let socket = "curlew-bench-\(getpid())"
    private let session = "browse"

    init(curlew: String, log: String, entries: Int) {
        self.curlew = curlew
        self.log = log
        self.entries = entries
    }

    func measure(filter: String, deadline: Double) throws -> Outcome {
        defer { _ = try? tmux(capturing: false, ["kill-server"]) }
        let firstStart = try ChildProcess.run(curlew, ["--version"]).wallSeconds
        if let binary = FileHandle(forReadingAtPath: curlew) {
            while let chunk = try binary.read(upToCount: 8 << 20), !chunk.isEmpty {}
            try binary.close()
        }
        _ = try ChildProcess.run("tmux", ["-V"])
        let started = ContinuousClock.now
        // exec: the pane's process is curlew itself, so its /proc entry is the interface's.
        try tmux(capturing: false, ["new-session", "-d", "-s", session, "-x", "160", "-y", "50", "exec \(Self.quoted(curlew)) tui --no-mouse \(Self.quoted(log))"])
        guard let pid = Int32(try tmux(["display-message", "-p", "-t", session, "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw BenchError("tmux gave no pane pid")
        }
        _ = try wait(deadline: deadline, every: 0.01) { $0.contains(" entries") }
        let firstScreen = seconds(ContinuousClock.now - started)
        var keyLatencies: [Double] = []
        var lastProbe = ContinuousClock.now
        let complete = "\(entries) of \(entries) entries"
        _ = try wait(deadline: deadline, every: 0.05) { screen in
            if screen.contains(complete) && !screen.contains("(indexing…)") { return true }
            // A key every half second while indexing goes on: `/` opens the filter prompt.
            if seconds(ContinuousClock.now - lastProbe) >= 0.5 {
                let pressed = ContinuousClock.now
                try tmux(["send-keys", "-t", session, "/"])
                _ = try wait(deadline: 5, every: 0.01) { $0.contains("filter: ") }
                keyLatencies.append(seconds(ContinuousClock.now - pressed))
                try tmux(["send-keys", "-t", session, "Escape"])
                _ = try wait(deadline: 5, every: 0.01) { !$0.contains("filter: ") }
                lastProbe = ContinuousClock.now
            }
            return false
        }
        let indexedAt = seconds(ContinuousClock.now - started)
        try tmux(["send-keys", "-t", session, "/"])
        _ = try wait(deadline: 5, every: 0.005) { $0.contains("filter: ") }
        try tmux(["send-keys", "-t", session, "-l", filter])
        _ = try wait(deadline: 5, every: 0.005) { $0.contains(filter) }
        let entered = ContinuousClock.now
        try tmux(["send-keys", "-t", session, "Enter"])
        var matched = 0
        _ = try wait(deadline: deadline, every: 0.005) { screen in
            guard let range = screen.range(of: #"(\d+) entries match"#, options: .regularExpression) else { return false }
            matched = Int(screen[range].split(separator: " ").first ?? "") ?? 0
            return true
        }
        let filtered = seconds(ContinuousClock.now - entered)
        let peak = ProcessStatus.kilobytes("VmHWM", of: "\(pid)") ?? 0
        return Outcome(firstStart: firstStart, firstScreen: firstScreen, indexed: indexedAt, keyLatencies: keyLatencies,
                       filter: filtered, matched: matched, peakRSSKiB: peak, cpuSeconds: Self.cpuSeconds(pid: pid))
    }

    /// Polls the screen until `done` holds; returns seconds since the call. Throws past `deadline`
    /// seconds, with the screen as it was.
    private func wait(deadline: Double, every interval: Double, until done: (String) throws -> Bool) throws -> Double {
        let started = ContinuousClock.now
        while true {
            let screen = try tmux(["capture-pane", "-p", "-t", session])
            if try done(screen) { return seconds(ContinuousClock.now - started) }
            if seconds(ContinuousClock.now - started) > deadline {
                throw BenchError("the log browser did not get there within \(deadline) s; the screen:\n\(screen)")
            }
            usleep(UInt32(interval * 1_000_000))
        }
    }

    /// Runs a tmux command on the private server. The command that starts the server must not
    /// capture: the server would keep the output pipe open.
    @discardableResult
    private func tmux(capturing: Bool = true, _ arguments: [String]) throws -> String {
        let result = try ChildProcess.run("tmux", ["-L", socket] + arguments, capturesOutput: capturing)
        guard result.status == 0 else { throw BenchError("tmux \(arguments.first ?? "") failed with status \(result.status)") }
        return result.output
    }

    /// User plus system CPU seconds of a running process, from /proc/PID/stat.
    private static func cpuSeconds(pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command name: state is field 3, utime field 14, stime field 15.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    private static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
