import Foundation
import Synchronization

/// Runs the built `curlew` with its output discarded and reports how it exited and its peak
/// resident memory: the kernel's high-water mark for the process (`VmHWM` in
/// `/proc/PID/status`), sampled every few milliseconds while it runs. (wait4's `ru_maxrss`
/// would not do: Linux carries the spawning test process's own peak into the child across exec.)
enum PeakMemoryRun {
    struct Outcome {
        var status: Int32
        var peakResidentKiB: Int
    }

    static func run(_ arguments: [String]) async throws -> Outcome {
        let child = try CurlewProcess(arguments)
        let path = "/proc/\(child.processIdentifier)/status"
        var peak = 0
        while child.isRunning {
            if let text = try? String(contentsOfFile: path, encoding: .utf8),
               let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
               let value = Int(line.split(separator: " ").dropFirst().first ?? "") {
                peak = max(peak, value)
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        let status = try await child.wait(timeout: .seconds(600))
        return Outcome(status: status, peakResidentKiB: peak)
    }
}
