import Foundation
import Synchronization

/// Per-request latencies collected from any thread, under one lock taken once per request (the
/// bare loop, which records on its one thread, takes none).
public final class LatencyRecorder: Sendable {
    private struct Tally {
        var values: [Double] = []
        var failures = 0
        var bytes: Int64 = 0
    }

    private let tally = Mutex(Tally())
    /// Off for long runs that measure memory, so the recorder's own array does not count.
    private let keepsLatencies: Bool

    public init(capacity: Int, keepsLatencies: Bool = true) {
        self.keepsLatencies = keepsLatencies
        if keepsLatencies { tally.withLock { $0.values.reserveCapacity(capacity) } }
    }

    public func record(since start: ContinuousClock.Instant, bytes: Int) {
        let milliseconds = keepsLatencies ? seconds(ContinuousClock.now - start) * 1000 : 0
        tally.withLock { tally in
            tally.bytes += Int64(bytes)
            if keepsLatencies { tally.values.append(milliseconds) }
        }
    }

    public func fail() {
        tally.withLock { $0.failures += 1 }
    }

    public func result(seconds: Double) -> RunResult {
        let tally = tally.withLock { $0 }
        return RunResult(latencies: tally.values, errors: tally.failures, seconds: seconds, bytes: tally.bytes)
    }
}
