import Foundation
import Synchronization

/// What one client run produced. Latencies in milliseconds.
struct RunResult: Codable, Sendable {
    var requests: Int
    var errors: Int
    var seconds: Double
    var p50: Double
    var p99: Double
    var bytes: Int64
    /// Peak resident memory of the process that ran the client, in KiB (filled in by the parent).
    var peakRSSKiB: Int = 0
    /// CPU time (user + system) of the client's process per request, in microseconds, start-up
    /// included (filled in by the parent).
    var cpuMicrosPerRequest: Double = 0
    /// CPU time nginx used per request during the run, in microseconds (filled in by the parent;
    /// nil when it could not be read).
    var serverCPUMicrosPerRequest: Double?
    /// Context switches of the client's threads per request, start-up included (filled in by the parent).
    var contextSwitchesPerRequest: Double = 0
    /// Heap allocations per request, from a separate counted run (nil when not measured).
    var allocationsPerRequest: Double?
    /// Instructions per request under callgrind, all threads, from separate runs (nil when not measured).
    var instructionsPerRequest: Double?

    /// Fills in what only the parent knows, from the finished child.
    mutating func attribute(_ child: ChildResult) {
        peakRSSKiB = child.peakRSSKiB
        cpuMicrosPerRequest = requests > 0 ? child.cpuSeconds * 1e6 / Double(requests) : 0
        contextSwitchesPerRequest = requests > 0 ? Double(child.contextSwitches) / Double(requests) : 0
    }

    var requestsPerSecond: Double { seconds > 0 ? Double(requests) / seconds : 0 }
    var megabytesPerSecond: Double { seconds > 0 ? Double(bytes) / seconds / 1_048_576 : 0 }

    /// Builds a result from per-request latencies (milliseconds).
    init(latencies: [Double], errors: Int, seconds: Double, bytes: Int64) {
        let sorted = latencies.sorted()
        requests = latencies.count
        self.errors = errors
        self.seconds = seconds
        p50 = Self.percentile(sorted, 0.50)
        p99 = Self.percentile(sorted, 0.99)
        self.bytes = bytes
    }

    init(requests: Int, errors: Int, seconds: Double, p50: Double, p99: Double, bytes: Int64) {
        self.requests = requests
        self.errors = errors
        self.seconds = seconds
        self.p50 = p50
        self.p99 = p99
        self.bytes = bytes
    }

    static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }
}

/// Per-request latencies collected from any thread, under one lock taken once per request (the
/// bare loop, which records on its one thread, takes none).
final class LatencyRecorder: Sendable {
    private struct Tally {
        var values: [Double] = []
        var failures = 0
        var bytes: Int64 = 0
    }

    private let tally = Mutex(Tally())
    /// Off for long runs that measure memory, so the recorder's own array does not count.
    private let keepsLatencies: Bool

    init(capacity: Int, keepsLatencies: Bool = true) {
        self.keepsLatencies = keepsLatencies
        if keepsLatencies { tally.withLock { $0.values.reserveCapacity(capacity) } }
    }

    func record(since start: ContinuousClock.Instant, bytes: Int) {
        let milliseconds = keepsLatencies ? seconds(ContinuousClock.now - start) * 1000 : 0
        tally.withLock { tally in
            tally.bytes += Int64(bytes)
            if keepsLatencies { tally.values.append(milliseconds) }
        }
    }

    func fail() {
        tally.withLock { $0.failures += 1 }
    }

    func result(seconds: Double) -> RunResult {
        let tally = tally.withLock { $0 }
        return RunResult(latencies: tally.values, errors: tally.failures, seconds: seconds, bytes: tally.bytes)
    }
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// Current resident memory of this process, in KiB (from /proc/self/status).
func currentRSSKiB() -> Int {
    ProcessStatus.kilobytes("VmRSS", of: "self") ?? 0
}

/// Peak resident memory of this process so far, in KiB.
func peakRSSKiB() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Int(usage.ru_maxrss)
}
