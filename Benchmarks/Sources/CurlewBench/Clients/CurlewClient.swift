import BenchMeasurement
import CurlewAgent
import Dispatch
import Foundation
import Synchronization

/// Counts events without keeping them or reading their bodies (a front end such as the interface
/// reads bodies, and with it attached debug messages keep them whole up to the debug limit).
private final class CountingObserver: NetworkObserver {
    private let count = Atomic<Int>(0)
    var bodyBytesRead: BodyReadLimit { BodyReadLimit(bytes: 0) }
    func requestDidProduce(_ message: DebugMessage) { count.add(1, ordering: .relaxed) }
    func requestDidFinish(_ request: RequestInfo, state: RequestState) { count.add(1, ordering: .relaxed) }
}

/// Curlew's agent keeping `concurrency` requests in flight until `count` finished. With
/// `observed`, the session logger and a counting observer are on: the configuration users run.
///
/// Callbacks run on the transfer thread (`callbackDelivery = .transferThread`), the setting for a
/// caller whose callbacks are quick, as the driver's are; `CURLEW_BENCH_DELIVERY=queue` measures
/// the default callback queue instead.
enum CurlewClient {
    static func run(url: String, count: Int, concurrency: Int, observed: Bool) throws -> RunResult {
        let queue = DispatchQueue(label: "bench.callbacks")
        var config = NetworkConfig(maxConnectionsPerHost: concurrency, requestTimeout: .seconds(60), callbackQueue: queue)
        let environment = ProcessInfo.processInfo.environment
        if environment["CURLEW_BENCH_DELIVERY"] != "queue" { config.callbackDelivery = .transferThread }
        config.transferThreads = environment["CURLEW_BENCH_TRANSFER_THREADS"].flatMap(Int.init) ?? 2
        let agent = Agent(config: config)
        var logger: NetworkLogger?
        if observed {
            let path = NSTemporaryDirectory() + "curlew-bench-\(getpid()).jsonl"
            logger = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: path))
            agent.addObserver(logger!)
            agent.addObserver(CountingObserver())
        }
        let recorder = LatencyRecorder(capacity: count)
        let elapsed = drive(agent, queue: queue, url: url, count: count, concurrency: concurrency, recorder: recorder)
        if let logger {
            let drained = DispatchSemaphore(value: 0)
            Task.detached { await agent.waitForObservers(); drained.signal() }
            drained.wait()
            try logger.close()
            try? FileManager.default.removeItem(atPath: logger.path!)
        }
        return recorder.result(seconds: elapsed)
    }

    /// Sends `count` requests keeping `concurrency` in flight; returns the seconds it took.
    /// `onCompleted` runs where the agent runs callbacks, with the number finished so far.
    static func drive(_ agent: Agent, queue: DispatchQueue, url: String, count: Int, concurrency: Int, recorder: LatencyRecorder,
                      onCompleted: (@Sendable (Int) -> Void)? = nil) -> Double {
        let driver = Driver(agent: agent, request: Request.url(url), count: count, recorder: recorder, onCompleted: onCompleted)
        let started = ContinuousClock.now
        queue.sync { for _ in 0..<min(concurrency, count) { driver.issue() } }
        driver.finished.wait()
        return seconds(ContinuousClock.now - started)
    }

    /// Keeps the pipeline full. Its counts are atomic: the first requests start on the bench's
    /// queue, the rest from callbacks, which may run on either transfer thread.
    private final class Driver: Sendable {
        let agent: Agent
        let request: Request
        let count: Int
        let recorder: LatencyRecorder
        let onCompleted: (@Sendable (Int) -> Void)?
        let finished = DispatchSemaphore(value: 0)
        private let issued = Atomic(0)
        private let completed = Atomic(0)

        init(agent: Agent, request: Request, count: Int, recorder: LatencyRecorder, onCompleted: (@Sendable (Int) -> Void)?) {
            var request = request
            request.responseSerializer = .data
            self.agent = agent
            self.request = request
            self.count = count
            self.recorder = recorder
            self.onCompleted = onCompleted
        }

        /// Starts one more request when `count` are not all started yet.
        func issue() {
            guard issued.wrappingAdd(1, ordering: .relaxed).oldValue < count else { return }
            let start = ContinuousClock.now
            agent.start(request, callbacks: RequestCallbacks(
                success: { response in self.done(start, bytes: response.body.count, failed: false) },
                failure: { _ in self.done(start, bytes: 0, failed: true) }
            ))
        }

        private func done(_ start: ContinuousClock.Instant, bytes: Int, failed: Bool) {
            if failed { recorder.fail() } else { recorder.record(since: start, bytes: bytes) }
            let completed = completed.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue
            onCompleted?(completed)
            issue()
            if completed == count { finished.signal() }
        }
    }
}
