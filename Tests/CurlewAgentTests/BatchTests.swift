import CurlewAgent
import CurlewTestSupport
import Foundation
import Testing

@Suite("Batches and ordered windows", .serialized)
struct BatchTests {
    @Test("ten one-second requests in an unlimited batch are all in flight at once")
    func unlimitedBatch() async throws {
        let (agent, recorder) = try await groupAgent()
        let group = await runToEnd(.batch((0..<10).map { _ in Request(.get, "/delay/1") }), on: agent)
        #expect(group.state == .succeeded)
        #expect(group.count == 10)
        #expect(maxInFlight(recorder.memberUpdates(of: group.id)) == 10)
    }

    @Test("with two transfer threads and callbacks on the queue, a batch's members use both threads' connections: 8 one-second requests over 4 connections (found by a new user's trial: pinned to the group's thread they had 2)")
    func batchOverTwoTransferThreads() async throws {
        var config = NetworkConfig(baseURL: try await TestServer.shared().baseURL, maxConnectionsPerHost: 4)
        config.transferThreads = 2
        let agent = Agent(config: config)
        let recorder = EventRecorder()
        agent.addObserver(recorder)
        let group = await runToEnd(.batch((0..<8).map { _ in Request(.get, "/delay/1") }), on: agent)
        #expect(group.state == .succeeded)
        #expect(maxInFlight(recorder.memberUpdates(of: group.id)) == 8)
        let ports = Set(recorder.messages.compactMap { $0.connection?.localPort })
        #expect(ports.count == 4, "connections used: \(ports.count)")
    }

    @Test("with maxConcurrency 2 the same batch never has more than 2 in flight, so it takes at least five seconds")
    func limitedBatch() async throws {
        let (agent, recorder) = try await groupAgent()
        let started = ContinuousClock.now
        let group = await runToEnd(.batch((0..<10).map { _ in Request(.get, "/delay/1") }, maxConcurrency: 2), on: agent)
        let elapsed = ContinuousClock.now - started
        #expect(elapsed >= .milliseconds(4900), "took \(elapsed)")
        #expect(group.state == .succeeded)
        #expect(maxInFlight(recorder.memberUpdates(of: group.id)) == 2)
    }

    @Test("an ordered window of 2 keeps at most 2 in flight at every moment and starts members in order")
    func orderedWindow() async throws {
        let (agent, recorder) = try await groupAgent()
        let requests = [0.3, 0.1, 0.4, 0.1, 0.2, 0.1].map { Request(.get, "/delay/\($0)") } + [Request(.get, "/status/500")]
        let group = await runToEnd(.orderedWindow(requests, maxInFlight: 2), on: agent)
        let updates = recorder.memberUpdates(of: group.id)
        #expect(maxInFlight(updates) == 2)
        #expect(startOrder(updates) == Array(0..<7))
        #expect(group.state == .failed, "a failure does not stop the window but it is reported")
        #expect(group.failedMembers.map(\.index) == [6])
        #expect(group.members.prefix(6).allSatisfy { $0.state == .succeeded })
    }

    @Test("policy .all: the first failure cancels the rest and fails the batch", arguments: ["/delay/0.3?status=500", "/fault/close"])
    func allPolicy(_ failing: String) async throws {
        let (agent, recorder) = try await groupAgent()
        let started = ContinuousClock.now
        let group = await runToEnd(.batch([Request(.get, "/get"), Request(.get, failing), Request(.get, "/delay/5")], policy: .all), on: agent)
        #expect(ContinuousClock.now - started < .seconds(4), "the slow member (5 s) was cancelled, not awaited")
        #expect(group.state == .failed)
        if failing.hasPrefix("/delay") {
            #expect(group[0].state == .succeeded, "finished before the failure")
        } else {
            #expect(group[0].state != .failed, "succeeded, or cancelled if the fault came first")
        }
        #expect(group[1].state == .failed)
        #expect(group[2].state == .cancelled)
        // Stopped by the group, and said so, not as if the caller had cancelled it.
        #expect(group[2].error?.message.hasPrefix("stopped by the group: member 2 (") == true, "\(String(describing: group[2].error))")
        // Its own debug message (what the session log and Live show) says so too.
        let stoppedRecord = recorder.messages.first { $0.requestID == group[2].requestID }
        #expect(stoppedRecord?.error?.message == group[2].error?.message, "\(String(describing: stoppedRecord?.error))")
        #expect(group.failedMembers.map(\.index) == [1])
        let allGood = await runToEnd(.batch([Request(.get, "/get"), Request(.get, "/json")]), on: agent)
        #expect(allGood.state == .succeeded)
    }

    @Test("a nested group the outer group stops because a member failed passes the reason to its running members: their errors and debug messages say which member of the outer group failed, not 'stopped by the caller' (found by a new user's trial)")
    func nestedGroupStoppedSaysWhy() async throws {
        let (agent, recorder) = try await groupAgent()
        let inner = RequestGroup.batch([Request(.get, "/delay/5", name: "slow"), Request(.get, "/delay/4", name: "slower")], policy: .all, name: "inner")
        let outer = RequestGroup.batch([.group(inner), .request(Request(.get, "/delay/0.3?status=500", name: "fails"))], policy: .all, name: "outer")
        let started = ContinuousClock.now
        let group = await runToEnd(outer, on: agent)
        #expect(ContinuousClock.now - started < .seconds(4), "the nested members were cancelled, not awaited")
        #expect(group.state == .failed)
        let child = try #require(group[0].child)
        #expect(child.state == .cancelled)
        for member in child.members {
            #expect(member.state == .cancelled)
            #expect(member.error?.message.hasPrefix("stopped by the group: member 2 (") == true, "\(String(describing: member.error))")
            let record = recorder.messages.first { $0.requestID == member.requestID }
            #expect(record?.error?.message == member.error?.message, "\(String(describing: record?.error))")
        }
        #expect(group[0].error?.message.hasPrefix("stopped by the group: member 2 (") == true, "\(String(describing: group[0].error))")
    }

    @Test("policy .required: optional members may fail; a failing required member cancels the rest at once")
    func requiredPolicy() async throws {
        let (agent, _) = try await groupAgent()
        let optionalFails = await runToEnd(.batch([Request(.get, "/get"), Request(.get, "/status/500"), Request(.get, "/fault/close")],
                                                  policy: .required([0])), on: agent)
        #expect(optionalFails.state == .succeeded)
        #expect(optionalFails.failedMembers.map(\.index) == [1, 2])

        let started = ContinuousClock.now
        let requiredFails = await runToEnd(.batch([Request(.get, "/delay/5"), Request(.get, "/status/500"), Request(.get, "/get")],
                                                  policy: .required([1])), on: agent)
        #expect(ContinuousClock.now - started < .seconds(4), "the slow member (5 s) was cancelled, not awaited")
        #expect(requiredFails.state == .failed)
        #expect(requiredFails[0].state == .cancelled)
        #expect(requiredFails[1].state == .failed)
    }

    @Test("policy .any: waits for all, succeeds if one succeeded, fails only if all failed")
    func anyPolicy() async throws {
        let (agent, _) = try await groupAgent()
        let oneGood = await runToEnd(.batch([Request(.get, "/status/500"), Request(.get, "/fault/close"), Request(.get, "/delay/0.3")], policy: .any), on: agent)
        #expect(oneGood.state == .succeeded)
        #expect(oneGood.members.map(\.state) == [.failed, .failed, .succeeded], "nothing was cancelled")
        let allBad = await runToEnd(.batch([Request(.get, "/status/500"), Request(.get, "/fault/close")], policy: .any), on: agent)
        #expect(allBad.state == .failed)
        #expect(allBad.failedMembers.count == 2)
    }

    @Test("cancelling one member leaves its siblings running under .any; an empty batch succeeds at once")
    func cancelOneMember() async throws {
        let (agent, recorder) = try await groupAgent()
        let handle = agent.start(.batch([Request(.get, "/delay/5"), Request(.get, "/delay/0.3")], policy: .any))
        try await waitUntil { recorder.hasSent(handle[0]) }
        agent.cancelMember(at: 0, of: handle)
        while !handle.state.isTerminal { try await Task.sleep(for: .milliseconds(10)) }
        #expect(handle[0].state == .cancelled)
        #expect(handle[1].state == .succeeded)
        #expect(handle.state == .succeeded)
        #expect(await runToEnd(.batch([Request]()), on: agent).state == .succeeded)
    }

    @Test("cancelling a running group leaves nothing in flight and nothing pending")
    func cancelGroup() async throws {
        let (agent, recorder) = try await groupAgent()
        let handle = agent.start(.batch((0..<6).map { _ in Request(.get, "/delay/10") }, maxConcurrency: 3))
        try await waitUntil { handle.members.filter(recorder.hasSent).count == 3 }
        let cancelledAt = ContinuousClock.now
        agent.cancel(handle)
        while !handle.state.isTerminal { try await Task.sleep(for: .milliseconds(5)) }
        // The server answers after 10 s; the bound leaves room for a loaded machine.
        #expect(ContinuousClock.now - cancelledAt < .seconds(2))
        #expect(handle.state == .cancelled)
        #expect(handle.members.allSatisfy { $0.state == .cancelled })
        await agent.waitForObservers()
        let requestIDs = handle.members.compactMap(\.requestID)
        #expect(requestIDs.count == 3, "members beyond the limit never started")
        for id in requestIDs {
            #expect(recorder.events(for: id).last == .finished(id, .cancelled))
        }
        let terminalUpdates = recorder.memberUpdates(of: handle.id).filter { $0.state.isTerminal }
        #expect(Set(terminalUpdates.map(\.index)) == Set(0..<6))
        #expect(terminalUpdates.count == 6, "exactly one terminal update per member")
    }

    @Test("closures, the delegate and member callbacks all hear the batch")
    func callbacks() async throws {
        final class Delegate: RequestGroupDelegate, @unchecked Sendable {
            var finished: [Int] = []
            var all = false
            func requestGroup(_ group: GroupHandle, memberDidFinish member: MemberSnapshot) { finished.append(member.index) }
            func requestGroupAllDidFinished(_ group: GroupHandle) { all = true }
        }
        let (agent, _) = try await groupAgent()
        let delegate = Delegate()
        let verdict = await withCheckedContinuation { continuation in
            agent.start(.batch([Request(.get, "/get"), Request(.get, "/status/404")], policy: .any), callbacks: GroupCallbacks(
                success: { continuation.resume(returning: $0.state) },
                failure: { continuation.resume(returning: $0.state) },
                delegate: delegate
            ))
        }
        #expect(verdict == .succeeded)
        agent.config.callbackQueue.sync {}
        #expect(delegate.finished.sorted() == [0, 1])
        #expect(delegate.all)
    }
}
