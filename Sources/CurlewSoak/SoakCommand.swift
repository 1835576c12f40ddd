import ArgumentParser
import CurlewAgent
import CurlewDemoServer
import CurlewSessions
import Foundation

/// `curlew-soak`: many requests in batches, chains and ordered windows against the demo server,
/// a seeded share of them hitting fault endpoints and some cancelled at a random moment, then
/// checks what must hold whatever happened: one terminal event per request, group verdicts that
/// follow their policies, one log entry per finished request, no leaked descriptors or threads,
/// and memory that stays flat.
@main
struct SoakCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "curlew-soak",
        abstract: "Fault soak: requests in groups against the demo server with injected faults and cancels."
    )

    @Option(help: "Requests to issue.")
    var requests = 100_000

    @Option(help: "Seed of the workload (which requests fault, which are cancelled and when).")
    var seed: UInt64 = 1

    @Option(help: "Groups running at once.")
    var concurrency = 16

    @Option(name: .customLong("fault-percent"), help: "Share of requests sent to fault endpoints.")
    var faultPercent = 10

    @Option(name: .customLong("cancel-percent"), help: "Share of requests cancelled at a random moment.")
    var cancelPercent = 2

    func validate() throws {
        guard requests > 0, concurrency > 0 else { throw ValidationError("--requests and --concurrency must be positive") }
        guard (0...100).contains(faultPercent), (0...100).contains(cancelPercent) else { throw ValidationError("percentages are from 0 to 100") }
    }

    func run() async throws {
        let server = try await DemoServer.start()
        let logDirectory = NSTemporaryDirectory() + "curlew-soak-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: logDirectory) }
        let before = try await ProcessFootprint.settled(toward: nil)
        let namesBefore = ProcessFootprint.threadNames()

        let report = try await SoakRun(
            baseURL: server.baseURL, logPath: logDirectory + "/soak.jsonl",
            workload: Workload(seed: seed, faultPercent: faultPercent, cancelPercent: cancelPercent),
            requests: requests, concurrency: concurrency
        ).run()

        let after = try await ProcessFootprint.settled(toward: before)
        try await server.stop()
        var failures = report.failures
        if after.descriptors > before.descriptors {
            failures.append("descriptors: \(before.descriptors) before, \(after.descriptors) after")
        }
        if !after.threadsWithin(before) {
            failures.append("threads: \(before.threads) before (\(namesBefore.joined(separator: ", "))), \(after.threads) after "
                            + "(\(ProcessFootprint.threadNames().joined(separator: ", "))); at most \(ProcessFootprint.poolThreadsAllowed) libdispatch workers may stay")
        }
        print(report.summary)
        print("descriptors \(before.descriptors) -> \(after.descriptors), threads \(before.threads) -> \(after.threads)")
        guard failures.isEmpty else {
            for failure in failures.prefix(20) { print("FAILED: \(failure)") }
            if failures.count > 20 { print("… and \(failures.count - 20) more") }
            throw ExitCode(1)
        }
        print("soak: every check held")
    }
}
