import CurlewDemoServer
import CurlewTestSupport
import CurlewTransport
import Foundation
import Testing

@Suite("Cancelling exchanges", .serialized)
struct TransferCancellationTests {
    @Test("an in-flight request is aborted at once, not when the server answers, with exactly one finished event")
    func cancelInFlight() async throws {
        let server = try await TestServer.shared()
        let harness = EngineHarness()
        let id = harness.submit(TransferRequest(url: "\(server.baseURL)/delay/10"))
        // Ten seconds, as the file's other waits: at the start of a full run the two cores are
        // shared by every suite (a CI run once went past five here).
        try await waitUntil(timeout: .seconds(10)) { server.receivedRequests.contains { $0.uri == "/delay/10" } && harness.collector.events(for: id).count >= 1 }
        let cancelledAt = ContinuousClock.now
        harness.engine.cancel(id: id)
        let result = await harness.collector.result(for: id)
        let finishedAt = try #require(harness.collector.finishedAt(id))
        #expect(result.error?.kind == .cancelled)
        // The server answers after 10 s; the bound leaves room for a loaded machine.
        #expect(finishedAt - cancelledAt < .seconds(2))
        harness.engine.cancel(id: id)
        // The transfer thread takes commands in order: once a later exchange has finished, a
        // second finished event for the cancelled one would already have arrived.
        _ = await harness.run(TransferRequest(url: "\(server.baseURL)/get"))
        #expect(harness.collector.finishCount(for: id) == 1)
    }

    @Test("an announced body cancelled half way keeps the bytes that came, and the loop's progress saw them arrive")
    func cancelAnnouncedBody() async throws {
        let server = try await TestServer.shared()
        let harness = EngineHarness()
        let url = "\(server.baseURL)/drip?numbytes=50000&duration=3&tag=\(uniqueTag())"
        let id = harness.submit(TransferRequest(url: url))
        try await waitUntil(timeout: .seconds(10)) {
            harness.collector.events(for: id).contains { event in
                if case .progress(_, let progress) = event { return progress.bytesReceived > 0 && progress.totalBytesToReceive == 50000 }
                return false
            }
        }
        harness.engine.cancel(id: id)
        let result = await harness.collector.result(for: id)
        #expect(result.error?.kind == .cancelled)
        #expect(result.responseBody.count > 0 && result.responseBody.count < 50000)
        #expect(result.responseBody.allSatisfy { $0 == UInt8(ascii: "*") })
        let whole = await harness.run(TransferRequest(url: "\(server.baseURL)/drip?numbytes=50000&duration=0"))
        #expect(whole.error == nil)
        #expect(whole.responseBody == Data(repeating: UInt8(ascii: "*"), count: 50000))
    }

    /// An engine with one connection, busy with a `/delay/{seconds}` blocker, and a `/get`
    /// submitted after it that waits in libcurl's queue for that connection.
    private func waitingBehindBlocker(seconds: String) async throws -> (server: DemoServer, harness: EngineHarness, tag: String, blocker: UInt64, waiting: UInt64) {
        let server = try await TestServer.shared()
        let harness = EngineHarness(configuration: .init(maxConnectionsPerHost: 1, maxTotalConnections: 1))
        let tag = uniqueTag()
        let blocker = harness.submit(TransferRequest(url: "\(server.baseURL)/delay/\(seconds)?\(tag)-blocker"))
        let waiting = harness.submit(TransferRequest(url: "\(server.baseURL)/get?\(tag)-waiting"))
        return (server, harness, tag, blocker, waiting)
    }

    @Test("a request waiting for a connection is dropped and never reaches the server")
    func cancelWaiting() async throws {
        let (server, harness, tag, blocker, waiting) = try await waitingBehindBlocker(seconds: "2")
        try await waitUntil { server.receivedRequests.contains { $0.uri.contains("\(tag)-blocker") } }
        let cancelledAt = ContinuousClock.now
        harness.engine.cancel(id: waiting)
        let result = await harness.collector.result(for: waiting)
        #expect(result.error?.kind == .cancelled)
        // Before the blocker's answer frees the connection (2 s).
        #expect(try #require(harness.collector.finishedAt(waiting)) - cancelledAt < .seconds(1))
        #expect(await harness.collector.result(for: blocker).statusCode == 200)
        #expect(!server.receivedRequests.contains { $0.uri.contains("\(tag)-waiting") })
        // Its time went waiting for a connection: queued, not resolving (found by a review: it
        // showed as dns).
        let timings = result.timings
        #expect(timings.dns == nil && timings.connect == nil && timings.send == 0 && timings.total == 0, "\(timings)")
        #expect(timings.queued > 0, "\(timings)")
    }

    @Test("a request that waited for the connection another was using shows the wait as queued, not as sending or resolving")
    func waitForConnectionIsQueued() async throws {
        // The blocker holds the one connection 1.5 s; the waiting request's own exchange takes a
        // few milliseconds, and under a loaded machine still far less than the wait (a 0.4 s
        // blocker left too little room: a busy CI run took longer over a plain GET).
        let (_, harness, _, blocker, waiting) = try await waitingBehindBlocker(seconds: "1.5")
        #expect(await harness.collector.result(for: blocker).statusCode == 200)
        let result = await harness.collector.result(for: waiting)
        #expect(result.statusCode == 200)
        let timings = result.timings
        #expect(timings.queued >= 1_300_000, "\(timings) \(result.connection)")
        #expect(timings.send < 1_000_000 && (timings.dns ?? 0) < 1_000_000 && timings.total < 1_000_000, "\(timings)")
    }

    @Test("cancelling right after submitting ends every request cancelled, exactly once")
    func cancelBeforeStart() async throws {
        let server = try await TestServer.shared()
        let harness = EngineHarness()
        let tag = uniqueTag()
        // A slow endpoint: whether a cancel finds its exchange still queued or already in flight,
        // the exchange cannot have finished on its own first.
        let ids = (0..<50).map { _ in harness.submit(TransferRequest(url: "\(server.baseURL)/delay/5?\(tag)")) }
        ids.forEach { harness.engine.cancel(id: $0) }
        for id in ids {
            #expect(await harness.collector.result(for: id).error?.kind == .cancelled)
            #expect(harness.collector.finishCount(for: id) == 1)
        }
    }

    @Test("shutdown cancels everything in flight")
    func shutdownCancels() async throws {
        let server = try await TestServer.shared()
        let harness = EngineHarness()
        let ids = (0..<3).map { _ in harness.submit(TransferRequest(url: "\(server.baseURL)/delay/10")) }
        try await waitUntil { ids.allSatisfy { harness.collector.events(for: $0).count >= 1 } }
        harness.engine.shutdown()
        for id in ids { #expect(await harness.collector.result(for: id).error?.kind == .cancelled) }
        let late = harness.submit(TransferRequest(url: "\(server.baseURL)/get"))
        #expect(await harness.collector.result(for: late).error?.kind == .cancelled)
    }
}

@Suite("Cancels that overtake their exchange")
struct EarlyCancelTests {
    @Test("an exchange cancelled before it was submitted never starts, even when the cancel reached the transfer thread first")
    func cancelBeforeSubmit() async throws {
        let server = try await TestServer.shared()
        let harness = EngineHarness()
        let tag = uniqueTag()
        let id: UInt64 = 1_000_000
        harness.engine.cancel(id: id)
        // Once another exchange has finished, the transfer thread has taken the cancel.
        _ = await harness.run(TransferRequest(url: "\(server.baseURL)/get"))
        harness.engine.submit(TransferRequest(url: "\(server.baseURL)/get?\(tag)"), id: id)
        #expect(await harness.collector.result(for: id).error?.kind == .cancelled)
        #expect(!server.receivedRequests.contains { $0.uri.contains(tag) })
    }
}
