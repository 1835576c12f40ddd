import BenchMeasurement
import Foundation
import Synchronization

/// A running process's peak resident memory, sampled from `/proc/PID/status` (`VmHWM`, the
/// kernel's high-water mark for the process's own memory) every few milliseconds until stopped.
///
/// wait4's `ru_maxrss` cannot be used for a spawned child: Linux carries the spawning process's
/// high-water mark into the child across exec, so every small child reports the parent's peak.
final class HighWaterMark: Sendable {
    private let peakKiB = Atomic<Int>(0)
    private let running = Atomic<Bool>(true)
    private let done = DispatchSemaphore(value: 0)

    init(pid: pid_t) {
        let process = "\(pid)"
        Thread.detachNewThread { [self] in
            while running.load(ordering: .acquiring) {
                if let value = ProcessStatus.kilobytes("VmHWM", of: process) { peakKiB.store(max(peakKiB.load(ordering: .relaxed), value), ordering: .relaxed) }
                usleep(5_000)
            }
            done.signal()
        }
    }

    /// Stops sampling and returns the highest mark seen, in KiB.
    func stop() -> Int {
        running.store(false, ordering: .releasing)
        done.wait()
        return peakKiB.load(ordering: .relaxed)
    }
}
