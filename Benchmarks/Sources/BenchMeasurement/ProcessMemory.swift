import Foundation

/// A duration in seconds.
public func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// Current resident memory of this process, in KiB (from /proc/self/status).
public func currentRSSKiB() -> Int {
    ProcessStatus.kilobytes("VmRSS", of: "self") ?? 0
}

/// Peak resident memory of this process so far, in KiB.
public func peakRSSKiB() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Int(usage.ru_maxrss)
}

/// Writes a client run's result as the one JSON line the harness reads, with this process's peak
/// memory.
public func emit(_ result: RunResult) throws {
    var result = result
    result.peakRSSKiB = peakRSSKiB()
    FileHandle.standardOutput.write(Data((String(decoding: try JSONEncoder().encode(result), as: UTF8.self) + "\n").utf8))
}
