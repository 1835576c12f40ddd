import BenchMeasurement
import CurlewAgent
import Foundation

/// Runs every client on every workload against one nginx, alternating clients, and reports medians.
struct Orchestrator {
    var smoke = false
    var runs = 5
    /// nil: print only (the smoke run in `make test` records nothing).
    var resultsPath: String? = "RESULTS.md"
    /// `--clients curlew,curlew-no-observers`: only these (for before-and-after runs of one client).
    var clients = ClientKind.allCases
    /// The scale and start-up scenarios; skipped when `--clients` picks clients.
    var scenarios = true
    /// `--scenarios million,interface-log`: only these scenarios, and no client runs.
    var scenarioNames: Set<String>?
    /// The AsyncHTTPClient program: `CURLEW_BENCH_PEER`, else as the package in Benchmarks/
    /// builds it, from there (the harness runs in that directory).
    let peerExecutable = ProcessInfo.processInfo.environment["CURLEW_BENCH_PEER"]
        ?? FileManager.default.currentDirectoryPath + "/.build/release/AsyncHTTPClientBench"

    init(arguments: [String]) throws {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--smoke": smoke = true; runs = 1
            case "--runs": runs = iterator.next().flatMap(Int.init) ?? runs
            case "--results": resultsPath = iterator.next() ?? resultsPath
            case "--no-results": resultsPath = nil
            case "--clients":
                let names = (iterator.next() ?? "").split(separator: ",").map(String.init)
                scenarios = false
                clients = try names.map { name in
                    guard let kind = ClientKind(rawValue: name) else { throw BenchError("unknown client \(name)") }
                    return kind
                }
            case "--scenarios":
                scenarioNames = Set((iterator.next() ?? "").split(separator: ",").map(String.init))
                clients = []
            default: throw BenchError("unknown argument \(argument)")
            }
        }
    }

    func run() throws {
        let nginx = try NginxServer()
        defer { nginx.stop() }
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().path
        var clients = clients
        if smoke, clients.contains(.asyncHTTPClient) {
            // The smoke run builds the harness alone, with the tests (a peer binary left from
            // another build could be stale); a full run compares with every peer.
            say("AsyncHTTPClient left out of the smoke run (make bench builds and runs it)")
            clients.removeAll { $0 == .asyncHTTPClient }
        } else if clients.contains(.asyncHTTPClient), !FileManager.default.isExecutableFile(atPath: peerExecutable) {
            throw BenchError("\(peerExecutable) is not built: run make bench, or build it in Benchmarks/ (swift build -c release --product AsyncHTTPClientBench)")
        }
        var report = Report(smoke: smoke, runs: runs)
        say("nginx on \(nginx.baseURL); \(runs) run(s) per client\(smoke ? " (smoke)" : "")\n")
        defer { try? FileManager.default.removeItem(atPath: Scenarios.millionLogPath) }
        let probes = clients.isEmpty ? nil : try CostProbes(orchestrator: self, executable: executable)
        defer { probes?.removeFiles() }
        for workload in clients.isEmpty ? [] : Workload.standard(smoke: smoke) {
            var samples: [ClientKind: [RunResult]] = [:]
            for run in 1...runs {
                for kind in clients {
                    let serverBefore = nginx.cpuNanoseconds()
                    var result = try measure(kind, workload, url: nginx.baseURL + workload.path, executable: executable)
                    if let before = serverBefore, let after = nginx.cpuNanoseconds(), after >= before, result.requests > 0 {
                        result.serverCPUMicrosPerRequest = Double(after - before) / 1000 / Double(result.requests)
                    }
                    samples[kind, default: []].append(result)
                    say(String(format: "%@ run %d %-28@ %9.0f req/s  p50 %.2f ms  p99 %.2f ms  %.1f MiB  %.1f µs CPU/req  server %@ µs/req%@", workload.name, run, kind.title,
                                 result.requestsPerSecond, result.p50, result.p99, Double(result.peakRSSKiB) / 1024, result.cpuMicrosPerRequest,
                                 result.serverCPUMicrosPerRequest.map { String(format: "%.1f", $0) } ?? "–",
                                 result.errors > 0 ? "  \(result.errors) errors" : ""))
                    if result.errors > 0, kind != .wrk { throw BenchError("\(kind.rawValue) had \(result.errors) errors on \(workload.name)") }
                }
            }
            var medians = samples.mapValues(Self.medians)
            for kind in clients {
                let url = nginx.baseURL + workload.path
                medians[kind]?.allocationsPerRequest = try probes?.allocationsPerRequest(kind, workload, url: url)
                if CostProbes.countsInstructions(of: kind, on: workload, smoke: smoke) {
                    medians[kind]?.instructionsPerRequest = try probes?.instructionsPerRequest(kind, workload, url: url)
                }
                say(String(format: "%@ costs %-28@ %@ allocations/req  %@ instructions/req", workload.name, kind.title,
                           medians[kind]?.allocationsPerRequest.map { String(format: "%.1f", $0) } ?? "–",
                           medians[kind]?.instructionsPerRequest.map { String(format: "%.0f", $0) } ?? "–"))
            }
            report.add(workload, medians: medians, samples: samples)
        }
        let findings = Findings()
        for scenario in scenarios ? Scenarios.all(smoke: smoke, findings: findings) : [] where scenarioNames?.contains(scenario.name) ?? true {
            let text = try scenario.run(executable, nginx) { report.verdict($0, $1) }
            report.addScenario(text)
        }
        report.settleReach(loggerMicros: findings.loggerCPUMicrosPerEntry)
        say("\n" + report.text)
        guard let resultsPath else { return }
        let swiftVersion = (try? ChildProcess.run("swift", ["--version"]).output.split(separator: "\n").first.map(String.init)) ?? nil
        try report.append(to: resultsPath, libcurl: Agent.libcurlVersion.split(separator: " ").first.map(String.init) ?? "libcurl",
                          swift: swiftVersion ?? "Swift")
        say("\nappended to \(resultsPath)")
    }

    /// One run of one client. `wrapper` runs the client under another program (valgrind);
    /// `environment` is added to the client's (the allocation counter).
    func measure(_ kind: ClientKind, _ workload: Workload, url: String, executable: String, count: Int? = nil,
                 wrapper: [String] = [], environment: [String: String] = [:]) throws -> RunResult {
        let count = count ?? workload.count
        switch kind {
        case .curlParallel:
            return try ExternalClients.curlParallel(url: url, count: count, concurrency: workload.concurrency, environment: environment)
        case .wrk:
            return try ExternalClients.wrk(url: url, duration: workload.wrkSeconds, concurrency: workload.concurrency, bodySize: workload.bodySize)
        default:
            let command = wrapper + (kind == .asyncHTTPClient ? [peerExecutable, url, "\(count)", "\(workload.concurrency)"]
                : [executable, "client", kind.rawValue, url, "\(count)", "\(workload.concurrency)"])
            let child = try ChildProcess.run(command[0], Array(command.dropFirst()), discardStandardError: !wrapper.isEmpty, environment: environment)
            guard child.status == 0, let line = child.output.split(separator: "\n").last else {
                throw BenchError("\(kind.rawValue) failed with status \(child.status)")
            }
            var result = try JSONDecoder().decode(RunResult.self, from: Data(line.utf8))
            result.attribute(child)
            return result
        }
    }

    /// The run with the median throughput, its CPU and context-switch figures replaced by their
    /// own medians (the run with the median throughput need not have the median CPU time).
    static func medians(_ results: [RunResult]) -> RunResult {
        func median(_ figure: (RunResult) -> Double) -> Double { results.map(figure).sorted()[results.count / 2] }
        var typical = results.sorted { $0.requestsPerSecond < $1.requestsPerSecond }[results.count / 2]
        typical.cpuMicrosPerRequest = median(\.cpuMicrosPerRequest)
        let serverFigures = results.compactMap(\.serverCPUMicrosPerRequest).sorted()
        typical.serverCPUMicrosPerRequest = serverFigures.count == results.count ? serverFigures[results.count / 2] : nil
        typical.contextSwitchesPerRequest = median(\.contextSwitchesPerRequest)
        return typical
    }
}
