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

/// User-space CPU time this process has used so far, in seconds, all threads.
public func userCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
}

/// Writes a client run's result as the one JSON line the harness reads, with this process's peak
/// memory and, given the user CPU time read when the client's work began, its user CPU per request.
public func emit(_ result: RunResult, userCPUSecondsAtStart: Double? = nil) throws {
    var result = result
    result.peakRSSKiB = peakRSSKiB()
    if let start = userCPUSecondsAtStart, result.requests > 0 {
        result.userCPUMicrosPerRequest = (userCPUSeconds() - start) * 1e6 / Double(result.requests)
    }
    FileHandle.standardOutput.write(Data((String(decoding: try JSONEncoder().encode(result), as: UTF8.self) + "\n").utf8))
}
