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
        #expect(index.entryCount == log.messages.count)
        #expect(index.headers.count == 1)
        for position in 0..<index.entryCount {
            let message = try #require(index.message(at: position))
            let summary = try #require(index.summary(at: position))
            #expect(message.requestID == log.messages[position].requestID)
            #expect(summary.method == message.original?.method)
            #expect(summary.url == message.original?.url)
            #expect(summary.statusCode == (message.response?.statusCode ?? 0))
            #expect(summary.failed == (message.error != nil))
            #expect(summary.responseSize == message.response?.body.size)
            #expect(summary.elapsedMicros == message.timings.map { $0.queued + $0.total })
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
        #expect(index.matching(filter).map(Int.init) == messages.indices.filter { filter.matches(messages[$0]) })
        // With room for two URLs only, the others are read from their lines: the same answer.
        let crowded = try SessionLogIndex(path: path, distinctURLs: 2)
        #expect(crowded.matching(filter).map(Int.init) == messages.indices.filter { filter.matches(messages[$0]) })
    }

    @Test("values too large for the index's columns are read from their lines", arguments: [
        "~c 5xx", "~c 200", "~dur >4000s", "~dur <1s", "~size >4GB", "~size <1KB", "!~c 2xx & ~m GET",
    ])
    func oversizedValues(_ expression: String) async throws {
        let path = try await writeLog()
        // Summaries edited past what a column holds: a status of 70000, 5,000 s, 5 GB.
        var lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for position in lines.indices where lines[position].hasPrefix(#"{"type":"message","summary""#) && position % 2 == 0 {
            lines[position] = lines[position]
                .replacingOccurrences(of: #","status":200,"#, with: #","status":70000,"#)
                .replacingOccurrences(of: #"("elapsed":)\d+"#, with: "$15000000000", options: .regularExpression)
                .replacingOccurrences(of: #"("size":)\d+"#, with: "$15000000000", options: .regularExpression)
        }
        try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let index = try SessionLogIndex(path: path)
        let filter = try MessageFilter.parse(expression)
        let fromLines = try (0..<index.entryCount).filter { filter.matches(try #require(index.summary(at: $0))) }
        #expect(index.matching(filter).map(Int.init) == fromLines)
        #expect(try (0..<index.entryCount).contains { try #require(index.summary(at: $0)).responseSize == 5_000_000_000 })
    }

    @Test("a file of nothing but header records keeps the first thousand")
    func manyHeaders() async throws {
        let path = try await writeLog()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        let header = try #require(lines.first { $0.contains(#""type":"header""#) })
        try (Array(repeating: header, count: 1_500) + lines.filter { !$0.contains(#""type":"header""#) }).joined(separator: "\n")
            .write(toFile: path, atomically: true, encoding: .utf8)
        let index = try SessionLogIndex(path: path)
        #expect(index.headers.count == 1_000)
        #expect(index.entryCount == 8)
        #expect(index.summary(at: 7)?.url.hasSuffix("/refused") == true)
    }

    @Test("entries past a block's capacity are found, read and filtered like the first ones")
    func manyBlocks() throws {
        let path = NSTemporaryDirectory() + "curlew-blocks-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let logger = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: path))
        let count = 70_000
        for id in 1...count {
            let message = DebugMessage(requestID: UInt64(id), name: nil, state: id % 10 == 0 ? .failed : .succeeded, startedAt: Date(timeIntervalSince1970: 0),
                                       original: ComposedRequest(method: id % 3 == 0 ? "POST" : "GET", url: "http://h/\(id % 5)", headers: [], params: .object([]),
                                                                 body: nil, timeoutMilliseconds: 1_000),
                                       sent: nil, response: nil, error: id % 10 == 0 ? RequestError(.cancelled, "cancelled") : nil, timings: nil,
                                       connection: nil, callbackQueue: "main")
            logger.requestDidProduce(message)
            if id % 1_000 == 0 { logger.observerDidFinishBatch() }
        }
        logger.observerDidFinishBatch()
        try logger.close()
        let index = try SessionLogIndex(path: path, firstEntries: 100)
        index.waitUntilComplete()
        #expect(index.entryCount == count)
        for position in [0, 99, 100, 65_535, 65_536, 65_636, count - 1] {
            #expect(index.message(at: position)?.requestID == UInt64(position + 1))
        }
        #expect(index.message(at: count) == nil && index.message(at: -1) == nil)
        let filter = try MessageFilter.parse("~m POST & ~u /2")
        #expect(index.matching(filter).map(Int.init) == (0..<count).filter { ($0 + 1) % 3 == 0 && ($0 + 1) % 5 == 2 })
        #expect(index.matching(filter, from: 65_000, to: 66_000).map(Int.init) == (65_000..<66_000).filter { ($0 + 1) % 3 == 0 && ($0 + 1) % 5 == 2 })
    }

    @Test("a truncated last line is skipped and counted; a file with no record is refused")
    func damagedFiles() async throws {
        let path = try await writeLog()
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        try (data + Data("{\"type\":\"message\",\"requestID\":9".utf8)).write(to: URL(fileURLWithPath: path))
        let index = try SessionLogIndex(path: path)
        #expect(index.entryCount == 8)
        #expect(index.skipped.count == 1 && index.skippedCount == 1)
        let garbage = NSTemporaryDirectory() + "curlew-garbage-\(UUID().uuidString).jsonl"
        try "not json\nat all\n".write(toFile: garbage, atomically: true, encoding: .utf8)
        #expect(throws: SessionLogError.self) { try SessionLogIndex(path: garbage) }
        #expect(throws: SessionLogError.self) { try SessionLogIndex(path: garbage + ".missing") }
    }

    @Test("an entry whose record does not decode is read and decoded once, not again for every frame that shows it")
    func damagedEntryDecodedOnce() throws {
        let path = NSTemporaryDirectory() + "curlew-damaged-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        var lines = try Fixtures.writeEntryLog(count: 3, to: path)
        let original = lines[2]
        // Its summary still reads; a value in the record is of the wrong type, the line as long.
        let method = try #require(original.range(of: "\"GET\"", options: .backwards))
        lines[2] = original.replacingCharacters(in: method, with: "12345")
        try Fixtures.writeLines(lines, to: path)
        let index = try SessionLogIndex(path: path)
        #expect(index.entryCount == 3 && index.summary(at: 1) != nil)
        #expect(index.message(at: 1) == nil && index.message(at: 0) != nil)
        // The same bytes made readable again: the kept answer is what shows, so the line was
        // not read again.
        lines[2] = original
        try Fixtures.writeLines(lines, to: path)
        #expect(index.message(at: 1) == nil)
        #expect(try SessionLogIndex(path: path).message(at: 1) != nil, "a new index reads the repaired line")
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

@Suite("Following a log as it grows")
struct FollowedLogTests {
    /// Waits (at most 10 s) until `condition` holds.
    private func eventually(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
    }

    private func append(_ text: String, to path: String) throws {
        let handle = try #require(FileHandle(forWritingAtPath: path))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(text.utf8))
    }

    @Test("entries another logger appends are indexed as they come, many small appends read like one file, and a line still being written waits for its line break")
    func entriesAppendedAreIndexed() async throws {
        let path = NSTemporaryDirectory() + "curlew-follow-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        _ = try Fixtures.writeEntryLog(count: 3, to: path)
        let index = try SessionLogIndex(path: path, firstEntries: 2, follows: true)
        try await eventually { index.isComplete && index.entryCount == 3 }
        #expect(index.entryCount == 3 && index.followingEnded == nil)
        // A second run appends to the log, a batch at a time, as a logger does.
        let logger = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: path))
        for id in 4...40 {
            logger.requestDidProduce(Fixtures.message(id: UInt64(id), method: id % 2 == 0 ? "POST" : "GET", url: "http://h/entry\(id)"))
            logger.observerDidFinishBatch()
            if id % 8 == 0 { try await Task.sleep(for: .milliseconds(300)) }
        }
        try logger.close()
        try await eventually { index.entryCount == 40 }
        #expect(index.entryCount == 40 && index.headers.count == 2)
        for position in 0..<40 { #expect(index.message(at: position)?.requestID == UInt64(position + 1)) }
        #expect(index.matching(try MessageFilter.parse("~m POST")).map(Int.init) == (0..<40).filter { ($0 + 1) % 2 == 0 && $0 >= 3 })
        // Half a line: not an entry, not a damaged line, until the rest of it comes.
        let line = try #require(try Fixtures.writeEntryLog(count: 1, to: path + ".one").last)
        defer { try? FileManager.default.removeItem(atPath: path + ".one") }
        try append(String(line.prefix(40)), to: path)
        try await eventually { index.waitingLineBytes == 40 }
        #expect(index.entryCount == 40 && index.skippedCount == 0 && index.waitingLineBytes == 40)
        try append(String(line.dropFirst(40)) + "\n", to: path)
        try await eventually { index.entryCount == 41 }
        #expect(index.message(at: 40)?.requestID == 1 && index.skippedCount == 0 && index.waitingLineBytes == 0)
        // A whole record without its line break is an entry; a line cut just after an inner `}`
        // is not, though it ends like one.
        let cut = try #require(line.range(of: "}", options: .backwards, range: line.startIndex..<line.index(before: line.endIndex)))
        try append(String(line[..<cut.upperBound]), to: path)
        try await Task.sleep(for: .milliseconds(600))
        #expect(index.entryCount == 41 && index.waitingLineBytes > 0)
        try append(String(line[cut.upperBound...]), to: path)
        try await eventually { index.entryCount == 42 }
        #expect(index.message(at: 41)?.requestID == 1 && index.waitingLineBytes == 0)
        try append("\n" + line + "\n", to: path)
        try await eventually { index.entryCount == 43 }
        #expect(index.skippedCount == 0, "the line break that came late ends an empty line")
    }

    @Test("followed, a file of one line without its line break that is not a log is refused as when opened once")
    func oneLineNotALog() throws {
        let path = NSTemporaryDirectory() + "curlew-oneline-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try #"{"a":1}"#.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: SessionLogError.self) { try SessionLogIndex(path: path, follows: true) }
        try "not json at all".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: SessionLogError.self) { try SessionLogIndex(path: path, follows: true) }
    }

    @Test("following ends, with why, when the file is truncated, truncated and written again longer than before (found by a new user's trial: it was read on as if it had grown), or its name given to another file, whose entries stay readable", arguments: ["truncated", "rewritten", "replaced"])
    func followingEnds(_ how: String) async throws {
        let path = NSTemporaryDirectory() + "curlew-follow-end-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let lines = try Fixtures.writeEntryLog(count: 4, to: path)
        let index = try SessionLogIndex(path: path, follows: true)
        #expect(lines.count == 5, "a header and four entries")
        try await eventually { index.isComplete }
        // The last entries written to the file, and half a line, just before it is cut or replaced.
        try append(lines[1] + "\n" + lines[2] + "\n" + String(lines[2].prefix(30)), to: path)
        if how == "truncated" {
            #expect(truncate(path, 10) == 0)
        } else if how == "rewritten" {
            // Another run's log, longer than this one was, written over it in one write.
            let logger = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: path + ".other"))
            defer { try? FileManager.default.removeItem(atPath: path + ".other") }
            for id in 1...12 { logger.requestDidProduce(Fixtures.message(id: UInt64(id), method: "DELETE", url: "http://other/\(id)")) }
            try logger.close()
            try Data(contentsOf: URL(fileURLWithPath: path + ".other")).write(to: URL(fileURLWithPath: path))
        } else {
            try Fixtures.writeLines(Array(lines.prefix(2)), to: path + ".new")
            #expect(rename(path + ".new", path) == 0)
        }
        try await eventually { index.followingEnded != nil }
        // A look that falls between the cut and the write sees the file truncated; the scanner's
        // tests choose where it falls.
        let reasons = ["truncated": ["it was truncated"], "rewritten": ["it was truncated and written again", "it was truncated"],
                       "replaced": ["it was replaced by another file"]]
        #expect(reasons[how]?.contains(index.followingEnded ?? "") == true, "\(index.followingEnded ?? "still followed")")
        #expect(index.entryCount <= 6, "nothing of the other log is read on")
        #expect(index.isComplete && index.waitingLineBytes == 0, "no longer indexing, and the unfinished line is no longer waited for")
        if how != "replaced" {
            #expect(index.message(at: 0) == nil || index.message(at: 0)?.requestID == 1, "a line is not read from the cut file (found by review)")
            #expect(index.message(at: 3) == nil && index.summary(at: 3) == nil)
        }
        if how == "replaced" {
            #expect(index.entryCount == 6 && index.message(at: 5)?.requestID == 2, "the old file is read to its end")
            #expect(index.skippedCount == 1 && index.waitingLineBytes == 0, "its unfinished last line is a damaged one")
        }
    }

    @Test("a log opened without following is indexed once: what is appended later is not read")
    func notFollowed() async throws {
        let path = NSTemporaryDirectory() + "curlew-nofollow-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        _ = try Fixtures.writeEntryLog(count: 2, to: path)
        let index = try SessionLogIndex(path: path)
        _ = try Fixtures.writeEntryLog(count: 3, to: path + ".more")
        defer { try? FileManager.default.removeItem(atPath: path + ".more") }
        try append(try String(contentsOfFile: path + ".more", encoding: .utf8), to: path)
        try await Task.sleep(for: .milliseconds(600))
        #expect(index.isComplete && index.entryCount == 2 && index.followingEnded == nil)
    }
}
