import CurlewAgent
import CurlewSessions
import CurlewTestSupport
import Foundation
import Testing

@Suite("Session log index")
struct SessionLogIndexTests {
    /// A log written by the agent against the demo server, with echoed bodies that contain the
    /// same key names as the records themselves ("method", "url", "statusCode", "size").
    private func writeLog() async throws -> String {
        let server = try await TestServer.shared()
        let path = NSTemporaryDirectory() + "curlew-index-\(UUID().uuidString).jsonl"
        let agent = Agent(config: NetworkConfig(baseURL: server.baseURL))
        let logger = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: path))
        agent.addObserver(logger)
        let port = try Listeners.closedPort()
        let requests = [
            Request(.get, "/get"),
            Request(.post, "/anything", params: ["method": "PUT", "statusCode": 999, "url": "http://fake", "size": 1], requestSerializer: .json),
            // Parameters named like the timing and error fields once corrupted summaries.
            Request(.get, "/get", params: ["total": "7", "queued": "9", "error": "none"]),
            Request(.post, "/post", params: ["total": 123_456, "error": ["kind": "fake"], "response": ["size": 1]], requestSerializer: .json),
            Request(.get, "/status/503"),
            Request(.delete, "/delete"),
            Request(.get, "/bytes/3000"),
            .url("http://127.0.0.1:\(port)/refused"),
        ]
        for request in requests { _ = try? await agent.send(request) }
        await agent.waitForObservers()
        try logger.close()
        return path
    }

    @Test("summaries agree with the decoded messages, also when bodies echo the record's key names")
    func summaries() async throws {
        let path = try await writeLog()
        let index = try SessionLogIndex(path: path)
        let log = try SessionLogReader.read(path: path)
        #expect(index.entries.count == log.messages.count)
        #expect(index.headers.count == 1)
        for (position, entry) in index.entries.enumerated() {
            let message = try #require(index.message(at: position))
            #expect(message.requestID == log.messages[position].requestID)
            #expect(entry.summary.method == message.original?.method)
            #expect(entry.summary.url == message.original?.url)
            #expect(entry.summary.statusCode == (message.response?.statusCode ?? 0))
            #expect(entry.summary.failed == (message.error != nil))
            #expect(entry.summary.responseSize == message.response?.body.size)
            #expect(entry.summary.elapsedMicros == message.timings.map { $0.queued + $0.total })
        }
    }

    @Test("filters on summaries select exactly what full decoding selects", arguments: [
        "~c 5xx | ~m POST", "~m DELETE", "~e", "!~e", "~c 2xx & ~size >1KB", "~u /any", "~d 127.0.0.1", "~dur >0ms", "refused", "~b slideshow | ~h Server",
    ])
    func filters(_ expression: String) async throws {
        let path = try await writeLog()
        let index = try SessionLogIndex(path: path)
        let messages = try SessionLogReader.read(path: path).messages
        let filter = try MessageFilter.parse(expression)
        #expect(index.matching(filter) == messages.indices.filter { filter.matches(messages[$0]) })
    }

    @Test("a truncated last line is skipped and counted; a file with no record is refused")
    func damagedFiles() async throws {
        let path = try await writeLog()
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        try (data + Data("{\"type\":\"message\",\"requestID\":9".utf8)).write(to: URL(fileURLWithPath: path))
        let index = try SessionLogIndex(path: path)
        #expect(index.entries.count == 8)
        #expect(index.skipped.count == 1)
        let garbage = NSTemporaryDirectory() + "curlew-garbage-\(UUID().uuidString).jsonl"
        try "not json\nat all\n".write(toFile: garbage, atomically: true, encoding: .utf8)
        #expect(throws: SessionLogError.self) { try SessionLogIndex(path: garbage) }
        #expect(throws: SessionLogError.self) { try SessionLogIndex(path: garbage + ".missing") }
    }
}

@Suite("Progressive indexing")
struct ProgressiveIndexTests {
    @Test("opening with a first screen of entries indexes the rest in the background")
    func progressive() async throws {
        let server = try await TestServer.shared()
        let path = NSTemporaryDirectory() + "curlew-progressive-\(UUID().uuidString).jsonl"
        let agent = Agent(config: NetworkConfig(baseURL: server.baseURL))
        let logger = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: path))
        agent.addObserver(logger)
        for index in 0..<40 { _ = try? await agent.send(Request(.get, index.isMultiple(of: 4) ? "/status/500" : "/get")) }
        await agent.waitForObservers()
        try logger.close()

        let index = try SessionLogIndex(path: path, firstEntries: 5)
        #expect(index.entryCount >= 5)
        index.waitUntilComplete()
        #expect(index.entryCount == 40)
        #expect(index.headers.count == 1)
        #expect(index.matching(try MessageFilter.parse("~c 5xx")).count == 10)
    }
}
