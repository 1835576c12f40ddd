import CurlewAgent
import CurlewTestSupport
import Foundation
import CurlewLocking
import Testing

/// An observer that takes its time over every event.
private final class SlowObserver: NetworkObserver {
    let delay: Duration
    private let count = Locked(0)
    init(delay: Duration) { self.delay = delay }
    var finished: Int { count.withLock { $0 } }
    func requestDidFinish(_ request: RequestInfo, state: RequestState) {
        Thread.sleep(forTimeInterval: Double(delay.components.attoseconds) / 1e18 + Double(delay.components.seconds))
        count.withLock { $0 += 1 }
    }
}

/// Keeps the URL every event shows of a request.
private final class URLRecorder: NetworkObserver {
    private let shown = Locked<[String]>([])
    var urls: [String] { shown.withLock { $0 } }
    func requestWillBeSent(_ request: RequestInfo) { shown.withLock { $0.append(request.url) } }
    func requestDidSend(_ request: RequestInfo) { shown.withLock { $0.append(request.url) } }
    private let made = Locked<[DebugMessage]>([])
    var messages: [DebugMessage] { made.withLock { $0 } }
    func requestDidProduce(_ message: DebugMessage) { made.withLock { $0.append(message) } }
    func requestDidFinish(_ request: RequestInfo, state: RequestState) { shown.withLock { $0.append(request.url) } }
}

@Suite("Observer hooks", .serialized)
struct AgentObserverTests {
    @Test("every request's events arrive in order: will send, did send, any progress, debug message, finished")
    func ordering() async throws {
        let agent = Agent(config: NetworkConfig(baseURL: try await TestServer.shared().baseURL))
        let recorder = EventRecorder()
        agent.addObserver(recorder)
        let handles = (0..<20).map { index in agent.start(Request(.get, index.isMultiple(of: 5) ? "/status/500" : "/get")) }
        await withTaskGroup(of: Void.self) { group in
            for handle in handles {
                group.addTask { while !handle.state.isTerminal { try? await Task.sleep(for: .milliseconds(5)) } }
            }
        }
        await agent.waitForObservers()
        for handle in handles {
            let events = recorder.events(for: handle.id)
            let milestones = events.filter { $0 != .progress(handle.id) }
            #expect(milestones == [.willSend(handle.id), .didSend(handle.id), .debugMessage(handle.id), .finished(handle.id, handle.state)])
            let progressPositions = events.indices.filter { events[$0] == .progress(handle.id) }
            #expect(progressPositions.allSatisfy { $0 > 1 && $0 < events.count - 2 }, "progress only while in flight")
        }
        #expect(recorder.messages.filter { $0.state == .failed }.count == 4)
    }

    @Test("a Basic password the URL repeats is hidden in every event's URL from the first (found by a new user's trial: a row in flight showed it); the request still goes where it was sent, and its record keeps the URL whole for a resend, its redaction hiding it")
    func basicPasswordRepeatedInURLHiddenInFlight() async throws {
        let agent = Agent(config: NetworkConfig(baseURL: try await TestServer.shared().baseURL))
        let recorder = URLRecorder()
        agent.addObserver(recorder)
        var request = Request(.get, "/basic-auth/ann/Sekr3tPw")
        request.headers["Authorization"] = "Basic " + Data("ann:Sekr3tPw".utf8).base64EncodedString()
        let response = try await agent.send(request)
        #expect(response.statusCode == 200, "the demo server checked the password the path names")
        await agent.waitForObservers()
        let urls = recorder.urls
        #expect(urls.count == 3)
        #expect(urls.allSatisfy { $0.hasSuffix("/basic-auth/ann/[REDACTED]") }, "\(urls)")
        let message = try #require(recorder.messages.first)
        #expect(message.original?.url.hasSuffix("/basic-auth/ann/Sekr3tPw") == true)
        #expect(RedactionPolicy().redact(message).original?.url.hasSuffix("/basic-auth/ann/[REDACTED]") == true)
        // A request without headers shows its URL as it is.
        _ = try await agent.send(Request(.get, "/get?word=Sekr3tPw"))
        await agent.waitForObservers()
        #expect(recorder.urls.dropFirst(3).allSatisfy { $0.hasSuffix("/get?word=Sekr3tPw") })
        // A host that is a short password keeps its name (found by review).
        #expect(RedactionPolicy.hidingPasswords(in: "http://intra/basic-auth/u/intra", sentWith: [HeaderField(name: "Authorization",
            value: "Basic " + Data("u:intra".utf8).base64EncodedString())]) == "http://intra/basic-auth/u/[REDACTED]")
    }

    @Test("a refusal quoting the URL hides the credentials the request's Authorization carries, in the error and its record (found by a new user's trial)")
    func refusalHidesCredentials() async throws {
        let agent = Agent(config: NetworkConfig())
        let recorder = EventRecorder()
        agent.addObserver(recorder)
        for (url, authorization, secret) in [("http://127.0.0.1:99999/xSekr3tPw1y", HTTPHeaders.basicAuthorization("ann:Sekr3tPw1"), "Sekr3tPw1"),
                                             ("http://127.0.0.1:8/a b?s=tok-9f8e7d", "Bearer tok-9f8e7d", "tok-9f8e7d")] {
            var request = Request(.get, url)
            request.headers["Authorization"] = authorization
            do {
                _ = try await agent.send(request)
                Issue.record("\(url) was sent")
            } catch let failure as RequestFailure {
                #expect(failure.error.kind == .invalidURL)
                #expect(!failure.error.message.contains(secret) && failure.error.message.contains("[REDACTED]"), "\(failure.error.message)")
            }
        }
        await agent.waitForObservers()
        #expect(recorder.messages.count == 2)
        #expect(recorder.messages.allSatisfy { $0.error.map { !$0.message.contains("Sekr3tPw1") && !$0.message.contains("tok-9f8e7d") } == true })
    }

    @Test("an observer attached while a request is in flight gets its debug message, the request shown as typed")
    func observerAttachedMidFlight() async throws {
        let agent = Agent(config: NetworkConfig(baseURL: try await TestServer.shared().baseURL))
        let response = Locked<Response?>(nil)
        let handle = agent.start(Request(.get, "/delay/0.3"), callbacks: RequestCallbacks(success: { received in response.withLock { $0 = received } }))
        let recorder = EventRecorder()
        agent.addObserver(recorder)
        while !handle.state.isTerminal { try await Task.sleep(for: .milliseconds(5)) }
        await agent.waitForObservers()
        #expect(handle.state == .succeeded)
        let message = try #require(recorder.messages.first { $0.requestID == handle.id })
        #expect(message.original?.method == "GET" && message.original?.url.hasSuffix("/delay/0.3") == true)
        #expect(message.sent == nil && message.timings == nil && message.connection == nil, "nothing captured or measured for a request started unobserved")
        #expect(message.response?.statusCode == 200)
        // The response itself is whole whether or not anybody observed the exchange.
        let received = try #require(response.withLock { $0 })
        #expect(received.httpVersion == "1.1" && received.url.hasSuffix("/delay/0.3") && received.statusCode == 200)
    }

    @Test("a request refused before sending still produces one debug message and one finish")
    func refusedRequestEvents() async throws {
        let agent = Agent()
        let recorder = EventRecorder()
        agent.addObserver(recorder)
        let handle = agent.start(.url("http://bad host/"))
        await agent.waitForObservers()
        #expect(recorder.events(for: handle.id) == [.debugMessage(handle.id), .finished(handle.id, .failed)])
        #expect(recorder.messages.first?.error?.kind == .invalidURL)
    }

    @Test("a slow observer builds a counted backlog and never slows the transfers")
    func slowObserver() async throws {
        let agent = Agent(config: NetworkConfig(baseURL: try await TestServer.shared().baseURL))
        // 10 x 1 s of observer work: the bound below leaves the requests themselves 8 s on a
        // loaded machine (300 ms each, against 2.5 s, was not enough under the whole suite).
        let slow = SlowObserver(delay: .seconds(1))
        let fast = EventRecorder()
        agent.addObserver(slow)
        agent.addObserver(fast)
        let started = ContinuousClock.now
        for _ in 0..<10 { _ = try await agent.send(Request(.get, "/get")) }
        let elapsed = ContinuousClock.now - started
        #expect(elapsed < .seconds(8), "10 requests must not wait for 10 x 1 s of observer work")
        #expect(agent.observerBacklog(of: slow) > 0)
        // Held up by the slow observer, the fast one would need ten seconds.
        try await waitUntil(timeout: .seconds(8)) { fast.messages.count == 10 }
        await agent.waitForObservers()
        #expect(agent.observerBacklog(of: slow) == 0)
        #expect(slow.finished == 10)
    }

    @Test("debug messages carry the composed request, the wire request, response, timings and connection")
    func debugMessageFields() async throws {
        let server = try await TestServer.shared()
        let queue = DispatchQueue(label: "test.callbacks")
        let agent = Agent(config: NetworkConfig(baseURL: server.baseURL, callbackQueue: queue))
        let recorder = EventRecorder()
        agent.addObserver(recorder)
        _ = try await agent.send(Request(.post, "/post", name: "create", params: ["a": 1], requestSerializer: .json))
        await agent.waitForObservers()
        let message = try #require(recorder.messages.first)
        #expect(message.name == "create")
        #expect(message.state == .succeeded)
        #expect(message.original?.url == "\(server.baseURL)/post")
        #expect(message.original?.body?.text == "{\"a\":1}")
        #expect(message.sent?.head.hasPrefix("POST /post HTTP/1.1\r\n") == true)
        #expect(message.response?.statusCode == 200)
        #expect(message.response?.headers.contains { $0.name == "Content-Type" } == true)
        #expect(message.timings.map { $0.total > 0 } == true)
        #expect(message.connection?.remotePort == server.port)
        #expect(message.callbackQueue == "test.callbacks")
        #expect(message.error == nil)
    }
}

@Suite("Callbacks and cancellation", .serialized)
struct AgentCallbackTests {
    private final class Delegate: RequestDelegate {
        let calls = Locked<[String]>([])
        func requestWillBeSent(_ handle: RequestHandle) { calls.withLock { $0.append("willBeSent") } }
        func requestDidSend(_ handle: RequestHandle) { calls.withLock { $0.append("didSend") } }
        func requestDidSucceed(_ handle: RequestHandle, response: Response) { calls.withLock { $0.append("succeeded \(response.statusCode)") } }
        func requestDidFail(_ handle: RequestHandle, failure: RequestFailure) { calls.withLock { $0.append("failed \(failure.error.kind)") } }
    }

    @Test("closures run on the config's callback queue, debug before success")
    func closuresOnCallbackQueue() async throws {
        let key = DispatchSpecificKey<String>()
        let queue = DispatchQueue(label: "test.callbacks")
        queue.setSpecific(key: key, value: "mine")
        let agent = Agent(config: NetworkConfig(baseURL: try await TestServer.shared().baseURL, callbackQueue: queue))
        let log = Locked<[String]>([])
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            agent.start(Request(.get, "/get"), callbacks: RequestCallbacks(
                success: { _ in
                    log.withLock { $0.append("success on \(DispatchQueue.getSpecific(key: key) ?? "other")") }
                    done.resume()
                },
                debug: { _ in log.withLock { $0.append("debug on \(DispatchQueue.getSpecific(key: key) ?? "other")") } }
            ))
        }
        #expect(log.withLock { $0 } == ["debug on mine", "success on mine"])
    }

    @Test("the delegate hears the whole life of a request")
    func delegate() async throws {
        let agent = Agent(config: NetworkConfig(baseURL: try await TestServer.shared().baseURL))
        let delegate = Delegate()
        agent.start(Request(.get, "/get"), callbacks: RequestCallbacks(delegate: delegate))
        agent.start(Request(.get, "/status/404"), callbacks: RequestCallbacks(delegate: delegate))
        try await waitUntil { delegate.calls.withLock { $0.count } == 6 }
        let calls = delegate.calls.withLock { $0 }
        #expect(calls.filter { $0 == "willBeSent" }.count == 2)
        #expect(calls.filter { $0 == "didSend" }.count == 2)
        #expect(calls.contains("succeeded 200"))
        #expect(calls.contains("failed unacceptableStatus"))
    }

    @Test("cancelling an in-flight request fails it as cancelled at once, not when the server answers, exactly once")
    func cancelInFlight() async throws {
        let server = try await TestServer.shared()
        let agent = Agent(config: NetworkConfig(baseURL: server.baseURL))
        let failures = Locked<[RequestError.Kind]>([])
        let tag = uniqueTag()
        let handle = agent.start(Request(.get, "/delay/10?\(tag)"), callbacks: RequestCallbacks(
            success: { _ in failures.withLock { $0.append(.other) } },
            failure: { failure in failures.withLock { $0.append(failure.error.kind) } }
        ))
        while !server.receivedRequests.contains(where: { $0.uri.contains(tag) }) { try await Task.sleep(for: .milliseconds(5)) }
        #expect(handle.state == .inFlight)
        let cancelledAt = ContinuousClock.now
        agent.cancel(handle)
        while failures.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(1)) }
        // The server answers after 10 s. The bound leaves room for a loaded machine: 100 ms
        // failed once in a full `make test` (138 ms), which is not what this test is about.
        #expect(ContinuousClock.now - cancelledAt < .seconds(2))
        agent.cancel(handle)
        agent.cancelAll()
        // Whatever those could still call back is on the callback queue before this block runs.
        await withCheckedContinuation { continuation in agent.config.callbackQueue.async { continuation.resume() } }
        #expect(failures.withLock { $0 } == [.cancelled])
        #expect(handle.state == .cancelled)
    }

    @Test("a cancelled request's time runs to its cancel, not to libcurl's last progress update, and its receive phase reads as no response, not 0.000 ms (both found by new users' trials)")
    func cancelledTimeRunsToCancel() async throws {
        let server = try await TestServer.shared()
        let agent = Agent(config: NetworkConfig(baseURL: server.baseURL))
        let recorder = EventRecorder()
        agent.addObserver(recorder)
        let started = ContinuousClock.now
        let handle = agent.start(Request(.get, "/delay/10?\(uniqueTag())"))
        try await Task.sleep(for: .milliseconds(1_500))
        agent.cancel(handle)
        let cancelledAfter = (ContinuousClock.now - started).wholeMicroseconds
        while !handle.state.isTerminal { try await Task.sleep(for: .milliseconds(5)) }
        await agent.waitForObservers()
        let message = try #require(recorder.messages.first)
        let total = try #require(message.timings?.total)
        #expect(total > cancelledAfter - 300_000 && total <= cancelledAfter + 400_000, "total \(total) µs, cancelled after \(cancelledAfter) µs")
        // Cancelled while waiting: no response, a receive of zero that is no phase, and the time
        // until the cancel spent waiting.
        #expect(message.response == nil && message.timings?.receive == 0 && !message.receiveHappened)
        #expect((message.timings?.wait ?? 0) > 1_000_000)
        let rows = try #require(message.waterfall(width: 40))
        let receive = try #require(rows.first { $0.phase == "receive" })
        #expect(receive.duration == "n/a" && receive.bar == nil && receive.reason == "no response", "\(receive)")
    }

    @Test("a receive phase of zero microseconds with a response is drawn, not called missing")
    func zeroReceiveWithResponseIsDrawn() {
        let timings = TimingBreakdown(queued: 0, dns: nil, connect: nil, tls: nil, send: 10, wait: 90, receive: 0, redirect: nil, total: 100)
        let answered = timings.waterfall(width: 20, reused: true, reach: ExchangeReach(requestWentOut: true, receiveHappened: true)).first { $0.phase == "receive" }
        #expect(answered?.bar != nil && answered?.duration == "0.000 ms")
        let unanswered = timings.waterfall(width: 20, reused: true, reach: ExchangeReach(requestWentOut: true, receiveHappened: false)).first { $0.phase == "receive" }
        #expect(unanswered?.bar == nil && unanswered?.reason == "no response")
    }

    @Test("an answer refused as malformed has a receive phase, drawn; a connection closed without an answer has none", arguments: [
        ("/fault/no-status", true), ("/fault/bad-status", true), ("/fault/close", false),
    ])
    func malformedAnswerIsReceived(_ path: String, _ answered: Bool) async throws {
        let server = try await TestServer.shared()
        let agent = Agent(config: NetworkConfig(baseURL: server.baseURL))
        let recorder = EventRecorder()
        agent.addObserver(recorder)
        let handle = agent.start(Request(.get, path + "?" + uniqueTag()))
        while !handle.state.isTerminal { try await Task.sleep(for: .milliseconds(5)) }
        await agent.waitForObservers()
        let message = try #require(recorder.messages.first)
        #expect(message.error?.kind == (answered ? .invalidResponse : .emptyResponse))
        #expect(message.receiveHappened == answered)
        let timings = try #require(message.timings)
        #expect(timings.wait > 0 && timings.send + timings.wait + timings.receive <= timings.total, "\(timings)")
        let receive = try #require(message.waterfall(width: 40)?.first { $0.phase == "receive" })
        #expect(answered ? receive.bar != nil && receive.reason == nil : receive.reason == "no response", "\(receive)")
    }

    @Test("cancelAllAndStop returns only once observers heard the end of every request it cancelled, plain, retried and in a group (found by a new user's trial: SIGTERM's cancelled request missing from the log)")
    func cancelAllAndStopPublishesEveryEnd() async throws {
        let server = try await TestServer.shared()
        for _ in 0..<5 {
            var config = NetworkConfig(baseURL: server.baseURL)
            config.retry = RetryPolicy(maxRetries: 2, backoff: .fixed(.milliseconds(50)))
            let agent = Agent(config: config)
            let recorder = EventRecorder()
            agent.addObserver(recorder)
            let tag = uniqueTag()
            let plain = agent.start(Request(.get, "/delay/10?\(tag)-a"))
            let group = agent.start(.batch([Request(.get, "/delay/10?\(tag)-b"), Request(.get, "/delay/10?\(tag)-c")], policy: .all, maxConcurrency: 2))
            while server.receivedRequests.filter({ $0.uri.contains(tag) }).count < 3 { try await Task.sleep(for: .milliseconds(5)) }
            await agent.cancelAllAndStop()
            #expect(plain.state == .cancelled && group.state == .cancelled)
            let ended = recorder.events.compactMap { event -> RequestState? in if case .finished(_, let state) = event { state } else { nil } }
            #expect(ended.count == 3 && ended.allSatisfy { $0 == .cancelled }, "\(recorder.events)")
            #expect(recorder.messages.count == 3, "every cancelled request has its debug message")
        }
    }

    @Test("cancelling the task of an async send cancels the request")
    func taskCancellation() async throws {
        let agent = Agent(config: NetworkConfig(baseURL: try await TestServer.shared().baseURL))
        let task = Task { try await agent.send(Request(.get, "/delay/10")) }
        try await Task.sleep(for: .milliseconds(200))
        let cancelledAt = ContinuousClock.now
        task.cancel()
        let result = await task.result
        // The server answers after 10 s; the bound leaves room for a loaded machine.
        #expect(ContinuousClock.now - cancelledAt < .seconds(2))
        guard case .failure(let failure as RequestFailure) = result else {
            Issue.record("expected a RequestFailure, got \(result)")
            return
        }
        #expect(failure.error.kind == .cancelled)
    }

    @Test("a completion closure receives a Result")
    func completionClosure() async throws {
        let agent = Agent(config: NetworkConfig(baseURL: try await TestServer.shared().baseURL))
        let status = await withCheckedContinuation { continuation in
            agent.start(Request(.get, "/status/201")) { result in
                continuation.resume(returning: (try? result.get())?.statusCode)
            }
        }
        #expect(status == 201)
    }
}
