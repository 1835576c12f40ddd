import BenchMeasurement
import Foundation

/// The results table, the target checks and RESULTS.md.
struct Report {
    var smoke: Bool
    var runs: Int
    var sections: [String] = []
    var verdicts: [String] = []

    /// The AHC throughput target with the logger on, when missed: settled once the logger
    /// scenario has measured the logger's CPU per entry (`settleReach`).
    private var pendingReach: PendingReach?

    init(smoke: Bool, runs: Int) {
        self.smoke = smoke
        self.runs = runs
    }

    mutating func add(_ workload: Workload, medians: [ClientKind: RunResult], samples: [ClientKind: [RunResult]]) {
        guard let reference = medians[.curlew] else { return }
        var lines = ["### \(workload.title) (median of \(runs))", "",
                     "| client | req/s | MB/s | p50 ms | p99 ms | peak RSS | client CPU µs/req | server CPU µs/req | context switches/req | allocations/req | instructions/req | Curlew (1) ÷ this |",
                     "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for kind in ClientKind.allCases {
            guard let result = medians[kind] else { continue }
            let ratio = result.requestsPerSecond > 0 ? reference.requestsPerSecond / result.requestsPerSecond : 0
            let allocations = result.allocationsPerRequest.map { String(format: "%.1f", $0) } ?? "–"
            let instructions = result.instructionsPerRequest.map { String(format: "%.0f", $0) } ?? "–"
            let server = result.serverCPUMicrosPerRequest.map { String(format: "%.1f", $0) } ?? "–"
            lines.append(String(format: "| %@ | %.0f | %.1f | %.2f | %.2f | %.1f MiB | %.1f | %@ | %.2f | %@ | %@ | %.2fx |", kind.title, result.requestsPerSecond,
                                result.megabytesPerSecond, result.p50, result.p99, Double(result.peakRSSKiB) / 1024, result.cpuMicrosPerRequest,
                                server, result.contextSwitchesPerRequest, allocations, instructions, ratio)
                         + (result.errors > 0 ? " (\(result.errors) errors)" : ""))
        }
        sections.append(lines.joined(separator: "\n"))
        check(workload, medians, samples)
    }

    /// The performance targets: throughput and CPU per request against the bare libcurl loop and
    /// the peers, with and without observers.
    ///
    /// A target's ratio is the median of the runs' own ratios: the clients take turns within a
    /// run, so the two figures of a run were measured minutes apart at most, on the machine as it
    /// was then, and a slow spell that slows both cancels out. The text lists each run's ratio.
    private mutating func check(_ workload: Workload, _ medians: [ClientKind: RunResult], _ samples: [ClientKind: [RunResult]]) {
        func throughput(_ kind: ClientKind, against other: ClientKind, atLeast minimum: Double) {
            // A client left out of the run (`--clients`) has no target here.
            guard samples[kind] != nil, samples[other] != nil else { return }
            guard let ratio = Self.pairedRatio(samples[kind], samples[other], \.requestsPerSecond) else {
                return verdict(false, "\(workload.name) \(kind.rawValue): requests/s against \(other.rawValue) could not be measured")
            }
            let text = String(format: "%@ %@: requests/s %.2fx %@ (runs %@; target at least %.2fx)",
                              workload.name, kind.rawValue, ratio.median, other.rawValue, ratio.listed, minimum)
            guard ratio.median < minimum, kind == .curlew, other == .asyncHTTPClient, let theirs = medians[other] else {
                return verdict(ratio.median >= minimum, text)
            }
            // Settled after the logger scenario; its place in the list is kept.
            precondition(pendingReach == nil, "one target waits for the logger's figures")
            // The floor is Curlew's own work for a request nobody observes, when it ran; else
            // the capturing loop's (libcurl's part of logging in full), else the bare loop's.
            let floorKind: ClientKind = samples[.curlewNoObservers] != nil ? .curlewNoObservers
                : samples[.libcurlMultiCapturing] != nil ? .libcurlMultiCapturing : .libcurlMulti
            func withServer(_ kind: ClientKind) -> [Double] {
                (samples[kind] ?? []).compactMap { run in run.serverCPUMicrosPerRequest.map { run.cpuMicrosPerRequest + $0 } }
            }
            pendingReach = PendingReach(at: verdicts.count, text: text, required: minimum * theirs.requestsPerSecond, floorClient: floorKind,
                                        floorAndServer: withServer(floorKind), captureAndServer: withServer(.libcurlMultiCapturing))
            verdicts.append("")
        }
        func cpu(_ kind: ClientKind, atMost maximum: Double) {
            guard samples[kind] != nil, samples[.libcurlMulti] != nil else { return }
            guard let ratio = Self.pairedRatio(samples[kind], samples[.libcurlMulti], \.cpuMicrosPerRequest),
                  let mine = medians[kind]?.cpuMicrosPerRequest, let bare = medians[.libcurlMulti]?.cpuMicrosPerRequest else {
                return verdict(false, "\(workload.name) \(kind.rawValue): client CPU per request against libcurl-multi could not be measured")
            }
            verdict(ratio.median <= maximum, String(format: "%@ %@: client CPU per request %.2fx libcurl-multi (runs %@; medians %.1f vs %.1f µs; target at most %.2fx)",
                                                    workload.name, kind.rawValue, ratio.median, ratio.listed, mine, bare, maximum))
        }
        switch workload.name {
        case "small-c50":
            cpu(.curlew, atMost: 2.0)
            floorOfCapture(workload, medians, samples)
            throughput(.curlew, against: .curlParallel, atLeast: 1.5)
            throughput(.curlew, against: .asyncHTTPClient, atLeast: 2.0)
            cpu(.curlewNoObservers, atMost: 1.3)
            throughput(.curlewNoObservers, against: .libcurlMulti, atLeast: 0.8)
        case "small-c1":
            throughput(.curlewNoObservers, against: .libcurlMulti, atLeast: 0.8)
        default:
            throughput(.curlew, against: .libcurlMulti, atLeast: 0.9)
            throughput(.curlewNoObservers, against: .libcurlMulti, atLeast: 0.9)
            floorOfKeptBodies(workload, medians)
        }
    }

    /// The median of the runs' ratios of `figure`, run by run, and the ratios as text; nil when a
    /// run's figure is missing or zero.
    static func pairedRatio(_ mine: [RunResult]?, _ theirs: [RunResult]?, _ figure: (RunResult) -> Double) -> (median: Double, listed: String)? {
        guard let mine, let theirs, !mine.isEmpty, mine.count == theirs.count,
              theirs.allSatisfy({ figure($0) > 0 }) else { return nil }
        let ratios = zip(mine, theirs).map { figure($0) / figure($1) }
        return (ratios.sorted()[ratios.count / 2], ratios.map { String(format: "%.2f", $0) }.joined(separator: " "))
    }

    /// Settles the missed AsyncHTTPClient target: out of reach on this machine when even the
    /// least CPU per request Curlew without observers and nginx used together in one run, plus
    /// the logger's CPU per entry, is more than the cores have per request at the target's
    /// throughput. That is a lower bound for Curlew logging every exchange in full: it does at
    /// least what the same agent does for a request nobody observes (compose, start, collect,
    /// answer, and libcurl's work for it), the logger writes each record, and the server's work
    /// is the same; the debug messages, the observer lanes and libcurl's capture of the request
    /// as sent are left out. When Curlew without observers did not run, the capturing loop
    /// stands for libcurl's part (the bare loop when that did not run either). `loggerMicros`
    /// is nil when the logger scenario did not run.
    ///
    /// Out of reach for any client at all when the capturing loop, which runs no agent code but
    /// has libcurl capture what a log records, and nginx, plus the logger's CPU per entry, are
    /// already more: a client logging each exchange through libcurl with this logger could
    /// then meet it only by spending less than nothing on everything else.
    mutating func settleReach(loggerMicros: Double?) {
        guard let reach = pendingReach else { return }
        pendingReach = nil
        let cores = Double(ProcessInfo.processInfo.activeProcessorCount)
        let available = cores * 1e6 / reach.required
        guard let least = reach.floorAndServer.min() else {
            verdicts[reach.at] = "MISS " + reach.text + " (nginx's CPU could not be read, so whether it was within reach is not known)"
            return
        }
        let floor = least + (loggerMicros ?? 0)
        let outOfReach = floor > available
        let floorName = reach.floorClient == .curlewNoObservers ? "Curlew without observers"
            : "the " + String(reach.floorClient.title.drop { $0 != " " }.dropFirst()) + " (Curlew without observers did not run)"
        var arithmetic = String(format: ": %.0f req/s is %.2f µs of CPU per request on %.0f cores, client and server together; "
                                + "%@ and nginx used at least %.2f in a run", reach.required, available, cores, floorName, least)
        arithmetic += loggerMicros.map { String(format: ", the logger %.2f per entry", $0) } ?? " (the logger scenario did not run)"
        arithmetic += String(format: ": %.2f %@ %.2f, ", floor, outOfReach ? ">" : "≤", available)
            + (outOfReach ? "out of reach for Curlew logging with this logger on this machine" : "within reach")
        // The same sum without any agent: libcurl's capture alone, nginx and the record.
        var physically = false
        if reach.floorClient != .libcurlMultiCapturing, let logger = loggerMicros, let capture = reach.captureAndServer.min() {
            physically = capture + logger > available
            arithmetic += String(format: "; the loop capturing what a log records, which runs no agent code, and nginx used at least %.2f "
                                 + "in a run: %.2f %@ %.2f, ", capture, capture + logger, physically ? ">" : "≤", available)
                + (physically ? "out of reach for any client logging each exchange through libcurl with this logger on this machine"
                    : String(format: "leaving %.2f µs a request for all the agent's work", available - capture - logger))
        }
        verdicts[reach.at] = (physically ? "MISS (physically out of reach) " : outOfReach ? "MISS (out of reach) " : "MISS ") + reach.text + arithmetic
    }

    /// Not a target: what libcurl's part of a full log costs (the capturing loop against the bare
    /// loop, run by run), and how much Curlew with the logger adds to it, in CPU and instructions.
    private mutating func floorOfCapture(_ workload: Workload, _ medians: [ClientKind: RunResult], _ samples: [ClientKind: [RunResult]]) {
        guard let capture = Self.pairedRatio(samples[.libcurlMultiCapturing], samples[.libcurlMulti], \.cpuMicrosPerRequest) else { return }
        var text = String(format: "NOTE %@ (not a target): the bare loop capturing what a log records uses %.2fx the bare loop's CPU per request (runs %@)",
                          workload.name, capture.median, capture.listed)
        if let logged = Self.pairedRatio(samples[.curlew], samples[.libcurlMultiCapturing], \.cpuMicrosPerRequest) {
            text += String(format: "; Curlew with the logger %.2fx the capturing loop's (runs %@)", logged.median, logged.listed)
        }
        let instructions = [ClientKind.libcurlMulti, .libcurlMultiCapturing, .curlew].map { medians[$0]?.instructionsPerRequest }
        if let bare = instructions[0], let floor = instructions[1], let mine = instructions[2] {
            text += String(format: "; instructions per request %.0f, %.0f and %.0f", bare, floor, mine)
        }
        verdicts.append(text)
    }

    /// Not a target: how far the bare loop itself falls when it keeps each body in memory (one
    /// copy of every byte, which any client that hands bodies to its caller makes), and where
    /// Curlew stands against that floor.
    private mutating func floorOfKeptBodies(_ workload: Workload, _ medians: [ClientKind: RunResult]) {
        guard let bare = medians[.libcurlMulti]?.requestsPerSecond, bare > 0,
              let keeping = medians[.libcurlMultiKeepingBodies]?.requestsPerSecond, keeping > 0 else { return }
        var text = String(format: "NOTE %@ (not a target): the bare loop keeping bodies does %.2fx the bare loop's requests/s", workload.name, keeping / bare)
        for kind in [ClientKind.curlewNoObservers, .curlew] {
            if let mine = medians[kind]?.requestsPerSecond { text += String(format: "; %@ %.2fx it", kind.rawValue, mine / keeping) }
        }
        verdicts.append(text)
    }

    /// Records a target's outcome; scenarios add theirs too.
    mutating func verdict(_ met: Bool, _ text: String) {
        verdicts.append((met ? "MET  " : "MISS ") + text)
    }

    mutating func addScenario(_ text: String) {
        sections.append(text)
    }

    var text: String {
        (sections + ["### Targets\n\n" + verdicts.map { "- " + $0 }.joined(separator: "\n")]).joined(separator: "\n\n")
    }

    /// Appends this run to RESULTS.md with the machine and versions.
    func append(to path: String, libcurl: String, swift: String) throws {
        let cpu = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("model name") }?
            .split(separator: ":", maxSplits: 1).last?.trimmingCharacters(in: .whitespaces) ?? "unknown CPU"
        let header = """

        ## \(ISO8601DateFormatter().string(from: Date()))\(smoke ? " (smoke)" : "")

        \(cpu), \(ProcessInfo.processInfo.activeProcessorCount) cores · \(libcurl) · \(swift) · `make bench` · \
        interface and CLI scenarios on `\(ProcessInfo.processInfo.environment["CURLEW_BIN"] ?? "../.build/debug/curlew")`

        """
        let existing = (try? String(contentsOfFile: path, encoding: .utf8)) ?? "# Benchmark results\n\nEach section is one `make bench` run; ratios within a run are comparable, absolute numbers across machines are not.\n"
        try (existing + header + "\n" + text + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    }
}

/// A missed throughput target waiting for the figures that say whether it was within reach.
private struct PendingReach {
    /// Its place in the list of verdicts.
    var at: Int
    var text: String
    /// The requests per second the target asks for.
    var required: Double
    /// The client whose CPU is the floor: Curlew without observers, the capturing loop, or the bare loop.
    var floorClient: ClientKind
    /// That client's CPU per request plus nginx's in the same run, for each run, in microseconds.
    var floorAndServer: [Double]
    /// The same for the capturing loop, which runs no agent code; empty when it did not run.
    var captureAndServer: [Double]
}
