import CurlewAgent
import CurlewLocking

/// Counts, per request, announcements and terminal events as observers hear them, and notes any
/// request that finished before it was announced or finished twice.
final class TerminalCounter: NetworkObserver {
    private struct Record {
        var announced = false
        var terminals = 0
        var state: RequestState?
    }

    private let records = Locked<[UInt64: Record]>([:])
    private let problems = Locked<[String]>([])

    func requestWillBeSent(_ request: RequestInfo) { announce(request.id) }
    func requestIsWaiting(_ request: RequestInfo, reason: WaitReason) { announce(request.id) }

    func requestDidFinish(_ request: RequestInfo, state: RequestState) {
        let problem = records.withLock { records -> String? in
            var record = records[request.id] ?? Record()
            defer { records[request.id] = record }
            record.terminals += 1
            record.state = state
            if record.terminals > 1 { return "request \(request.id) finished \(record.terminals) times" }
            if !record.announced { return "request \(request.id) finished before it was announced" }
            return nil
        }
        if let problem { problems.withLock { $0.append(problem) } }
    }

    private func announce(_ id: UInt64) {
        records.withLock { records in records[id, default: Record()].announced = true }
    }

    /// Requests that received a terminal event.
    var finishedCount: Int { records.withLock { $0.values.filter { $0.terminals > 0 }.count } }
    var announcedCount: Int { records.withLock { $0.values.filter(\.announced).count } }

    func terminals(of id: UInt64) -> Int { records.withLock { $0[id]?.terminals ?? 0 } }

    func states() -> [RequestState: Int] {
        records.withLock { records in
            records.values.reduce(into: [:]) { counts, record in if let state = record.state { counts[state, default: 0] += 1 } }
        }
    }

    /// Everything wrong, including requests announced and never finished.
    func findings() -> [String] {
        let unfinished = records.withLock { $0.filter { $0.value.announced && $0.value.terminals == 0 }.map(\.key) }
        return problems.withLock { $0 } + unfinished.prefix(10).map { "request \($0) was announced and never finished" }
    }
}
