import Foundation

/// What one client run produced. Latencies in milliseconds.
public struct RunResult: Codable, Sendable {
    public var requests: Int
    public var errors: Int
    public var seconds: Double
    public var p50: Double
    public var p99: Double
    public var bytes: Int64
    /// Peak resident memory of the process that ran the client, in KiB (filled in by the parent).
    public var peakRSSKiB: Int = 0
    /// CPU time (user + system) of the client's process per request, in microseconds, start-up
    /// included (filled in by the parent).
    public var cpuMicrosPerRequest: Double = 0
    /// CPU time nginx used per request during the run, in microseconds (filled in by the parent;
    /// nil when it could not be read).
    public var serverCPUMicrosPerRequest: Double?
    /// Context switches of the client's threads per request, start-up included (filled in by the parent).
    public var contextSwitchesPerRequest: Double = 0
    /// Heap allocations per request, from a separate counted run (nil when not measured).
    public var allocationsPerRequest: Double?
    /// Instructions per request under callgrind, all threads, from separate runs (nil when not measured).
    public var instructionsPerRequest: Double?

    public var requestsPerSecond: Double { seconds > 0 ? Double(requests) / seconds : 0 }
    public var megabytesPerSecond: Double { seconds > 0 ? Double(bytes) / seconds / 1_048_576 : 0 }

    /// Builds a result from per-request latencies (milliseconds).
    public init(latencies: [Double], errors: Int, seconds: Double, bytes: Int64) {
        let sorted = latencies.sorted()
        requests = latencies.count
        self.errors = errors
        self.seconds = seconds
        p50 = Self.percentile(sorted, 0.50)
        p99 = Self.percentile(sorted, 0.99)
        self.bytes = bytes
    }

    public init(requests: Int, errors: Int, seconds: Double, p50: Double, p99: Double, bytes: Int64) {
        self.requests = requests
        self.errors = errors
        self.seconds = seconds
        self.p50 = p50
        self.p99 = p99
        self.bytes = bytes
    }

    public static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }
}
