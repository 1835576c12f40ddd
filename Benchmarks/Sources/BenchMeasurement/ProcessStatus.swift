import Foundation

/// Memory figures of a process from `/proc/PID/status` (`/proc/self/status` for this one).
public enum ProcessStatus {
    /// The value of a `kB` field such as `VmHWM` or `VmRSS`, in KiB; nil when the process or the
    /// field is gone.
    public static func kilobytes(_ field: String, of process: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(process)/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else { return nil }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    }
}
