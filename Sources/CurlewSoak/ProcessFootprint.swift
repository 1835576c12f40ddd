import Foundation

/// Open descriptors, threads and resident memory of this process, from /proc.
struct ProcessFootprint: Equatable {
    var descriptors: Int
    var threads: Int
    /// Of `threads`, libdispatch's pool workers (named after its root queues, `…qos…`): a pool
    /// that keeps a worker or two a while longer under load (found when a loaded machine kept one
    /// past the soak's ten seconds) rather than threads a run leaked.
    var poolThreads: Int
    var residentBytes: Int

    /// Threads not in libdispatch's pool: the process's own, which must not outlive a run.
    var ownThreads: Int { threads - poolThreads }

    /// How many pool workers a settled process may keep: libdispatch's pool is bounded, and a
    /// run that leaked work onto it would keep growing it past this.
    static let poolThreadsAllowed = 16

    /// The names of this process's threads (`/proc/self/task/*/comm`), sorted: what a failure
    /// names when threads outlive the run.
    static func threadNames() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { task in
            (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        }.sorted()
    }

    static func now() throws -> ProcessFootprint {
        let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
        let names = threadNames()
        let statm = try String(contentsOfFile: "/proc/self/statm", encoding: .utf8).split(separator: " ")
        let pages = statm.count > 1 ? Int(statm[1]) ?? 0 : 0
        return ProcessFootprint(descriptors: descriptors, threads: names.count, poolThreads: names.filter { $0.contains("qos") }.count,
                                residentBytes: pages * Int(sysconf(Int32(_SC_PAGESIZE))))
    }

    /// Whether this footprint holds no more than `target`: descriptors and threads (`threadsWithin`).
    func isWithin(_ target: ProcessFootprint) -> Bool {
        descriptors <= target.descriptors && threadsWithin(target)
    }

    /// Whether this footprint's threads are no more than `target`'s: the process's own, and pool
    /// workers within `poolThreadsAllowed` (or the target's, if more).
    func threadsWithin(_ target: ProcessFootprint) -> Bool {
        ownThreads <= target.ownThreads && poolThreads <= max(target.poolThreads, Self.poolThreadsAllowed)
    }

    /// The footprint once closing connections and idle threads have settled: polled until it is
    /// within `target` (libdispatch lets idle worker threads go after a few seconds), or
    /// without a target until it stops changing; for at most ten seconds.
    static func settled(toward target: ProcessFootprint?) async throws -> ProcessFootprint {
        var last = try now()
        for _ in 0..<50 {
            try await Task.sleep(for: .milliseconds(200))
            let current = try now()
            if let target, current.isWithin(target), current.threads <= target.threads { return current }
            if target == nil, current.descriptors == last.descriptors, current.threads == last.threads { return current }
            last = current
        }
        return last
    }
}
