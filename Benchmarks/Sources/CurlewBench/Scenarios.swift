import BenchMeasurement
import CurlewAgent
import CurlewSessions
import CurlewTUI
import Dispatch
import Foundation
import Synchronization

/// A scale or start-up measurement, run in a child process of its own so its memory is its own.
struct Scenario {
    var name: String
    /// Measures, records each target's outcome through `verdict`, and returns the report section.
    var run: (_ executable: String, _ nginx: NginxServer, _ verdict: (_ met: Bool, _ text: String) -> Void) throws -> String
}

enum Scenarios {
    /// The log the million scenario writes and the log-browser scenarios open; the orchestrator
    /// removes it at the end.
    static var millionLogPath: String { NSTemporaryDirectory() + "curlew-bench-million-\(getpid()).jsonl" }

    /// `findings` receives the figures other checks need (the logger's CPU per entry).
    static func all(smoke: Bool, findings: Findings) -> [Scenario] {
        let millionCount = smoke ? 2_000 : 1_000_000
        let logPath = millionLogPath
        let scaleCount = smoke ? 20_000 : 10_000_000
        let scaleFilter = "~c 5xx | ~m POST"
        let curlew = ProcessInfo.processInfo.environment["CURLEW_BIN"] ?? "../.build/debug/curlew"
        return [
            // First, before the million scenario: its million appends and fsyncs leave the disk
            // slower for minutes (the logger alone right after it: 163,000 entries/s; on a
            // settled disk 250,000-430,000), and this measures the logger, not that backlog.
            Scenario(name: "logger") { executable, _, verdict in
                var runs: [[String: Double]] = []
                for _ in 0..<(smoke ? 1 : 3) {
                    // Each run starts on a settled disk: what the run before wrote and deleted
                    // (this disk discards deleted blocks as it goes) is done first.
                    sync()
                    runs.append(try child(executable, ["logger", smoke ? "5000" : "200000"]))
                }
                func median(_ key: String) -> Double { runs.map { $0[key] ?? 0 }.sorted()[runs.count / 2] }
                let rate = median("rate")
                // The least of the runs: the reach check needs a lower bound.
                findings.loggerCPUMicrosPerEntry = runs.compactMap { $0["cpuPerEntry"] }.min()
                verdict(rate >= 250_000, String(format: "logger: %.0f entries/s sustained, median of %d (target at least 250,000)", rate, runs.count))
                return String(format: """
                    ### Network logger on its own

                    %.0f entries/s to disk, fed in batches as an observer lane feeds it · \
                    %.0f entries/s with one write per entry (worst case) · %.2f µs of CPU per entry, \
                    fed in batches of 1,000 with nothing else running · medians of %d runs
                    """, rate, median("perEntryRate"), median("cpuPerEntry"), runs.count)
            },
            // Also before the million scenario, for the same reason: it writes a gigabyte to disk
            // (after it, Round 14's run measured `send -o` at 338 MB/s; on its own, 676).
            Scenario(name: "download") { executable, nginx, verdict in
                try download(executable, nginx, smoke: smoke)
            },
            Scenario(name: "million") { executable, nginx, verdict in
                let metrics = try child(executable, ["million", nginx.baseURL + "/get", "\(millionCount)", logPath])
                let lines = Int(metrics["lines"] ?? 0)
                verdict((metrics["peak"] ?? .infinity) / 1024 < 150 && lines == millionCount + 1,
                        String(format: "million: peak RSS %.1f MiB (target under 150 MiB), %d log lines of %d", (metrics["peak"] ?? 0) / 1024, lines, millionCount + 1))
                return String(format: """
                    ### %d requests through the agent, 50 in flight, logging on

                    %.0f req/s · RSS at 10%%: %.1f MiB, 50%%: %.1f MiB, 100%%: %.1f MiB · peak %.1f MiB (target under 150 MiB, flat) · \
                    log lines %d (expected %d)
                    """, millionCount, metrics["rps"] ?? 0, (metrics["rss10"] ?? 0) / 1024, (metrics["rss50"] ?? 0) / 1024,
                    (metrics["rss100"] ?? 0) / 1024, (metrics["peak"] ?? 0) / 1024, lines, millionCount + 1)
            },
            Scenario(name: "log-browser") { executable, _, verdict in
                guard FileManager.default.fileExists(atPath: logPath) else { throw BenchError("log-browser opens the log the million scenario writes") }
                let metrics = try child(executable, ["log-browser", logPath])
                return String(format: """
                    ### Log browser model on the %d-entry log

                    first screen %.2f s · whole file indexed in the background in %.2f s · \
                    `~c 5xx | ~m POST` over all entries %.2f s · peak RSS %.1f MiB
                    """, Int(metrics["entries"] ?? 0), metrics["open"] ?? 0, metrics["indexed"] ?? 0, metrics["filter"] ?? 0, (metrics["peak"] ?? 0) / 1024)
            },
            Scenario(name: "interface-log") { _, _, verdict in
                guard FileManager.default.fileExists(atPath: logPath) else { throw BenchError("interface-log opens the log the million scenario writes") }
                let outcome = try TmuxLogBrowser(curlew: curlew, log: logPath, entries: millionCount).measure(filter: scaleFilter, deadline: 120)
                let slowestKey = (outcome.keyLatencies.max() ?? 0) * 1000
                verdict(outcome.indexed < 10 && slowestKey < 150,
                        String(format: "interface-log: `curlew tui` indexed the %d-entry log in %.2f s (target under 10 s); slowest key while indexing %.0f ms (target under 150 ms)",
                               millionCount, outcome.indexed, slowestKey))
                return Self.describe(outcome, title: "`curlew tui LOG` in tmux on the \(millionCount)-entry log")
            },
            Scenario(name: "interface-paste") { _, _, _ in
                let size = smoke ? 64 << 10 : 1 << 20
                let outcome = try TmuxPaste(curlew: curlew, bytes: size).measure(deadline: 60)
                return String(format: """
                    ### A paste into `curlew tui` in tmux

                    a curl command with a %d KiB body, pasted into Compose, became a request in %.2f s · \
                    the interface's CPU meanwhile %.2f s
                    """, size >> 10, outcome.seconds, outcome.cpuSeconds)
            },
            Scenario(name: "view-model") { executable, _, verdict in
                let metrics = try child(executable, ["view-model", smoke ? "5000" : "200000"])
                return String(format: """
                    ### TUI view model

                    ingests %.0f messages/s while keys are handled (target at least 50,000) · key latency p99 %.1f ms, max %.1f ms (target under 50 ms)
                    """, metrics["rate"] ?? 0, metrics["p99"] ?? 0, metrics["max"] ?? 0)
            },
            Scenario(name: "startup") { executable, _, verdict in
                var times: [Double] = []
                for _ in 0..<(smoke ? 3 : 21) { times.append(try ChildProcess.run(curlew, ["--version"]).wallSeconds * 1000) }
                times.sort()
                let frame = try child(executable, ["first-frame"])
                return String(format: """
                    ### Start-up

                    `curlew --version` %.1f ms median (target under 30 ms) · the interface's first frame %.1f ms (target under 150 ms)
                    """, times[times.count / 2], frame["milliseconds"] ?? 0)
            },
            // Last: writing and dropping 12.7 GB leaves the disk busy, which the logger's fsyncs would feel.
            Scenario(name: "interface-scale") { executable, _, verdict in
                let path = NSTemporaryDirectory() + "curlew-bench-scale-\(getpid()).jsonl"
                defer { try? FileManager.default.removeItem(atPath: path) }
                let written = try child(executable, ["write-log", "\(scaleCount)", path])
                let outcome = try TmuxLogBrowser(curlew: curlew, log: path, entries: scaleCount).measure(filter: scaleFilter, deadline: 300)
                verdict(outcome.firstScreen < 1, String(format: "interface-scale: first screen of the %d-entry log %.2f s (target under 1 s)", scaleCount, outcome.firstScreen))
                verdict(outcome.indexed < 60, String(format: "interface-scale: indexed in %.1f s (target under 60 s)", outcome.indexed))
                verdict(outcome.filter < 5, String(format: "interface-scale: `%@` over all entries %.2f s (target under 5 s)", scaleFilter, outcome.filter))
                verdict(Double(outcome.peakRSSKiB) / 1024 < 300, String(format: "interface-scale: peak RSS %.1f MiB (target under 300 MiB)", Double(outcome.peakRSSKiB) / 1024))
                let size = Double((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)??.int64Value ?? 0)
                return Self.describe(outcome, title: String(format: "`curlew tui LOG` in tmux on a %d-entry log (%.1f GB, written at %.0f entries/s)",
                                                            scaleCount, size / 1e9, written["rate"] ?? 0))
            },
        ]
    }

    /// One large download to a file by `curlew send -o` (the command users run), the bare libcurl
    /// loop writing to a file, and `curl -o`: MB/s, client CPU and peak RSS, best of three. The
    /// clients take turns run by run, each after a `sync()`: a gigabyte of dirty pages left by
    /// the run before (or by the scenario before) throttles whoever writes next, which made the
    /// client that always ran first look slowest.
    private static func download(_ executable: String, _ nginx: NginxServer, smoke: Bool) throws -> String {
        let curlew = ProcessInfo.processInfo.environment["CURLEW_BIN"] ?? "../.build/debug/curlew"
        let url = nginx.baseURL + (smoke ? "/big" : "/huge")
        let size = Double(smoke ? NginxServer.bigSize : NginxServer.hugeSize)
        let path = NSTemporaryDirectory() + "curlew-bench-download-\(getpid()).bin"
        defer { unlink(path) }
        let runs: [(String, String, [String])] = [
            ("Curlew `send -o`", curlew, ["send", "--no-body", "-o", path, url]),
            ("bare libcurl loop", executable, ["scenario", "download-bare", url, path]),
            ("curl -o", "curl", ["-s", "-o", path, url]),
        ]
        var best: [ChildResult?] = Array(repeating: nil, count: runs.count)
        for _ in 0..<(smoke ? 1 : 3) {
            for (index, (name, program, arguments)) in runs.enumerated() {
                unlink(path)
                sync()
                let result = try ChildProcess.run(program, arguments)
                guard result.status == 0 else { throw BenchError("\(name) download failed with status \(result.status)") }
                if best[index] == nil || result.wallSeconds < best[index]!.wallSeconds { best[index] = result }
            }
        }
        let rows = zip(runs, best).map { (name: $0.0, best: $1!) }
        let bare = rows[1].best.wallSeconds
        var text = String(format: "### Download of %.0f MiB to a file\n\n| client | MB/s | vs bare loop | client CPU s | peak RSS MiB |\n|---|---:|---:|---:|---:|\n", size / 1_048_576)
        for row in rows {
            text += String(format: "| %@ | %.0f | %.2fx | %.2f | %.1f |\n", row.name, size / row.best.wallSeconds / 1e6, bare / row.best.wallSeconds,
                           row.best.cpuSeconds, Double(row.best.peakRSSKiB) / 1024)
        }
        return text + "\nTarget: Curlew's peak RSS under 64 MiB whatever the size."
    }

    private static func child(_ executable: String, _ arguments: [String]) throws -> [String: Double] {
        let result = try ChildProcess.run(executable, ["scenario"] + arguments, discardStandardError: false)
        guard result.status == 0, let line = result.output.split(separator: "\n").last,
              var metrics = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Double] else {
            throw BenchError("scenario \(arguments[0]) failed with status \(result.status)")
        }
        metrics["peak"] = Double(result.peakRSSKiB)
        return metrics
    }

    /// Runs one scenario in this (child) process and prints its metrics as a JSON object.
    static func runChild(_ arguments: [String]) throws {
        let metrics: [String: Double]
        switch arguments.first {
        case "million": metrics = try million(url: arguments[1], count: Int(arguments[2])!, logPath: arguments[3])
        case "log-browser": metrics = try logBrowser(path: arguments[1])
        case "logger": metrics = try logger(count: Int(arguments[1])!)
        case "write-log": metrics = try writeLog(count: Int(arguments[1])!, path: arguments[2])
        case "view-model": metrics = viewModel(count: Int(arguments[1])!)
        case "first-frame": metrics = firstFrame()
        case "download-bare": metrics = try BareCurlDownload.run(url: arguments[1], path: arguments[2])
        default: throw BenchError("unknown scenario \(arguments.first ?? "")")
        }
        say(String(decoding: try JSONSerialization.data(withJSONObject: metrics), as: UTF8.self))
    }

    private static func million(url: String, count: Int, logPath: String) throws -> [String: Double] {
        let queue = DispatchQueue(label: "bench.callbacks")
        let agent = Agent(config: NetworkConfig(maxConnectionsPerHost: 50, requestTimeout: .seconds(60), callbackQueue: queue))
        let logger = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: logPath))
        agent.addObserver(logger)
        let samples = Mutex<[Int: Int]>([:])
        let marks = Set([count / 10, count / 2, count])
        let recorder = LatencyRecorder(capacity: 0, keepsLatencies: false)
        let elapsed = CurlewClient.drive(agent, queue: queue, url: url, count: count, concurrency: 50, recorder: recorder) { done in
            if marks.contains(done) { samples.withLock { $0[done] = currentRSSKiB() } }
        }
        let drained = DispatchSemaphore(value: 0)
        Task.detached { await agent.waitForObservers(); drained.signal() }
        drained.wait()
        try logger.close()
        let lines = try countLines(logPath)
        let rss = samples.withLock { $0 }
        return ["rps": Double(count) / elapsed, "rss10": Double(rss[count / 10] ?? 0), "rss50": Double(rss[count / 2] ?? 0),
                "rss100": Double(rss[count] ?? 0), "lines": Double(lines)]
    }

    private static func countLines(_ path: String) throws -> Int {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var lines = 0
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            lines += chunk.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        }
        return lines
    }

    private static func logBrowser(path: String) throws -> [String: Double] {
        var browser = LogBrowserState()
        let started = ContinuousClock.now
        try browser.open(path)
        let model = AppModel(environment: AppEnvironment(agent: nil, name: "bench", sessionLogPath: nil, sessionsDirectory: "/nonexistent"))
        model.logs = browser
        model.pane = .logs
        _ = model.render(rows: 50, columns: 160)
        let opened = seconds(ContinuousClock.now - started)
        browser.opened?.index.waitUntilComplete()
        let indexed = seconds(ContinuousClock.now - started)
        let filterStarted = ContinuousClock.now
        model.logs.applyFilter("~c 5xx | ~m POST")
        let filtered = seconds(ContinuousClock.now - filterStarted)
        return ["open": opened, "indexed": indexed, "filter": filtered, "entries": Double(browser.opened?.index.entryCount ?? 0),
                "matched": Double(model.logs.opened?.visible.count ?? 0)]
    }

    /// The logger fed two ways: as an agent's observer lane feeds it (a producer hands messages
    /// over as fast as it can; the logger takes whatever is pending as one batch, then ends the
    /// batch), which is its sustained rate; and one entry per batch, where every entry costs a
    /// `write` of its own, the worst case.
    ///
    /// A lane queues one reference per message and hands each to the logger in place, so the
    /// producer here queues an index into `messages` and the batch is read by index: queueing
    /// whole messages measured the harness's copies of them (about a fifth of the samples).
    private static func logger(count: Int) throws -> [String: Double] {
        // Each message held by a reference whose constant the logger reads in place, as a lane
        // lends a message: read out of an array (or through a buffer pointer) each message was
        // copied whole, forty retains and releases that measured the harness, not the logger.
        let messages = (0..<1000).map { LentMessage(SampleMessage.make(id: UInt64($0))) }
        let sustained = try timeLogger { logger in
            let pending = Mutex<[Int]>([])
            let kinds = messages.count
            let producer = Thread {
                for index in 0..<count {
                    pending.withLock { $0.append(index % kinds) }
                }
            }
            producer.start()
            var written = 0
            while written < count {
                let batch = pending.withLock { pending -> [Int] in
                    defer { pending.removeAll(keepingCapacity: true) }
                    return pending
                }
                if batch.isEmpty { sched_yield(); continue }
                for index in batch { messages[index].lend(to: logger) }
                logger.observerDidFinishBatch()
                written += batch.count
            }
        }
        let perEntry = try timeLogger { logger in
            for index in 0..<count {
                messages[index % messages.count].lend(to: logger)
                logger.observerDidFinishBatch()
            }
        }
        // The CPU an entry costs, every thread of the logger counted (the record, the write,
        // the syncs): no producer thread here, so the process does nothing else meanwhile.
        let cpuBefore = processCPUSeconds()
        _ = try timeLogger { logger in
            for index in 0..<count {
                messages[index % messages.count].lend(to: logger)
                if index % 1_000 == 999 { logger.observerDidFinishBatch() }
            }
            logger.observerDidFinishBatch()
        }
        let cpuPerEntry = (processCPUSeconds() - cpuBefore) * 1e6 / Double(count)
        return ["rate": Double(count) / sustained, "perEntryRate": Double(count) / perEntry, "cpuPerEntry": cpuPerEntry]
    }

    /// A message held as an observer lane holds one: by a reference, read in place.
    private final class LentMessage: Sendable {
        let message: DebugMessage
        init(_ message: DebugMessage) { self.message = message }

        /// Hands the message over from within a method, where `self` is held for the call, so
        /// the compiler reads it in place (read from outside, it was copied).
        func lend(to logger: NetworkLogger) {
            logger.requestDidProduce(message)
        }
    }

    /// User and system CPU time of this process so far, every thread, in seconds.
    private static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return ChildProcess.cpuSeconds(usage.ru_utime) + ChildProcess.cpuSeconds(usage.ru_stime)
    }

    /// Writes a session log of `count` messages through the logger, in batches as a lane feeds
    /// it: GETs and POSTs, with one in twenty answered 500 (none of them a POST) and one in seven 404.
    private static func writeLog(count: Int, path: String) throws -> [String: Double] {
        try? FileManager.default.removeItem(atPath: path)
        let templates = (0..<140).map { (index: Int) -> DebugMessage in
            let status: Int = index % 20 == 3 ? 500 : (index % 7 == 0 ? 404 : 200)
            let method = index % 5 == 0 ? "POST" : "GET"
            return SampleMessage.make(id: UInt64(index), status: status, method: method)
        }
        let logger = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: path))
        let started = ContinuousClock.now
        for index in 0..<count {
            var message = templates[index % templates.count]
            message.requestID = UInt64(index + 1)
            logger.requestDidProduce(message)
            if index % 1_000 == 999 { logger.observerDidFinishBatch() }
        }
        logger.observerDidFinishBatch()
        try logger.close()
        return ["rate": Double(count) / seconds(ContinuousClock.now - started)]
    }

    /// The report section of an interface run.
    private static func describe(_ outcome: TmuxLogBrowser.Outcome, title: String) -> String {
        let latencies = outcome.keyLatencies.sorted()
        return String(format: """
            ### %@

            first screen %.2f s · whole log indexed %.2f s · %d keys while indexing, median %.0f ms, slowest %.0f ms · \
            filter %.2f s (%d entries match) · peak RSS %.1f MiB · interface CPU %.1f s · \
            `curlew --version` just before, the binary's first start after the log was written, %.2f s
            """, title, outcome.firstScreen, outcome.indexed, latencies.count, (latencies.isEmpty ? 0 : latencies[latencies.count / 2]) * 1000,
            (latencies.last ?? 0) * 1000, outcome.filter, outcome.matched, Double(outcome.peakRSSKiB) / 1024, outcome.cpuSeconds,
            outcome.firstStart)
    }

    /// Seconds from opening a fresh log to closing it (synced) after `feed` ran.
    private static func timeLogger(_ feed: (NetworkLogger) -> Void) throws -> Double {
        let path = NSTemporaryDirectory() + "curlew-bench-logger-\(getpid()).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let logger = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: path))
        let started = ContinuousClock.now
        feed(logger)
        try logger.close()
        return seconds(ContinuousClock.now - started)
    }

    private static func viewModel(count: Int) -> [String: Double] {
        let model = AppModel(environment: AppEnvironment(agent: nil, name: "bench", sessionLogPath: nil, sessionsDirectory: "/nonexistent"))
        model.pane = .live
        let observer = TUIObserver()
        let template = SampleMessage.make(id: 0)
        let producer = Thread {
            for index in 0..<count {
                var message = template
                message.requestID = UInt64(index + 1)
                observer.push(.message(message))
            }
        }
        let started = ContinuousClock.now
        producer.start()
        var latencies: [Double] = []
        var ingested = 0
        let keys: [Key] = [.up, .down, .character("f"), .pageUp, .character("f")]
        while ingested < count {
            let pressed = ContinuousClock.now
            model.handle(keys[latencies.count % keys.count])
            let events = observer.drain(limit: TerminalApp.maxEventsPerIteration)
            ingested += events.count
            model.ingest(events)
            _ = model.render(rows: 50, columns: 160)
            latencies.append(seconds(ContinuousClock.now - pressed) * 1000)
        }
        let rate = Double(count) / seconds(ContinuousClock.now - started)
        latencies.sort()
        return ["rate": rate, "p99": latencies[latencies.count * 99 / 100], "max": latencies.last ?? 0]
    }

    private static func firstFrame() -> [String: Double] {
        let started = ContinuousClock.now
        let model = AppModel(environment: AppEnvironment(agent: nil, name: "bench", sessionLogPath: nil, sessionsDirectory: "/nonexistent"))
        _ = model.render(rows: 40, columns: 120)
        return ["milliseconds": seconds(ContinuousClock.now - started) * 1000]
    }
}
