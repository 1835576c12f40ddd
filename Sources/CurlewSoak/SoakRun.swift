import CurlewAgent
import CurlewSessions
import Foundation

/// One soak run: issues the workload in groups, then checks every request, group and log entry.
struct SoakRun {
    let baseURL: String
    let logPath: String
    var workload: Workload
    let requests: Int
    let concurrency: Int

    struct Report {
        var failures: [String] = []
        var summary = ""
    }

    func run() async throws -> Report {
        var workload = workload
        let started = ContinuousClock.now
        let counter = TerminalCounter()
        let logger = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: logPath))
        var agent: Agent? = Agent(config: NetworkConfig(baseURL: baseURL, maxConnectionsPerHost: 16))
        agent!.addObserver(counter)
        agent!.addObserver(logger)

        var failures: [String] = []
        var issued = 0
        var cancelsScheduled = 0
        var groupsRun = 0
        var residentAt: [(percent: Int, bytes: Int)] = []
        var peakResident = 0
        var nextSample = 20

        try await withThrowingTaskGroup(of: [String].self) { tasks in
            var running = 0
            while issued < requests || running > 0 {
                if issued < requests, running < concurrency {
                    let (group, policy) = workload.group(budget: requests - issued)
                    let cancels = workload.cancels(for: group.members.count)
                    issued += group.members.count
                    cancelsScheduled += cancels.count
                    groupsRun += 1
                    running += 1
                    tasks.addTask { [agent] in try await Self.runGroup(group, policy: policy, cancels: cancels, on: agent!) }
                    continue
                }
                failures += try await tasks.next() ?? []
                running -= 1
                let percent = issued * 100 / requests
                if percent >= nextSample {
                    let resident = try ProcessFootprint.now().residentBytes
                    residentAt.append((nextSample, resident))
                    nextSample += nextSample < 50 ? 30 : 50
                }
                peakResident = max(peakResident, try ProcessFootprint.now().residentBytes)
            }
        }

        await agent!.waitForObservers()
        agent = nil  // shuts the transfer thread down and closes every connection
        try logger.close()

        failures += counter.findings()
        let finished = counter.finishedCount
        if logger.entryCount != finished {
            failures.append("the log has \(logger.entryCount) entries for \(finished) finished requests")
        }
        let log = try SessionLogReader.read(path: logPath)
        if !log.skipped.isEmpty { failures.append("\(log.skipped.count) log lines do not parse, first: \(log.skipped[0])") }
        if log.messages.count != logger.entryCount { failures.append("\(log.messages.count) log lines read back of \(logger.entryCount) written") }
        if let warm = residentAt.first, let last = residentAt.last, last.bytes > warm.bytes + warm.bytes / 2 + (32 << 20) {
            failures.append("resident memory grew from \(warm.bytes >> 20) MiB at \(warm.percent) % to \(last.bytes >> 20) MiB")
        }

        let elapsed = ContinuousClock.now - started
        let seconds = elapsed.seconds
        let states = counter.states().sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.value) \($0.key.rawValue)" }.joined(separator: ", ")
        let summary = """
        soak: \(issued) requests in \(groupsRun) groups, \(workload.faultsInjected) sent to fault endpoints, \(cancelsScheduled) cancels scheduled
        \(finished) terminal events counted (\(states)); \(counter.announcedCount) announced; \(log.messages.count) log entries, all parsed
        \(String(format: "%.1f", seconds)) s, \(String(format: "%.0f", Double(finished) / max(seconds, 0.001))) requests/s; resident \(residentAt.map { "\($0.bytes >> 20) MiB at \($0.percent) %" }.joined(separator: ", ")), peak \(peakResident >> 20) MiB
        """
        return Report(failures: failures, summary: summary)
    }

    /// Runs one group, cancels members as scheduled, and checks its verdict and members.
    private static func runGroup(_ group: RequestGroup, policy: Workload.Policy, cancels: [(index: Int, after: Duration)], on agent: Agent) async throws -> [String] {
        let finished = AsyncStream<GroupHandle>.makeStream()
        let handle = agent.start(group, callbacks: GroupCallbacks(success: { finished.continuation.yield($0) }, failure: { finished.continuation.yield($0) }))
        let cancelling = Task {
            for (index, delay) in cancels.sorted(by: { $0.after < $1.after }) {
                try? await Task.sleep(for: delay)
                agent.cancelMember(at: index, of: handle)
            }
        }
        var iterator = finished.stream.makeAsyncIterator()
        _ = await iterator.next()
        cancelling.cancel()
        return VerdictCheck.problems(of: handle, policy: policy)
    }
}
