import BenchMeasurement
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// FoundationNetworking's URLSession with at most `concurrency` data tasks running.
enum URLSessionClient {
    static func run(url: String, count: Int, concurrency: Int) throws -> RunResult {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = concurrency
        configuration.timeoutIntervalForRequest = 60
        let session = URLSession(configuration: configuration)
        guard let target = URL(string: url) else { throw BenchError("bad URL \(url)") }
        let recorder = LatencyRecorder(capacity: count)
        let slots = DispatchSemaphore(value: concurrency)
        let group = DispatchGroup()
        let started = ContinuousClock.now
        for _ in 0..<count {
            slots.wait()
            group.enter()
            let start = ContinuousClock.now
            session.dataTask(with: target) { data, response, error in
                if error == nil, let data, (response as? HTTPURLResponse)?.statusCode == 200 {
                    recorder.record(since: start, bytes: data.count)
                } else {
                    recorder.fail()
                }
                slots.signal()
                group.leave()
            }.resume()
        }
        group.wait()
        let elapsed = seconds(ContinuousClock.now - started)
        session.invalidateAndCancel()
        return recorder.result(seconds: elapsed)
    }
}
