import BenchMeasurement
import Foundation

/// A pane of a private tmux server running one program, read back with `capture-pane`: how the
/// interface scenarios drive `curlew tui` as users run it.
struct TmuxPane {
    private let socket = "curlew-bench-\(getpid())"
    private let session = "bench"

    /// Starts `command` in a new pane of `columns`x`rows`; returns the pane's process id. The
    /// command should `exec` the program, so that the process is the program itself.
    func start(_ command: String, columns: Int = 160, rows: Int = 50) throws -> Int32 {
        // The command that starts the server must not capture: the server would keep the output pipe open.
        try tmux(capturing: false, ["new-session", "-d", "-s", session, "-x", "\(columns)", "-y", "\(rows)", command])
        guard let pid = Int32(try tmux(["display-message", "-p", "-t", session, "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw BenchError("tmux gave no pane pid")
        }
        return pid
    }

    func stop() {
        _ = try? tmux(capturing: false, ["kill-server"])
    }

    /// Types `keys` (tmux key names, or text with `literal`).
    func send(_ keys: String, literal: Bool = false) throws {
        try tmux(["send-keys", "-t", session] + (literal ? ["-l"] : []) + [keys])
    }

    /// Pastes the file at `path` as a terminal paste (bracketed, as a terminal pastes).
    func paste(file path: String) throws {
        try tmux(["load-buffer", "-b", "bench", path])
        try tmux(["paste-buffer", "-p", "-d", "-b", "bench", "-t", session])
    }

    /// Polls the screen until `done` holds; returns seconds since the call. Throws past `deadline`
    /// seconds, with the screen as it was.
    @discardableResult
    func wait(deadline: Double, every interval: Double, until done: (String) throws -> Bool) throws -> Double {
        let started = ContinuousClock.now
        while true {
            let screen = try tmux(["capture-pane", "-p", "-t", session])
            if try done(screen) { return seconds(ContinuousClock.now - started) }
            if seconds(ContinuousClock.now - started) > deadline {
                throw BenchError("the interface did not get there within \(deadline) s; the screen:\n\(screen)")
            }
            usleep(UInt32(interval * 1_000_000))
        }
    }

    @discardableResult
    private func tmux(capturing: Bool = true, _ arguments: [String]) throws -> String {
        let result = try ChildProcess.run("tmux", ["-L", socket] + arguments, capturesOutput: capturing)
        guard result.status == 0 else { throw BenchError("tmux \(arguments.first ?? "") failed with status \(result.status)") }
        return result.output
    }

    /// User plus system CPU seconds of a running process, from /proc/PID/stat.
    static func cpuSeconds(pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command name: state is field 3, utime field 14, stime field 15.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// `text` quoted for the shell tmux runs the command with.
    static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
