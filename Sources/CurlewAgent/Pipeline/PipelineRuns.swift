import CurlewLocking

/// The requests going through the middle layer, by handle id, while they run.
final class PipelineRuns: Sendable {
    private let runs = Locked<[UInt64: PipelineRun]>([:])

    func add(_ run: PipelineRun) {
        runs.withLock { $0[run.handle.id] = run }
    }

    func remove(_ id: UInt64) {
        _ = runs.withLock { $0.removeValue(forKey: id) }
    }

    func run(_ id: UInt64) -> PipelineRun? {
        runs.withLock { $0[id] }
    }

    var all: [PipelineRun] {
        runs.withLock { Array($0.values) }
    }
}
