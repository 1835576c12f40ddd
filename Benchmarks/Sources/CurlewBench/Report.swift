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
                     "| client | req/s | MB/s | p50 ms | p99 ms | peak RSS | client CPU µs/req | Curlew (1) ÷ this |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
        for kind in ClientKind.allCases {
            guard let result = medians[kind] else { continue }
            let ratio = result.requestsPerSecond > 0 ? reference.requestsPerSecond / result.requestsPerSecond : 0
            lines.append(String(format: "| %@ | %.0f | %.1f | %.2f | %.2f | %.1f MiB | %.1f | %.2fx |", kind.title, result.requestsPerSecond,
                                result.megabytesPerSecond, result.p50, result.p99, Double(result.peakRSSKiB) / 1024, result.cpuMicrosPerRequest, ratio)
                         + (result.errors > 0 ? " (\(result.errors) errors)" : ""))
        }
        sections.append(lines.joined(separator: "\n"))
        check(workload, medians)
    }

    private mutating func check(_ workload: Workload, _ medians: [ClientKind: RunResult]) {
        guard let curlew = medians[.curlew]?.requestsPerSecond else { return }
        func target(_ kind: ClientKind, _ minimum: Double) {
            guard let other = medians[kind]?.requestsPerSecond, other > 0 else { return }
            let ratio = curlew / other
            verdicts.append(String(format: "%@ %@: Curlew is %.2fx %@ (target at least %.2fx)", ratio >= minimum ? "MET " : "MISS",
                                   workload.name, ratio, kind.rawValue, minimum))
        }
        switch workload.name {
        case "small-c50":
            target(.libcurlMulti, 0.85)
            target(.asyncHTTPClient, 1.3)
            target(.curlParallel, 1.5)
            target(.urlSession, 10)
        case "small-c1":
            target(.libcurlMulti, 0.85)
        default:
            target(.libcurlMulti, 0.9)
        }
    }

    mutating func addScenario(_ text: String) {
        sections.append(text)
    }

    var text: String {
        (sections + ["### Throughput targets\n\n" + verdicts.map { "- " + $0 }.joined(separator: "\n")]).joined(separator: "\n\n")
    }

    /// Appends this run to RESULTS.md with the machine and versions.
    func append(to path: String, libcurl: String, swift: String) throws {
        let cpu = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("model name") }?
            .split(separator: ":", maxSplits: 1).last?.trimmingCharacters(in: .whitespaces) ?? "unknown CPU"
        let header = """

        ## \(ISO8601DateFormatter().string(from: Date()))\(smoke ? " (smoke)" : "")

        \(cpu), \(ProcessInfo.processInfo.activeProcessorCount) cores · \(libcurl) · \(swift) · `make bench`

        """
        let existing = (try? String(contentsOfFile: path, encoding: .utf8)) ?? "# Benchmark results\n\nEach section is one `make bench` run; ratios within a run are comparable, absolute numbers across machines are not.\n"
        try (existing + header + "\n" + text + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    }
}
