import Foundation

/// Per-request costs that timing hides on a noisy machine: heap allocations (a counter preloaded
/// into the client) and instructions (`valgrind --tool=callgrind`). Each is the difference between
/// a long and a short run divided by the difference in requests, so start-up is left out.
struct CostProbes {
    let orchestrator: Orchestrator
    let executable: String
    /// The preloadable allocation counter, built from `MallocCounter/malloc_counter.c`.
    let counterLibrary: String
    /// A copy of the harness without its debug information, which valgrind cannot read (it
    /// gives up on the Swift toolchain's DWARF); symbols stay, and instruction counts need no more.
    let strippedExecutable: String

    /// Whether instructions are counted for this client and workload: Curlew, the ceiling it is
    /// measured against and the capturing loop (the floor of what a full log needs of libcurl), on
    /// the small-body workloads (the smoke run: one of each, to keep it short).
    static func countsInstructions(of kind: ClientKind, on workload: Workload, smoke: Bool) -> Bool {
        guard workload.path != "/big" else { return false }
        if smoke { return workload.concurrency > 1 && [.curlew, .libcurlMulti].contains(kind) }
        return [.curlew, .curlewNoObservers, .libcurlMulti, .libcurlMultiCapturing].contains(kind)
    }

    init(orchestrator: Orchestrator, executable: String) throws {
        self.orchestrator = orchestrator
        self.executable = executable
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../MallocCounter/malloc_counter.c").standardizedFileURL.path
        counterLibrary = NSTemporaryDirectory() + "curlew-bench-malloc-counter-\(getpid()).so"
        let built = try ChildProcess.run("cc", ["-shared", "-fPIC", "-O2", "-o", counterLibrary, source], discardStandardError: false)
        guard built.status == 0 else { throw BenchError("cannot build the allocation counter from \(source)") }
        strippedExecutable = NSTemporaryDirectory() + "curlew-bench-stripped-\(getpid())"
        let stripped = try ChildProcess.run("objcopy", ["--strip-debug", executable, strippedExecutable], discardStandardError: false)
        guard stripped.status == 0 else { throw BenchError("objcopy could not strip \(executable)") }
    }

    func removeFiles() {
        try? FileManager.default.removeItem(atPath: counterLibrary)
        try? FileManager.default.removeItem(atPath: strippedExecutable)
    }

    /// Heap allocations per request of `kind` on `workload`; nil for a time-based client (wrk).
    func allocationsPerRequest(_ kind: ClientKind, _ workload: Workload, url: String) throws -> Double? {
        guard kind != .wrk else { return nil }
        func allocations(_ count: Int) throws -> Double {
            let output = NSTemporaryDirectory() + "curlew-bench-allocations-\(getpid()).txt"
            defer { try? FileManager.default.removeItem(atPath: output) }
            _ = try orchestrator.measure(kind, workload, url: url, executable: executable, count: count,
                                         environment: ["LD_PRELOAD": counterLibrary, "CURLEW_MALLOC_COUNT_FILE": output])
            guard let text = try? String(contentsOfFile: output, encoding: .utf8),
                  let value = Double(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw BenchError("\(kind.rawValue) wrote no allocation count")
            }
            return value
        }
        return try Self.perRequest(workload, allocations)
    }

    /// Instructions per request of `kind` on `workload`, all threads counted, under callgrind.
    func instructionsPerRequest(_ kind: ClientKind, _ workload: Workload, url: String) throws -> Double {
        func instructions(_ count: Int) throws -> Double {
            let output = NSTemporaryDirectory() + "curlew-bench-callgrind-\(getpid()).out"
            defer { try? FileManager.default.removeItem(atPath: output) }
            _ = try orchestrator.measure(kind, workload, url: url, executable: strippedExecutable, count: count,
                                         wrapper: ["valgrind", "--tool=callgrind", "--callgrind-out-file=\(output)"])
            let text = try String(contentsOfFile: output, encoding: .utf8)
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("summary:") || $0.hasPrefix("totals:") }),
                  let value = Double(line.split(separator: " ").dropFirst().first ?? "") else {
                throw BenchError("callgrind wrote no instruction total for \(kind.rawValue)")
            }
            return value
        }
        return try Self.perRequest(workload, instructions)
    }

    /// `total` of a long and a short run, per request of the difference. The runs are small, so
    /// callgrind's slowdown stays within seconds, and far enough apart that start-up cancels out.
    private static func perRequest(_ workload: Workload, _ total: (Int) throws -> Double) rethrows -> Double {
        let long = min(workload.count, workload.path == "/big" ? 100 : 2_000)
        let short = long / 4
        return (try total(long) - total(short)) / Double(long - short)
    }
}
