@testable import CurlewAgent
import CurlewTestSupport
import Foundation
import Testing

/// The group state machine on its own: inputs in, effects out, no network.
@Suite("Group state machine")
struct GroupMachineTests {
    private func names(_ effects: [GroupMachine.Effect]) -> [String] {
        effects.map { effect in
            switch effect {
            case .launched: "launched"
            case .start(let index, _, _, _): "start \(index)"
            case .cancel(let index, _): "cancel \(index)"
            case .skip(let index): "skip \(index)"
            case .memberEnded(let index, let state, _, _, _): "ended \(index) \(state.rawValue)"
            case .runStepCallback(let index, _): "callback \(index)"
            case .stepsChanged(_, let added, _): "steps +\(added.count)"
            case .finish(let verdict): "finish \(verdict.rawValue)"
            }
        }
    }

    private let failure = RequestError(.unacceptableStatus, "500", code: 500)
    private let cancelled = RequestError(.cancelled, "cancelled")

    @Test("a batch under .all: the first failure cancels the running members, and the batch fails once they end")
    func batchAll() {
        var machine = GroupMachine(plan: RequestGroup.batch((0..<4).map { _ in Request(.get, "/") }, policy: .all, maxConcurrency: 2).plan)
        #expect(names(machine.apply(.launch)) == ["launched", "start 0", "start 1"])
        #expect(names(machine.apply(.memberEnded(index: 0, succeeded: false, response: nil, error: failure))) == ["ended 0 failed", "cancel 1"])
        #expect(names(machine.apply(.memberEnded(index: 1, succeeded: false, response: nil, error: cancelled)))
                == ["ended 1 cancelled", "skip 2", "skip 3", "finish failed"])
        #expect(machine.apply(.cancel).isEmpty, "a finished group ignores further input")
    }

    @Test("a batch under .any waits for everyone and succeeds if one did; a window keeps its limit")
    func batchAnyAndWindow() {
        var any = GroupMachine(plan: RequestGroup.batch([Request(.get, "/"), Request(.get, "/")], policy: .any).plan)
        #expect(names(any.apply(.launch)) == ["launched", "start 0", "start 1"])
        #expect(names(any.apply(.memberEnded(index: 1, succeeded: false, response: nil, error: failure))) == ["ended 1 failed"])
        #expect(names(any.apply(.memberEnded(index: 0, succeeded: true, response: nil, error: nil))) == ["ended 0 succeeded", "finish succeeded"])

        var window = GroupMachine(plan: RequestGroup.orderedWindow((0..<3).map { _ in Request(.get, "/") }, maxInFlight: 1).plan)
        #expect(names(window.apply(.launch)) == ["launched", "start 0"])
        #expect(names(window.apply(.memberEnded(index: 0, succeeded: false, response: nil, error: failure))) == ["ended 0 failed", "start 1"])
    }

    @Test("cancelling an unstarted required member fails a .required batch, and the member it stops says why; cancelling before launch skips everyone")
    func cancelMemberAndGroup() {
        var required = GroupMachine(plan: RequestGroup.batch((0..<3).map { _ in Request(.get, "/") }, policy: .required([2]), maxConcurrency: 1).plan)
        _ = required.apply(.launch)
        #expect(names(required.apply(.cancelMember(index: 2))) == ["skip 2", "cancel 0"])
        let stopped = required.apply(.memberEnded(index: 0, succeeded: false, response: nil, error: cancelled))
        #expect(names(stopped) == ["ended 0 cancelled", "skip 1", "finish failed"])
        // The member the group stopped says why, naming the member whose end stopped it.
        if case .memberEnded(_, _, _, let error, _)? = stopped.first {
            #expect(error?.message.hasPrefix("stopped by the group: member 3 (") == true && error?.message.hasSuffix(") was cancelled") == true,
                    "\(String(describing: error))")
        }

        // One the caller was already cancelling keeps the caller's reason; the others get the group's.
        var all = GroupMachine(plan: RequestGroup.batch((0..<3).map { _ in Request(.get, "/") }, policy: .all).plan)
        _ = all.apply(.launch)
        #expect(names(all.apply(.cancelMember(index: 0))) == ["cancel 0"])
        let stopping = all.apply(.memberEnded(index: 1, succeeded: false, response: nil, error: failure))
        #expect(names(stopping) == ["ended 1 failed", "cancel 0", "cancel 2"])
        // The reason goes with the cancel, for the member's own error and record.
        let reasons = stopping.compactMap { effect -> String? in
            guard case .cancel(let index, let reason) = effect else { return nil }
            return "\(index): \(reason.map { $0.hasPrefix("stopped by the group: member 2 (") && $0.hasSuffix(") failed") ? "the group's" : $0 } ?? "the caller's")"
        }
        #expect(reasons == ["0: the caller's", "2: the group's"], "\(reasons)")
        let byCaller = all.apply(.memberEnded(index: 0, succeeded: false, response: nil, error: cancelled))
        let byGroup = all.apply(.memberEnded(index: 2, succeeded: false, response: nil, error: cancelled))
        if case .memberEnded(_, _, _, let callerError, _)? = byCaller.first, case .memberEnded(_, _, _, let groupError, _)? = byGroup.first {
            #expect(callerError == cancelled)
            #expect(groupError?.message.hasPrefix("stopped by the group: member 2 (") == true && groupError?.message.hasSuffix(") failed") == true,
                    "\(String(describing: groupError))")
        } else {
            Issue.record("no member ended: \(names(byCaller)) \(names(byGroup))")
        }

        // Stopped by the group holding it: its running members say the reason it was given.
        var nested = GroupMachine(plan: RequestGroup.batch((0..<2).map { _ in Request(.get, "/") }).plan)
        _ = nested.apply(.launch)
        let stops = nested.apply(.stop(because: "stopped by the group: member 2 (fails) failed")).compactMap { effect -> String? in
            guard case .cancel(_, let reason) = effect else { return nil }
            return reason
        }
        #expect(stops == ["stopped by the group: member 2 (fails) failed", "stopped by the group: member 2 (fails) failed"])

        var waiting = GroupMachine(plan: RequestGroup.batch([Request(.get, "/")]).plan)
        #expect(names(waiting.apply(.cancel)) == ["skip 0", "finish cancelled"])
        #expect(waiting.apply(.launch).isEmpty, "released from the gate after it was cancelled, it starts nothing")
    }

    @Test("a chain step's callback runs before anything else starts; its decisions add steps and set variables")
    func chainStepCallback() {
        let plan = RequestGroup.chain([
            ChainStep(Request(.get, "/a"), onFinish: { _ in }),
            ChainStep(Request(.get, "/b")),
        ]).plan
        var machine = GroupMachine(plan: plan)
        #expect(names(machine.apply(.launch)) == ["launched", "start 0"])
        #expect(names(machine.apply(.memberEnded(index: 0, succeeded: true, response: nil, error: nil))) == ["ended 0 succeeded", "callback 0"])
        #expect(machine.apply(.cancelMember(index: 5)).isEmpty)
        var decisions = ChainStepContext.Decisions()
        decisions.addedSteps = [ChainStep(Request(.get, "/c"))]
        decisions.variables = [("token", "t")]
        #expect(names(machine.apply(.stepDecided(index: 0, decisions))) == ["steps +1", "start 1"])
        #expect(machine.variables["token"] == "t")
        #expect(names(machine.apply(.memberEnded(index: 1, succeeded: true, response: nil, error: nil))) == ["ended 1 succeeded", "start 2"])
        #expect(names(machine.apply(.memberEnded(index: 2, succeeded: true, response: nil, error: nil))) == ["ended 2 succeeded", "finish succeeded"])
    }

    @Test("a chain under .stop skips the rest after a failure; a missing capture is a failure")
    func chainStop() {
        var machine = GroupMachine(plan: RequestGroup.chain([
            ChainStep(Request(.get, "/a"), captures: [Capture("token", from: .header("X-Token"))]), ChainStep(Request(.get, "/b")),
        ]).plan)
        _ = machine.apply(.launch)
        let response = Response(requestID: 1, statusCode: 200, statusLine: "HTTP/1.1 200 OK", httpVersion: "1.1", headers: [:],
                                body: Data(), value: .data(Data()), url: "http://h/")
        #expect(names(machine.apply(.memberEnded(index: 0, succeeded: true, response: response, error: nil)))
                == ["ended 0 failed", "skip 1", "finish failed"])
    }

    @Test("a step keeps the values its request's checks captured, those before a missing one too; a step without captures of its own keeps none, whatever its request checked (found by review)")
    func capturedFromTheChecks() {
        var response = Response(requestID: 1, statusCode: 200, statusLine: "HTTP/1.1 200 OK", httpVersion: "1.1", headers: [:],
                                body: Data(), value: .data(Data()), url: "http://h/")
        let first = Capture("a", from: .status), missing = Capture("b", from: .header("X-B"))
        response.captured = [CapturedValue(capture: first, value: "200")]
        let failure = RequestError(.captureFailed, "capture b: no X-B header in the response")
        var kept = GroupMachine(plan: RequestGroup.chain([ChainStep(Request(.get, "/a"), captures: [first, missing]), ChainStep(Request(.get, "/b"))],
                                                         onFailure: .continue).plan)
        _ = kept.apply(.launch)
        _ = kept.apply(.memberEnded(index: 0, succeeded: false, response: response, error: failure))
        #expect(kept.variables["a"] == "200" && kept.variables["b"] == nil)
        var none = GroupMachine(plan: RequestGroup.chain([ChainStep(Request(.get, "/a")), ChainStep(Request(.get, "/b"))], onFailure: .continue).plan)
        _ = none.apply(.launch)
        _ = none.apply(.memberEnded(index: 0, succeeded: false, response: response, error: failure))
        #expect(none.variables["a"] == nil)
    }

    @Test("verdicts follow the policies", arguments: [
        (GroupPolicy.batch(.all, maxConcurrency: nil), [true, false], GroupVerdict.failed),
        (.batch(.any, maxConcurrency: nil), [false, true], .succeeded),
        (.batch(.any, maxConcurrency: nil), [], .succeeded),
        (.batch(.required([1]), maxConcurrency: nil), [false, true], .succeeded),
        (.batch(.required([0]), maxConcurrency: nil), [false, true], .failed),
        (.orderedWindow(maxInFlight: 2), [true, true], .succeeded),
        (.chain(.continue), [true, false, true], .failed),
    ])
    func verdicts(_ policy: GroupPolicy, _ outcomes: [Bool], _ expected: GroupVerdict) {
        #expect(policy.verdict(outcomes: outcomes) == expected)
    }

    @Test("dropping the agent while a group runs neither deadlocks nor loses the group's end")
    func droppingTheAgent() async throws {
        let server = try await TestServer.shared()
        let ended = AsyncStream<GroupState>.makeStream()
        var agent: Agent? = Agent(config: NetworkConfig(baseURL: server.baseURL))
        agent!.start(.batch([Request(.get, "/delay/0.3"), Request(.get, "/get")]), callbacks: GroupCallbacks(
            success: { ended.continuation.yield($0.state) }, failure: { ended.continuation.yield($0.state) }))
        agent = nil
        let state = await withTaskGroup(of: GroupState?.self) { group in
            group.addTask { var iterator = ended.stream.makeAsyncIterator(); return await iterator.next() }
            group.addTask { try? await Task.sleep(for: .seconds(10)); return nil }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        #expect(state == .succeeded)
    }
}
