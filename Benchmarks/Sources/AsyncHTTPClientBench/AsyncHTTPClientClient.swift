import AsyncHTTPClient
import BenchMeasurement
import Foundation
import NIOCore

/// AsyncHTTPClient with `concurrency` workers each sending its share one after another.
enum AsyncHTTPClientClient {
    static func run(url: String, count: Int, concurrency: Int) async throws -> RunResult {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(120), concurrentHTTP1ConnectionsPerHostSoftLimit: concurrency)
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let recorder = LatencyRecorder(capacity: count)
        let started = ContinuousClock.now
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<concurrency {
                let share = count / concurrency + (worker < count % concurrency ? 1 : 0)
                group.addTask {
                    for _ in 0..<share {
                        let start = ContinuousClock.now
                        do {
                            let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(60))
                            let body = try await response.body.collect(upTo: 16 << 20)
                            recorder.record(since: start, bytes: body.readableBytes)
                        } catch {
                            recorder.fail()
                        }
                    }
                }
            }
        }
        let elapsed = seconds(ContinuousClock.now - started)
        try await client.shutdown()
        return recorder.result(seconds: elapsed)
    }
}
