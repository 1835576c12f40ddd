import CurlewAgent
import CurlewSessions
import CurlewTestSupport
import Foundation
import Testing

@Suite("curlew send and the pipeline record")
struct SendPipelineTests {
    @Test("--retry retries a flaky endpoint, prints each attempt under the timing, and logs the record")
    func retry() async throws {
        let server = try await TestServer.shared()
        let tag = uniqueTag()
        let log = NSTemporaryDirectory() + "curlew-pipeline-\(tag).jsonl"
        defer { try? FileManager.default.removeItem(atPath: log) }
        let result = try await CurlewProcess.run([
            "send", "--retry", "3", "--retry-delay", "0.05", "--log", log, "\(server.baseURL)/flaky/2?key=\(tag)",
        ])
        #expect(result.status == 0)
        #expect(result.output.contains("< HTTP/1.1 200 OK"))
        let pipeline = try #require(result.output.range(of: "\nPipeline\n"))
        let timing = try #require(result.output.range(of: "\nTiming "))
        #expect(timing.lowerBound < pipeline.lowerBound)
        #expect(result.output.contains("attempt 1  #"))
        #expect(result.output.contains("HTTP 503: HTTP 503 is retryable, next in 50 ms"))
        #expect(result.output.contains("HTTP 200: succeeded"))
        #expect(server.receivedRequests.filter { $0.uri.contains(tag) }.count == 3)

        let session = try SessionLogReader.read(path: log)
        let messages = session.messages
        #expect(messages.count == 3)
        #expect(messages.last?.pipeline?.attempts.count == 3)
        #expect(messages.map { $0.pipeline?.attempt } == [1, 2, 3])
    }

    @Test("--cache answers the second send from the disk cache without the network; an event stream is not stored")
    func cache() async throws {
        let server = try await TestServer.shared()
        let tag = uniqueTag()
        let directory = NSTemporaryDirectory() + "curlew-send-cache-\(tag)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let url = "\(server.baseURL)/cache/60?key=\(tag)"
        let first = try await CurlewProcess.run(["send", "--no-body", "--cache", directory, url])
        #expect(first.status == 0 && first.output.contains("miss, stored"), "\(first.output)")
        let second = try await CurlewProcess.run(["send", "--no-body", "--cache", directory, url])
        #expect(second.status == 0 && second.output.contains("served  from the cache"), "\(second.output)")
        #expect(server.receivedRequests.filter { $0.uri.contains(tag) }.count == 1)

        for count in [2, 0] {
            let events = try await CurlewProcess.run(["send", "--cache", directory, "\(server.baseURL)/sse?count=\(count)&interval=0.05&key=\(tag)"])
            #expect(events.status == 0 && events.output.contains("not stored in the cache: an event stream"), "\(count) events: \(events.output)")
        }
    }

    @Test("without --retry a 503 is not retried; bad --retry values are usage errors")
    func noRetry() async throws {
        let server = try await TestServer.shared()
        let tag = uniqueTag()
        let result = try await CurlewProcess.run(["send", "\(server.baseURL)/flaky/1?key=\(tag)"])
        #expect(result.status == 22)
        #expect(!result.output.contains("Pipeline"))
        #expect(server.receivedRequests.filter { $0.uri.contains(tag) }.count == 1)
        #expect(try await CurlewProcess.run(["send", "--retry", "-1", "\(server.baseURL)/get"]).status == 64)
        #expect(try await CurlewProcess.run(["send", "--retry", "1", "--retry-delay", "nan", "\(server.baseURL)/get"]).status == 64)
        for bad in [["--retry-delay", "1"], ["--cache-ttl", "5"], ["--cache", ""], ["--mock", "nonsense=x.json"], ["--mock", "GET  /x=x.json"],
                    ["--mock", "GET /x=http://"], ["--mock", "GET /x=http://127.0.0.1:1?x=1"], ["--mock", "GET /x=/tmp"],
                    // A device or a file where a directory belongs (found by a new user's trial).
                    ["--mock", "GET /x=/dev/null"], ["--cache", "/dev/null"], ["--cache", "/etc/passwd"]] {
            let result = try await CurlewProcess.run(["send"] + bad + ["\(server.baseURL)/get"])
            #expect(result.status == 64, "\(bad)")
            #expect(!result.error.isEmpty, "\(bad)")
        }
    }
}
