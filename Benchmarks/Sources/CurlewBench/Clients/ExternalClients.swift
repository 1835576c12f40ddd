import BenchMeasurement
import Foundation

/// The command-line peers, run as child processes.
enum ExternalClients {
    /// `curl --parallel --parallel-max C` over a config file of `count` URLs.
    static func curlParallel(url: String, count: Int, concurrency: Int, environment: [String: String] = [:]) throws -> RunResult {
        let config = NSTemporaryDirectory() + "curlew-bench-curl-\(getpid()).conf"
        try String(repeating: "url = \"\(url)\"\noutput = \"/dev/null\"\n", count: count).write(toFile: config, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let child = try ChildProcess.run("curl", ["-s", "--parallel", "--parallel-max", "\(concurrency)", "-K", config,
                                                 "-w", "%{http_code} %{time_total} %{size_download}\\n"],
                                         environment: environment)
        var latencies: [Double] = []
        var errors = 0
        var bytes: Int64 = 0
        for line in child.output.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 3, fields[0] == "200", let total = Double(fields[1]) else { errors += 1; continue }
            latencies.append(total * 1000)
            bytes += Int64(fields[2]) ?? 0
        }
        var result = RunResult(latencies: latencies, errors: errors, seconds: child.wallSeconds, bytes: bytes)
        result.attribute(child)
        return result
    }

    /// `wrk` for `duration` seconds with `concurrency` connections on one thread.
    static func wrk(url: String, duration: Int, concurrency: Int, bodySize: Int) throws -> RunResult {
        let child = try ChildProcess.run("wrk", ["-t1", "-c\(concurrency)", "-d\(duration)s", "--latency", url])
        let output = child.output
        func value(after label: String) -> Double? {
            guard let line = output.split(separator: "\n").first(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix(label) }) else { return nil }
            return line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { milliseconds(String($0)) ?? Double($0) }
        }
        guard let rate = value(after: "Requests/sec:") else { throw BenchError("unexpected wrk output: \(output)") }
        let seconds = Double(duration)
        let requests = Int(rate * seconds)
        var result = RunResult(requests: requests, errors: 0, seconds: seconds, p50: value(after: "50%") ?? 0, p99: value(after: "99%") ?? 0,
                               bytes: Int64(requests) * Int64(bodySize))
        result.attribute(child)
        return result
    }

    /// wrk's "812.00us", "1.20ms", "2.01s" in milliseconds.
    private static func milliseconds(_ text: String) -> Double? {
        for (suffix, scale) in [("us", 0.001), ("ms", 1.0), ("s", 1000.0)] where text.hasSuffix(suffix) {
            return Double(text.dropLast(suffix.count)).map { $0 * scale }
        }
        return nil
    }
}
