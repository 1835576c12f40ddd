import CurlewAgent
import CurlewLocking
import CurlewTestSupport
import Foundation
import Testing

@Suite("Duplicate requests")
struct DuplicateTests {
    @Test("reject: an identical request in flight fails the newcomer at once with the too-frequent tip")
    func reject() async throws {
        let agent = try await pipelineAgent {
            $0.duplicates = DuplicateSettings(policy: .reject)
            $0.requestTimeout = .seconds(60)
        }
        let tag = uniqueTag()
        // Fifteen seconds: with the whole suite loading both cores this test's task once resumed
        // seven seconds after the first request reached the server, after a five-second one ended.
        async let first = sendCapturing(agent, Request(.get, "/delay/15?tag=\(tag)"))
        let server = try await TestServer.shared()
        try await waitUntil(timeout: .seconds(20)) { server.receivedRequests.contains { $0.uri.contains(tag) } }
        let started = ContinuousClock.now
        let second = await sendCapturing(agent, Request(.get, "/delay/15?tag=\(tag)"))
        // Failed at once, not after the first one's fifteen seconds.
        #expect(ContinuousClock.now - started < .seconds(12))
        guard case .failure(let failure) = second.result else { Issue.record("expected a rejection"); return }
        #expect(failure.error.kind == .tooFrequent)
        #expect(failure.tip == agent.config.tips.tooFrequent)
        #expect(second.message?.pipeline?.duplicate?.hasPrefix("rejected") == true)
        #expect(try await first.result.get().statusCode == 200)
        #expect(try await serverCount(tag) == 1)
        // Once the first is done, the same request goes through.
        #expect(try await agent.send(Request(.get, "/delay/0?tag=\(tag)")).statusCode == 200)
    }

    @Test("coalesce: identical requests share one exchange; the server sees it once")
    func coalesce() async throws {
        let agent = try await pipelineAgent { $0.duplicates = DuplicateSettings(policy: .coalesce) }
        let tag = uniqueTag()
        let results = await withTaskGroup(of: (Result<Response, RequestFailure>, DebugMessage?).self) { group in
            for _ in 0..<4 {
                group.addTask { await sendCapturing(agent, Request(.get, "/delay/1?tag=\(tag)")) }
            }
            var all: [(Result<Response, RequestFailure>, DebugMessage?)] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(try await serverCount(tag) == 1)
        let bodies = try results.map { try $0.0.get().body }
        #expect(Set(bodies).count == 1)
        #expect(results.filter { $0.1?.pipeline?.duplicate?.hasPrefix("coalesced with #") == true }.count == 3)
    }

    @Test("cancelling a coalesced request, or the one it joined, leaves the other running")
    func cancelOne() async throws {
        let agent = try await pipelineAgent { $0.duplicates = DuplicateSettings(policy: .coalesce) }
        for cancelLeader in [false, true] {
            let tag = uniqueTag()
            let outcomes = Locked<[Int: Result<Response, RequestFailure>]>([:])
            var handles: [RequestHandle] = []
            for index in 0..<2 {
                // Three seconds: on a loaded host the second must still find the first in flight.
                handles.append(agent.start(Request(.get, "/delay/3?tag=\(tag)"), completion: { result in
                    outcomes.withLock { $0[index] = result }
                }))
                try await Task.sleep(for: .milliseconds(50))
            }
            agent.cancel(handles[cancelLeader ? 0 : 1])
            try await waitUntil(timeout: .seconds(20)) { outcomes.withLock { $0.count } == 2 }
            let cancelled = outcomes.withLock { $0[cancelLeader ? 0 : 1] }
            let kept = outcomes.withLock { $0[cancelLeader ? 1 : 0] }
            if case .failure(let failure)? = cancelled { #expect(failure.error.kind == .cancelled) } else { Issue.record("expected a cancellation") }
            #expect(try kept?.get().statusCode == 200, "leader cancelled: \(cancelLeader)")
            #expect(try await serverCount(tag) == 1)
        }
    }
}

@Suite("Duplicate requests: cancellation and verdicts")
struct DuplicateCancellationTests {
    @Test("a leader cancelled in its retry backoff goes on for the request coalesced onto it")
    func leaderCancelledDuringBackoff() async throws {
        let server = try await TestServer.shared()
        let agent = try await pipelineAgent {
            $0.duplicates = DuplicateSettings(policy: .coalesce)
            // Long enough that a loaded machine still joins and cancels inside the backoff.
            $0.retry = RetryPolicy(maxRetries: 2, backoff: .fixed(.seconds(2)))
        }
        let tag = uniqueTag()
        let outcomes = Locked<[Int: Result<Response, RequestFailure>]>([:])
        let leader = agent.start(Request(.get, "/flaky/1?key=\(tag)"), completion: { result in outcomes.withLock { $0[0] = result } })
        try await waitUntil(timeout: .seconds(20)) { server.receivedRequests.contains { $0.uri.contains(tag) } }
        agent.start(Request(.get, "/flaky/1?key=\(tag)"), completion: { result in outcomes.withLock { $0[1] = result } })
        // Well after the first attempt's 503 came back, well before the retry is due.
        try await Task.sleep(for: .milliseconds(700))
        agent.cancel(leader)
        try await waitUntil(timeout: .seconds(20)) { outcomes.withLock { $0.count } == 2 }
        if case .failure(let failure)? = outcomes.withLock({ $0[0] }) { #expect(failure.error.kind == .cancelled) } else { Issue.record("leader not cancelled") }
        #expect(try outcomes.withLock { $0[1] }?.get().statusCode == 200)
        #expect(server.receivedRequests.filter { $0.uri.contains(tag) }.count == 2)
    }

    @Test("a leader cancelled before anyone joined frees its fingerprint at once")
    func leaderCancelledAlone() async throws {
        let agent = try await pipelineAgent { $0.duplicates = DuplicateSettings(policy: .coalesce) }
        let tag = uniqueTag()
        let first = agent.start(Request(.get, "/delay/1?tag=\(tag)"), completion: { _ in })
        agent.cancel(first)
        let second = await sendCapturing(agent, Request(.get, "/delay/0.1?tag=\(tag)"))
        #expect(try second.result.get().statusCode == 200)
        #expect(second.message?.pipeline?.duplicate == nil)
    }

    @Test("each coalesced request judges the shared answer by its own acceptable statuses")
    func ownVerdict() async throws {
        let agent = try await pipelineAgent { $0.duplicates = DuplicateSettings(policy: .coalesce) }
        let tag = uniqueTag()
        var lenient = Request(.get, "/delay/1?status=404&tag=\(tag)")
        lenient.acceptableStatusCodes = 200..<500
        async let leader = sendCapturing(agent, lenient)
        try await Task.sleep(for: .milliseconds(100))
        let strict = await sendCapturing(agent, Request(.get, "/delay/1?status=404&tag=\(tag)"))
        #expect(try await leader.result.get().statusCode == 404)
        guard case .failure(let failure) = strict.result else { Issue.record("expected the follower to fail"); return }
        #expect(failure.error.kind == .unacceptableStatus)
        #expect(strict.message?.pipeline?.duplicate?.hasPrefix("coalesced") == true)
        #expect(try await serverCount(tag) == 1)
    }
}
