import CurlewAgent
import CurlewLocking
import CurlewTestSupport
import Foundation
import Testing

private func events(_ text: String, splitEvery size: Int = .max) -> [ServerSentEvent] {
    var parser = ServerSentEventParser()
    let bytes = Array(text.utf8)
    var collected: [ServerSentEvent] = []
    var start = 0
    while start < bytes.count {
        let end = min(bytes.count, start + size)
        collected += parser.consume(bytes[start..<end], at: Date(timeIntervalSince1970: 0))
        start = end
    }
    return collected
}

/// Counts what a stream observer hears, slowly when asked.
private final class StreamCounter: NetworkObserver {
    let items = Locked(0)
    let dropped = Locked(0)
    let delay: Duration

    init(delay: Duration = .zero) {
        self.delay = delay
    }

    func requestDidStream(_ update: StreamUpdate) {
        items.withLock { $0 += 1 }
        dropped.withLock { $0 += update.droppedBefore }
        if delay > .zero { Thread.sleep(forTimeInterval: Double(delay.components.attoseconds) / 1e18) }
    }
}

@Suite("Streamed responses and server-sent events")
struct StreamingTests {
    @Test("the event stream format: fields, multi-line data, comments, IDs, retry, every line ending, split anywhere")
    func parser() {
        let text = "\u{FEFF}: comment\r\nretry: 1500\nevent: greet\ndata: hello\ndata:  world\nid: 7\n\ndata: second\r\n\r\nid: a\u{0}b\ndata: keeps 7\n\n:only a comment\n\nevent: empty\n\ndata\n\n"
        for size in [1, 2, 3, 7, .max] {
            let parsed = events(text, splitEvery: size)
            #expect(parsed.map(\.event) == ["greet", "message", "message", "message"], "split every \(size)")
            #expect(parsed.map(\.data) == ["hello\n world", "second", "keeps 7", ""])
            #expect(parsed.map(\.id) == ["7", "7", "7", "7"], "an ID with a NUL is ignored; the last ID stays in force")
            #expect(parsed.first?.retryMilliseconds == 1500)
        }
        #expect(events("data: a\r").isEmpty, "an event is dispatched only by a blank line")
        #expect(events("data: x\rdata: y\r\r").map(\.data) == ["x\ny"])
        #expect(events("retry: 12a\ndata: z\n\n").first?.retryMilliseconds == nil)
    }

    @Test("a hostile stream is bounded: an endless line is cut, an endless event stops growing")
    func bounds() {
        var parser = ServerSentEventParser()
        let huge = [UInt8](repeating: UInt8(ascii: "x"), count: ServerSentEventParser.maxLineBytes + 10)
        _ = parser.consume(Array("data: ".utf8) + huge, at: Date())
        let event = parser.consume(Array("\n\n".utf8), at: Date())
        #expect(event.first?.data.utf8.count == ServerSentEventParser.maxLineBytes - "data: ".utf8.count)
    }

    @Test("a stream's record keeps its events' IDs and types cut as their data is (found by review: megabyte IDs were kept two hundred times)")
    func recordCutsIDs() {
        var record = StreamRecord()
        let huge = String(repeating: "i", count: 1 << 20)
        for number in 0..<300 { record.keep(ServerSentEvent(event: huge + "\(number)", data: "d", id: huge + "\(number)")) }
        let kept = record.events.reduce(0) { $0 + $1.data.utf8.count + ($1.id?.utf8.count ?? 0) + $1.event.utf8.count }
        #expect(record.events.count == StreamRecord.keptEvents && kept < 3 * StreamRecord.keptEvents * (StreamRecord.keptEventBytes + 4))
        #expect(record.lastEventID == huge + "299" && record.eventCount == 300)
        let small = ServerSentEvent(event: "tick", data: "d", id: "7")
        #expect(StreamRecord.kept(small) == small)
    }

    @Test("events arrive one by one while the response is still coming, stamped in order")
    func live() async throws {
        let agent = try await pipelineAgent()
        var received: [ServerSentEvent] = []
        var chunks = 0
        let started = Date()
        for try await item in agent.stream(Request(.get, "/sse?count=4&interval=0.25")) {
            switch item {
            case .event(let event): received.append(event)
            case .chunk: chunks += 1
            }
        }
        let ended = Date()
        #expect(received.map(\.id) == ["1", "2", "3", "4"])
        #expect(received.map(\.data).first == #"{"n":1,"of":4}"#)
        #expect(received.map(\.event).allSatisfy { $0 == "tick" })
        #expect(zip(received, received.dropFirst()).allSatisfy { $0.receivedAt < $1.receivedAt })
        #expect(received[0].receivedAt.timeIntervalSince(started) < ended.timeIntervalSince(started) - 0.5,
                "the first event came well before the stream ended")
        #expect(chunks >= 4)
    }

    @Test("an event source reconnects with Last-Event-ID after the server's retry, and each connection is an exchange")
    func reconnect() async throws {
        let server = try await TestServer.shared()
        let agent = try await pipelineAgent()
        let recorder = EventRecorder()
        agent.addObserver(recorder)
        let tag = uniqueTag()
        var ids: [String] = []
        let request = Request(.get, "/sse/drop?count=6&interval=0.05&retry=100&after=2&tag=\(tag)")
        for try await event in agent.eventSource(request, reconnect: ReconnectPolicy(maxReconnects: 5)) {
            ids.append(event.id ?? "?")
        }
        #expect(ids == ["1", "2", "3", "4", "5", "6"])
        await agent.waitForObservers()
        let messages = recorder.messages.filter { $0.original?.url.contains(tag) == true }
        // Dropped twice, then ended cleanly; as a browser would, it reconnected once more, and a
        // connection that brought nothing new ended it.
        #expect(messages.compactMap { $0.stream?.reconnectAttempt } == [0, 1, 2, 3])
        #expect(messages.map(\.state) == [.failed, .failed, .succeeded, .succeeded])
        #expect(messages.first?.stream?.events.map(\.id) == ["1", "2"])
        let lastEventIDs = server.receivedRequests.filter { $0.uri.contains(tag) }.map { request in
            request.headers.first { $0.name.lowercased() == "last-event-id" }?.value
        }
        #expect(lastEventIDs == [nil, "2", "4", "6"])
    }

    @Test("an event source stops at an error status instead of reconnecting")
    func noReconnectOnError() async throws {
        let agent = try await pipelineAgent()
        var failed = false
        do {
            for try await _ in agent.eventSource(Request(.get, "/status/404"), reconnect: ReconnectPolicy(maxReconnects: 3, defaultRetry: .milliseconds(10))) {}
        } catch let failure as RequestFailure {
            failed = failure.error.kind == .unacceptableStatus
        }
        #expect(failed)
    }

    @Test("observers hear every item live; one that falls behind loses the oldest and is told how many")
    func observers() async throws {
        let agent = try await pipelineAgent()
        let fast = StreamCounter()
        let slow = StreamCounter(delay: .milliseconds(2))
        agent.addObserver(fast)
        agent.addObserver(slow)
        var total = 0
        for try await _ in agent.stream(Request(.get, "/sse?count=3000&interval=0"), bufferingNewest: 100_000) { total += 1 }
        await agent.waitForObservers()
        #expect(fast.items.withLock { $0 } + fast.dropped.withLock { $0 } == total)
        #expect(slow.items.withLock { $0 } + slow.dropped.withLock { $0 } == total)
        #expect(slow.dropped.withLock { $0 } > 0, "the slow observer's lane dropped its oldest items")
    }

    /// The messages a session log kept, in order, of what `send` did through an agent on the demo server.
    private func loggedMessages(_ send: (Agent) async throws -> Void) async throws -> [DebugMessage] {
        let log = NSTemporaryDirectory() + "curlew-stream-\(uniqueTag()).jsonl"
        defer { unlink(log) }
        let agent = try await pipelineAgent()
        let logger = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: log))
        agent.addObserver(logger)
        try await send(agent)
        await agent.waitForObservers()
        try logger.close()
        return try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").dropFirst()
            .map { try SessionLogFormat.makeDecoder().decode(DebugMessage.self, from: Data($0.utf8)) }
    }

    @Test("the stream record reaches the debug message and the session log")
    func logged() async throws {
        let messages = try await loggedMessages { agent in
            for try await _ in agent.stream(Request(.get, "/sse?count=3&interval=0&retry=250")) {}
        }
        let message = try #require(messages.last { $0.stream != nil })
        #expect(message.stream?.eventCount == 3)
        #expect(message.stream?.events.map(\.data).last == #"{"n":3,"of":3}"#)
        #expect(message.stream?.lastEventID == "3")
        #expect(message.stream?.retryMilliseconds == 250)
        // The body was not kept, but its size was: the log's readers show what arrived.
        let body = try #require(message.response?.body)
        #expect(body.data.isEmpty)
        #expect(body.size == message.stream?.bytes && body.size > 0, "\(body.size)")
    }

    @Test("a request that goes through the pipeline (a retry policy, as the interface's workspaces set) keeps its stream record, also when it is cut short (found by a new user's trial: the log had \"stream\": null)")
    func pipelinedStreamRecord() async throws {
        let messages = try await loggedMessages { agent in
            var whole = Request(.get, "/sse?count=3&interval=0")
            whole.retry = RetryPolicy(maxRetries: 0)
            for try await _ in agent.stream(whole) {}
            var cut = Request(.get, "/sse?count=100&interval=0.1")
            cut.retry = RetryPolicy(maxRetries: 0)
            // Long enough for the first events to arrive on a loaded machine, far short of the 10 s the stream takes.
            cut.timeout = .seconds(5)
            do { for try await _ in agent.stream(cut) {} } catch {}
        }
        #expect(messages.count == 2)
        #expect(messages.first?.stream?.eventCount == 3)
        #expect(messages.last?.state == .failed && messages.last?.error?.kind == .totalTimeout, "\(String(describing: messages.last?.error))")
        #expect((messages.last?.stream?.eventCount ?? 0) >= 1, "\(String(describing: messages.last?.stream))")
    }

    @Test("an event stream's body is handed over, not kept, since it may never end; other streamed bodies are kept")
    func eventStreamBodyNotKept() async throws {
        let agent = try await pipelineAgent()
        var events = Request(.get, "/sse?count=3&interval=0")
        events.streamsResponse = true
        #expect(try await agent.send(events).body.isEmpty)
        var lines = Request(.get, "/stream/3")
        lines.streamsResponse = true
        #expect(String(decoding: try await agent.send(lines).body, as: UTF8.self).split(separator: "\n").count == 3)
    }
}
