import CurlewAgent
import CurlewLocking
import CurlewTestSupport
@testable import CurlewWorkspace
import Foundation
import Testing

/// What a run keeps of each request from its debug messages, asked for by the request's first id.
@Suite("A run's records of a retried request")
struct RunRecordersTests {
    /// Signs each attempt with a token of its own, as a signer with a clock or a nonce does.
    private final class TokenPerAttempt: RequestSigner {
        let tag: String
        let calls = Locked(0)

        init(tag: String) {
            self.tag = tag
        }

        func sign(_ input: SigningInput) throws -> SigningOutput {
            let call = calls.withLock { calls in
                calls += 1
                return calls
            }
            return SigningOutput(headers: [HeaderField(name: "Authorization", value: "Bearer \(tag)-attempt-\(call)")])
        }
    }

    @Test("what a retried request's later attempt sent is hidden under the request's first id, and its times are the last attempt's (found by a review: credentials were kept under the last attempt's id, so the report, asking with the request's, hid nothing a retried request sent)")
    func laterAttemptsAreFoundByTheFirstID() async throws {
        let tag = uniqueTag("token")
        var config = NetworkConfig(baseURL: try await TestServer.shared().baseURL)
        config.retry = RetryPolicy(maxRetries: 2, backoff: .fixed(.milliseconds(20)))
        config.signers = ["per-attempt": TokenPerAttempt(tag: tag)]
        let agent = Agent(config: config)
        let credentials = SentCredentials(policy: RedactionPolicy())
        let times = ExchangeTimes()
        let messages = Locked<[DebugMessage]>([])
        var request = Request(.get, "/flaky/1?key=\(tag)")
        request.signer = "per-attempt"
        let handle = agent.start(request, callbacks: RequestCallbacks(debug: { message in
            credentials.record(message)
            times.record(message)
            messages.withLock { $0.append(message) }
        }))
        while !handle.state.isTerminal { try await Task.sleep(for: .milliseconds(5)) }
        try await waitUntil { !messages.withLock { $0.isEmpty } }

        // The debug callback hears of the request once, with its last attempt's exchange.
        let last = try #require(messages.withLock { $0.last })
        #expect(messages.withLock { $0.count } == 1)
        #expect(last.requestID != handle.id, "the retry is an exchange of its own")
        #expect(last.answeredRequestIDs == [last.requestID, handle.id], "\(last.answeredRequestIDs)")
        let hidden = credentials.values(sentBy: handle.id).anywhere
        #expect(hidden.contains("Bearer \(tag)-attempt-2"), "\(hidden)")
        #expect(credentials.values(sentBy: last.requestID).anywhere == hidden)
        let timings = try #require(last.timings)
        #expect(times.of(handle.id)?.shown == .microseconds(timings.elapsed))
    }

    @Test("the network's answer after a cached copy (cacheThenNetwork) is found by the request's id: its times are the run's, not the clock around it (found by a review: the answer is an exchange of its own, and no attempt list names the first)")
    func networkAnswerAfterCachedCopy() async throws {
        var config = NetworkConfig(baseURL: try await TestServer.shared().baseURL)
        config.cache = CacheSettings(storage: .memory, policy: .cacheThenNetwork)
        let agent = Agent(config: config)
        let path = "/cache/60?tag=\(uniqueTag())"
        let stored = agent.start(Request(.get, path), callbacks: RequestCallbacks())
        while !stored.state.isTerminal { try await Task.sleep(for: .milliseconds(5)) }

        let times = ExchangeTimes()
        let messages = Locked<[DebugMessage]>([])
        let handle = agent.start(Request(.get, path), callbacks: RequestCallbacks(debug: { message in
            times.record(message)
            messages.withLock { $0.append(message) }
        }))
        while !handle.state.isTerminal { try await Task.sleep(for: .milliseconds(5)) }
        try await waitUntil { messages.withLock { $0.contains { $0.timings != nil } } }
        let network = try #require(messages.withLock { $0.first { $0.timings != nil } })
        #expect(network.requestID != handle.id && network.firstExchangeID == handle.id)
        #expect(network.answeredRequestIDs.contains(handle.id), "\(network.answeredRequestIDs)")
        let timings = try #require(network.timings)
        #expect(times.of(handle.id)?.shown == .microseconds(timings.elapsed))
    }
}
