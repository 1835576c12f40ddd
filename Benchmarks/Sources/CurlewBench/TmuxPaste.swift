import BenchMeasurement
import Foundation

/// A paste as users make one: a curl command with a body of `bytes` bytes pasted (bracketed, as
/// a terminal pastes) into Compose of `curlew tui` on a new workspace, in a tmux pane. Times the
/// paste until the interface says the command became a request, and the interface's CPU
/// seconds meanwhile (tmux's own writing into the terminal is in the time, not in the CPU).
struct TmuxPaste {
    struct Outcome {
        var seconds: Double
        var cpuSeconds: Double
    }

    let curlew: String
    let bytes: Int

    func measure(deadline: Double) throws -> Outcome {
        let directory = NSTemporaryDirectory() + "curlew-bench-paste-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let command = directory + "/command.txt"
        let text = "curl -X POST http://127.0.0.1:9/post -H 'Content-Type: text/plain' --data '" + String(repeating: "a", count: bytes) + "'"
        try Data(text.utf8).write(to: URL(fileURLWithPath: command))
        let pane = TmuxPane()
        defer { pane.stop() }
        let pid = try pane.start("exec \(TmuxPane.quoted(curlew)) tui --no-mouse \(TmuxPane.quoted(directory + "/curlew.yaml"))")
        try pane.wait(deadline: 10, every: 0.01) { $0.contains(" in flight") }
        try pane.send("1")
        let cpuBefore = TmuxPane.cpuSeconds(pid: pid)
        let started = ContinuousClock.now
        try pane.paste(file: command)
        try pane.wait(deadline: deadline, every: 0.005) { $0.contains("the curl command is now") }
        let elapsed = seconds(ContinuousClock.now - started)
        return Outcome(seconds: elapsed, cpuSeconds: TmuxPane.cpuSeconds(pid: pid) - cpuBefore)
    }
}
