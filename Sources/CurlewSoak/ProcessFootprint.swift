import Foundation

/// Open descriptors, threads and resident memory of this process, from /proc.
struct ProcessFootprint: Equatable {
    var descriptors: Int
    var threads: Int
    var residentBytes: Int

    static func now() throws -> ProcessFootprint {
        let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
        let threads = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count
        let statm = try String(contentsOfFile: "/proc/self/statm", encoding: .utf8).split(separator: " ")
        let pages = statm.count > 1 ? Int(statm[1]) ?? 0 : 0
        return ProcessFootprint(descriptors: descriptors, threads: threads, residentBytes: pages * Int(sysconf(Int32(_SC_PAGESIZE))))
    }

    /// The footprint once closing connections and idle threads have settled: polled until it is
    /// no larger than `target` (libdispatch lets idle worker threads go after a few seconds), or
    /// without a target until it stops changing; for at most ten seconds.
    static func settled(toward target: ProcessFootprint?) async throws -> ProcessFootprint {
        var last = try now()
        for _ in 0..<50 {
            try await Task.sleep(for: .milliseconds(200))
            let current = try now()
            if let target, current.descriptors <= target.descriptors, current.threads <= target.threads { return current }
            if target == nil, current.descriptors == last.descriptors, current.threads == last.threads { return current }
            last = current
        }
        return last
    }
}
