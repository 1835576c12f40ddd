import Foundation

/// The results table, the target checks and RESULTS.md.
struct Report {
    var smoke: Bool
    var runs: Int
    var sections: [String] = []
    var verdicts: [String] = []

    mutating func add(_ workload: Workload, medians: [ClientKind: RunResult]) {
        guard let reference = medians[.curlew] else { return }
        var lines = ["### \(workload.title) (median of \(runs))", "",
                     "| client | req/s | MB/s | p50 ms | p99 ms | peak RSS | client CPU µs/req | context switches/req | allocations/req | instructions/req | Curlew (1) ÷ this |",
                     "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for kind in ClientKind.allCases {
            guard let result = medians[kind] else { continue }
            let ratio = result.requestsPerSecond > 0 ? reference.requestsPerSecond / result.requestsPerSecond : 0
            let allocations = result.allocationsPerRequest.map { String(format: "%.1f", $0) } ?? "–"
            let instructions = result.instructionsPerRequest.map { String(format: "%.0f", $0) } ?? "–"
            lines.append(String(format: "| %@ | %.0f | %.1f | %.2f | %.2f | %.1f MiB | %.1f | %.2f | %@ | %@ | %.2fx |", kind.title, result.requestsPerSecond,
                                result.megabytesPerSecond, result.p50, result.p99, Double(result.peakRSSKiB) / 1024, result.cpuMicrosPerRequest,
                                result.contextSwitchesPerRequest, allocations, instructions, ratio)
                         + (result.errors > 0 ? " (\(result.errors) errors)" : ""))
        }
        sections.append(lines.joined(separator: "\n"))
        check(workload, medians)
    }

    /// The performance targets: throughput and CPU per request against the bare libcurl loop and
    /// the peers, with and without observers.
    private mutating func check(_ workload: Workload, _ medians: [ClientKind: RunResult]) {
        func throughput(_ kind: ClientKind, against other: ClientKind, atLeast minimum: Double) {
            guard let mine = medians[kind]?.requestsPerSecond, let theirs = medians[other]?.requestsPerSecond, theirs > 0 else { return }
            verdict(mine / theirs >= minimum, String(format: "%@ %@: requests/s %.2fx %@ (target at least %.2fx)",
                                                     workload.name, kind.rawValue, mine / theirs, other.rawValue, minimum))
        }
        func cpu(_ kind: ClientKind, atMost maximum: Double) {
            guard let mine = medians[kind]?.cpuMicrosPerRequest, let bare = medians[.libcurlMulti]?.cpuMicrosPerRequest, bare > 0 else { return }
            verdict(mine / bare <= maximum, String(format: "%@ %@: client CPU per request %.2fx libcurl-multi (%.1f vs %.1f µs; target at most %.2fx)",
                                                   workload.name, kind.rawValue, mine / bare, mine, bare, maximum))
        }
        switch workload.name {
        case "small-c50":
            cpu(.curlew, atMost: 2.0)
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
