@testable import CurlewAgent
import CurlewTestSupport
import Foundation
import CurlewLocking
import Testing

/// `callbackDelivery = .transferThread`: callbacks on the thread that drives every transfer, with
/// the agent's guarantees unchanged (exactly one outcome per request, groups, shutdown).
@Suite("Callbacks on the transfer thread", .serialized)
struct TransferThreadDeliveryTests {
    private func agent(transferThreads: Int = 1) async throws -> Agent {
        var config = NetworkConfig(baseURL: try await TestServer.shared().baseURL, maxConnectionsPerHost: 10)
        config.callbackDelivery = .transferThread
        config.transferThreads = transferThreads
        return Agent(config: config)
    }

    /// The calling thread's name.
    private static func threadName() -> String {
        Thread.current.name ?? ""
    }

    @Test("callbacks run on the transfer thread, and 30 requests each started from the last one's callback all succeed")
    func chainedFromCallbacks() async throws {
        let agent = try await agent()
        let seen = Locked<(threads: Set<String>, succeeded: Int, failed: Int)>(([], 0, 0))
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            @Sendable func step(_ remaining: Int) {
                agent.start(Request(.get, "/get"), callbacks: RequestCallbacks(
                    success: { _ in
                        seen.withLock { $0.threads.insert(Self.threadName()); $0.succeeded += 1 }
                        if remaining > 1 { step(remaining - 1) } else { done.resume() }
                    },
                    failure: { _ in
                        seen.withLock { $0.failed += 1 }
                        done.resume()
                    }
                ))
            }
            step(30)
        }
        let result = seen.withLock { $0 }
        #expect(result.succeeded == 30)
        #expect(result.failed == 0)
        #expect(result.threads == ["curlew.transfer"])
    }

    @Test("two transfer threads: 400 requests kept 20 in flight from their delegates all succeed, each request's calls in order on one thread, both threads used, observers hear each in order")
    func twoTransferThreads() async throws {
        var config = NetworkConfig(baseURL: try await TestServer.shared().baseURL, maxConnectionsPerHost: 20)
        config.callbackDelivery = .transferThread
        config.transferThreads = 2
        let agent = Agent(config: config)
        let recorder = EventRecorder()
        agent.addObserver(recorder)
        /// Every delegate call, by request, and the threads they ran on; starts the next request
        /// from each one that ends.
        final class Delegate: RequestDelegate {
            struct State {
                var calls: [UInt64: [String]] = [:]
                var threads: [UInt64: Set<UInt>] = [:]
                var started = 0
                var ended = 0
            }

            let state = Locked(State())
            let total: Int
            let agent: Agent
            let done: @Sendable () -> Void

            init(total: Int, agent: Agent, done: @escaping @Sendable () -> Void) {
                self.total = total
                self.agent = agent
                self.done = done
            }

            func next() {
                let more = state.withLock { state -> Bool in
                    guard state.started < total else { return false }
                    state.started += 1
                    return true
                }
                if more { agent.start(Request(.get, "/bytes/2000"), callbacks: RequestCallbacks(delegate: self)) }
            }

            private func note(_ handle: RequestHandle, _ call: String, ends: Bool = false) {
                let finished = state.withLock { state -> Bool in
                    state.calls[handle.id, default: []].append(call)
                    state.threads[handle.id, default: []].insert(UInt(pthread_self()))
                    if ends { state.ended += 1 }
                    return ends && state.ended == total
                }
                if finished { done() } else if ends { next() }
            }

            func requestWillBeSent(_ handle: RequestHandle) { note(handle, "willBeSent") }
            func requestDidSend(_ handle: RequestHandle) { note(handle, "didSend") }
            func request(_ handle: RequestHandle, didProgress progress: RequestProgress) { note(handle, "progress") }
            func requestDidSucceed(_ handle: RequestHandle, response: Response) { note(handle, "succeeded", ends: true) }
            func requestDidFail(_ handle: RequestHandle, failure: RequestFailure) { note(handle, "failed", ends: true) }
        }
        let total = 400
        let finished = AsyncStream<Void>.makeStream()
        let delegate = Delegate(total: total, agent: agent) { finished.continuation.yield() }
        for _ in 0..<20 { delegate.next() }
        for await _ in finished.stream { break }
        await agent.waitForObservers()
        let state = delegate.state.withLock { $0 }
        #expect(state.calls.count == total)
        #expect(state.threads.values.allSatisfy { $0.count == 1 }, "each request's delegate calls on one thread")
        #expect(Set(state.threads.values.flatMap { $0 }).count == 2, "both transfer threads ran requests")
        let misorderedCalls = state.calls.values.filter { calls in
            calls.first != "willBeSent" || calls.dropFirst().first != "didSend" || calls.last != "succeeded"
                || calls.dropFirst(2).dropLast().contains { $0 != "progress" }
        }
        #expect(misorderedCalls.isEmpty, "\(misorderedCalls.count) requests' delegate calls out of order, e.g. \(misorderedCalls.first ?? [])")
        let ids = Set(recorder.events.compactMap { event -> UInt64? in if case .willSend(let id) = event { id } else { nil } })
        #expect(ids.count == total)
        let misordered = ids.filter { id in
            let events = recorder.events(for: id)
            return events.first != .willSend(id) || events.dropFirst().first != .didSend(id) || events.last != .finished(id, .succeeded)
                || events.filter { if case .finished = $0 { true } else { false } }.count != 1
        }
        #expect(misordered.isEmpty, "\(misordered.count) requests heard out of order")
    }

    @Test("a finished request's answer takes 56 bytes of its batch, so up to seventeen answers of a turn stay under the 1 KiB from which the allocator sorts its free blocks first (a failure's error and tip held by reference)")
    func answerJobSize() {
        #expect(MemoryLayout<CallbackJob>.stride <= 56)
        #expect(17 * MemoryLayout<CallbackJob>.stride + 32 < 1024, "seventeen answers and the array's header")
    }

    @Test("a failure answered on the transfer thread carries its error and the config's tip")
    func failureTipOnTransferThread() async throws {
        let port = try Listeners.closedPort()
        var config = NetworkConfig(tips: ErrorTips(generalError: "oops", notReachable: "offline", appendsErrorCode: true))
        config.callbackDelivery = .transferThread
        let agent = Agent(config: config)
        let failure = await #expect(throws: RequestFailure.self) { try await agent.send(.url("http://127.0.0.1:\(port)/")) }
        #expect(failure?.error.kind == .couldNotConnect)
        #expect(failure?.tip == "offline (code 7)")
    }

    @Test("debug messages name the transfer thread as where callbacks ran")
    func debugMessageLabel() async throws {
        let agent = try await agent()
        let recorder = EventRecorder()
        agent.addObserver(recorder)
        _ = try await agent.send(Request(.get, "/get"))
        await agent.waitForObservers()
        #expect(recorder.messages.last?.callbackQueue == "curlew.transfer")
    }

    @Test("a batch and a chain run to the end, their member and group callbacks on the transfer thread", arguments: [1, 2])
    func groups(transferThreads: Int) async throws {
        let agent = try await agent(transferThreads: transferThreads)
        let threads = Locked<Set<String>>([])
        let members = Locked(0)
        // How many member callbacks had run when each group's success ran: all of its own.
        let membersAtSuccess = Locked<[Int]>([])
        for group in [RequestGroup.batch((0..<6).map { _ in Request(.get, "/get") }),
                      .chain([ChainStep(Request(.get, "/get")), ChainStep(Request(.get, "/json")), ChainStep(Request(.get, "/get"))])] {
            let handle = await withCheckedContinuation { (done: CheckedContinuation<GroupHandle, Never>) in
                agent.start(group, callbacks: GroupCallbacks(
                    success: { handle in
                        threads.withLock { _ = $0.insert(Self.threadName()) }
                        membersAtSuccess.withLock { $0.append(members.withLock { $0 }) }
                        done.resume(returning: handle)
                    },
                    failure: { handle in done.resume(returning: handle) },
                    memberFinished: { _, _ in
                        threads.withLock { _ = $0.insert(Self.threadName()) }
                        members.withLock { $0 += 1 }
                    }
                ))
            }
            #expect(handle.state == GroupState.succeeded)
        }
        #expect(members.withLock { $0 } == 9)
        #expect(membersAtSuccess.withLock { $0 } == [6, 9])
        #expect(threads.withLock { $0 } == ["curlew.transfer"])
    }

    @Test("cancelling from another thread while in flight ends the request once, as cancelled")
    func cancelInFlight() async throws {
        let agent = try await agent()
        let outcomes = Locked<[RequestError.Kind]>([])
        let handle = agent.start(Request(.get, "/delay/5"), callbacks: RequestCallbacks(
            success: { _ in outcomes.withLock { $0.append(.other) } },
            failure: { outcomes.withLock { [kind = $0.error.kind] in $0.append(kind) } }
        ))
        try await Task.sleep(for: .milliseconds(200))
        agent.cancel(handle)
        try await waitUntil { outcomes.withLock { !$0.isEmpty } }
        try await Task.sleep(for: .milliseconds(200))
        #expect(outcomes.withLock { $0 } == [.cancelled])
    }

    @Test("the last reference to the agent let go inside a callback: no hang, and its other request still ends once", arguments: [1, 2])
    func agentReleasedInCallback(transferThreads: Int) async throws {
        final class Holder: @unchecked Sendable {
            var agent: Agent?
        }
        let holder = Holder()
        holder.agent = try await agent(transferThreads: transferThreads)
        let slowOutcomes = Locked<[RequestError.Kind?]>([])
        holder.agent?.start(Request(.get, "/delay/5"), callbacks: RequestCallbacks(
            success: { _ in slowOutcomes.withLock { $0.append(nil) } },
            failure: { failure in slowOutcomes.withLock { $0.append(failure.error.kind) } }
        ))
        let released = Locked(false)
        holder.agent?.start(Request(.get, "/get"), callbacks: RequestCallbacks(
            success: { _ in
                holder.agent = nil
                released.withLock { $0 = true }
            },
            failure: { _ in released.withLock { $0 = true } }
        ))
        try await waitUntil { released.withLock { $0 } }
        try await waitUntil { slowOutcomes.withLock { !$0.isEmpty } }
        try await Task.sleep(for: .milliseconds(200))
        #expect(slowOutcomes.withLock { $0 } == [.cancelled])
        // A fresh agent works as ever.
        let response = try await agent().send(Request(.get, "/get"))
        #expect(response.statusCode == 200)
    }

    @Test("a request started after shutdown fails once, as cancelled, with nothing left to run it on the transfer thread", arguments: [1, 2])
    func afterShutdown(transferThreads: Int) async throws {
        let agent = try await agent(transferThreads: transferThreads)
        agent.shutdown()
        await #expect(throws: RequestFailure.self) { try await agent.send(Request(.get, "/get")) }
        let outcomes = Locked<[RequestError.Kind]>([])
        agent.start(Request(.get, "/get"), callbacks: RequestCallbacks(
            success: { _ in outcomes.withLock { $0.append(.other) } },
            failure: { failure in outcomes.withLock { $0.append(failure.error.kind) } }
        ))
        try await waitUntil { outcomes.withLock { !$0.isEmpty } }
        try await Task.sleep(for: .milliseconds(100))
        #expect(outcomes.withLock { $0 } == [.cancelled])
    }

    @Test("shutdown called inside a callback returns, and the request still in flight ends once, as cancelled", arguments: [1, 2])
    func shutdownInCallback(transferThreads: Int) async throws {
        let agent = try await agent(transferThreads: transferThreads)
        let slowOutcomes = Locked<[RequestError.Kind?]>([])
        agent.start(Request(.get, "/delay/5"), callbacks: RequestCallbacks(
            success: { _ in slowOutcomes.withLock { $0.append(nil) } },
            failure: { failure in slowOutcomes.withLock { $0.append(failure.error.kind) } }
        ))
        let shutDown = Locked(false)
        agent.start(Request(.get, "/get"), callbacks: RequestCallbacks(
            success: { _ in
                agent.shutdown()
                shutDown.withLock { $0 = true }
            }
        ))
        try await waitUntil { shutDown.withLock { $0 } }
        try await waitUntil { slowOutcomes.withLock { !$0.isEmpty } }
        try await Task.sleep(for: .milliseconds(100))
        #expect(slowOutcomes.withLock { $0 } == [.cancelled])
    }

    @Test("requests cancelled from other threads right after starting each end exactly once", arguments: [1, 2])
    func cancelRightAfterStart(transferThreads: Int) async throws {
        /// Callbacks heard, by request id.
        final class Tally: Sendable {
            let counts = Locked<[UInt64: Int]>([:])
            var total: Int { counts.withLock { $0.values.reduce(0, +) } }
        }
        let agent = try await agent(transferThreads: transferThreads)
        let tally = Tally()
        let ids = await withTaskGroup(of: [UInt64].self) { group in
            for _ in 0..<4 {
                group.addTask {
                    (0..<100).map { _ in
                        // Keyed by the id the answer carries: a callback can run before `start` returns.
                        let record: @Sendable (UInt64) -> Void = { id in tally.counts.withLock { $0[id, default: 0] += 1 } }
                        let handle = agent.start(Request(.get, "/get"), callbacks: RequestCallbacks(
                            success: { record($0.requestID) }, failure: { record($0.requestID) }
                        ))
                        agent.cancel(handle)
                        return handle.id
                    }
                }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
        try await waitUntil(timeout: .seconds(10)) { tally.total >= ids.count }
        try await Task.sleep(for: .milliseconds(200))
        let counts = tally.counts.withLock { $0 }
        #expect(tally.total == ids.count)
        #expect(Set(ids).allSatisfy { counts[$0] == 1 }, "every request hears exactly once")
    }

    @Test("reachability listeners run on the transfer thread too")
    func reachabilityListener() async throws {
        let agent = try await agent()
        let threads = Locked<[String]>([])
        let listener = agent.reachability.listen(every: .milliseconds(100)) { _ in threads.withLock { $0.append(Self.threadName()) } }
        try await waitUntil { !threads.withLock { $0 }.isEmpty }
        agent.reachability.stopListening(listener)
        #expect(Set(threads.withLock { $0 }) == ["curlew.transfer"])
    }
}
