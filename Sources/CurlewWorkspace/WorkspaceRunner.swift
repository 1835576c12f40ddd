import CurlewAgent
import CurlewLocking
import Foundation

/// Runs a workspace's requests and groups headlessly on an agent and checks their `expect:`
/// assertions. What the requests did is reported to the agent's observers as usual (the session
/// log, a HAR collector); the runner reports results as each target finishes.
public struct WorkspaceRunner: Sendable {
    public let session: WorkspaceSession
    public let agent: Agent

    public init(session: WorkspaceSession, agent: Agent) {
        self.session = session
        self.agent = agent
    }

    /// Runs each target `repeat` times, at most `parallel` at once, calling `finished` as each
    /// ends (from any task). Cancelling the calling task cancels what is in flight; what had not
    /// started is reported as skipped.
    /// `memberFinished` hears each group member's case as it ends, before its group does, and
    /// `nestedGroupFinished` each group nested in a group after its members, when the top-level
    /// group's member that holds it ends (a group nested deeper, with its parents).
    public func run(_ targets: [RunTarget], repeat count: Int = 1, parallel: Int = 1,
                    memberFinished: @escaping @Sendable (RunCase) -> Void = { _ in },
                    nestedGroupFinished: @escaping @Sendable (NestedGroupResult) -> Void = { _ in },
                    finished: @escaping @Sendable (RunResult) -> Void) async -> [RunResult] {
        let units = (1...max(1, count)).flatMap { iteration in targets.map { Unit(target: $0, iteration: iteration) } }
        let runner = self
        let progress = Progress()
        await withTaskGroup(of: Void.self) { tasks in
            for _ in 0..<min(max(1, parallel), units.count) {
                tasks.addTask {
                    while true {
                        let index = progress.next.withLock { value -> Int in defer { value += 1 }; return value }
                        guard index < units.count else { return }
                        let unit = units[index]
                        let result: RunResult
                        if Task.isCancelled {
                            result = RunResult(target: unit.target, iteration: unit.iteration, cases: runner.skippedCases(unit.target, unit.iteration),
                                               groupState: nil)
                        } else {
                            let started = ContinuousClock.now
                            var ran = await runner.run(unit.target, iteration: unit.iteration, memberFinished: memberFinished,
                                                       nestedGroupFinished: nestedGroupFinished)
                            ran.ranDuring = started...ContinuousClock.now
                            result = ran
                        }
                        progress.results.withLock { $0.append((index, result)) }
                        finished(result)
                    }
                }
            }
            await withTaskCancellationHandler {
                await tasks.waitForAll()
            } onCancel: {
                agent.cancelAll()
            }
        }
        return progress.results.withLock { $0 }.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// The work shared by the run's tasks: the next unit to take, and what has finished.
    private final class Progress: Sendable {
        let next = Locked(0)
        let results = Locked<[(Int, RunResult)]>([])
    }

    private struct Unit: Sendable {
        var target: RunTarget
        var iteration: Int
    }

    private func skippedCases(_ target: RunTarget, _ iteration: Int) -> [RunCase] {
        switch target {
        case .request(let name): [RunCase(request: name, group: nil, iteration: iteration, failures: [], skipped: true)]
        case .group(let name): notRunCases(of: name, in: name, path: [], iteration: iteration)
        }
    }

    /// A case for each request the group `name` holds, at any depth, none of which ran; `path`
    /// leads from the top-level `group` to it (empty when it is the top-level group).
    private func notRunCases(of name: String, in group: String, path: [String], iteration: Int) -> [RunCase] {
        session.requestPlaces(in: name).map {
            RunCase(request: $0.name, group: group, path: path + $0.path, iteration: iteration, failures: [], skipped: true)
        }
    }

    private func run(_ target: RunTarget, iteration: Int, memberFinished: @escaping @Sendable (RunCase) -> Void,
                     nestedGroupFinished: @escaping @Sendable (NestedGroupResult) -> Void) async -> RunResult {
        switch target {
        case .request(let name):
            do {
                let request = try session.request(named: name).0
                let runCase = await runRequest(request, name: name, expectations: session.expectations(of: name), iteration: iteration)
                return RunResult(target: target, iteration: iteration, cases: [runCase], groupState: nil)
            } catch {
                return RunResult(target: target, iteration: iteration, cases: [], groupState: nil, buildError: error)
            }
        case .group(let name):
            let group: RequestGroup
            do { group = try session.group(named: name) } catch {
                return RunResult(target: target, iteration: iteration, cases: [], groupState: nil, buildError: error)
            }
            // It would pass at once, having run nothing: a group not yet written, not a success.
            if let problem = group.emptyGroupProblem(named: "group \"\(name)\"") {
                let position = session.workspace.group(named: name)?.position
                return RunResult(target: target, iteration: iteration, cases: [], groupState: nil,
                                 buildError: WorkspaceError(.invalid, at: position, keyPath: "groups.\(name)", problem))
            }
            let priorityFirst = session.workspace.group(named: name)?.priorityFirst ?? false
            let started = Locked<GroupHandle?>(nil)
            let credentials = SentCredentials(policy: session.redactionPolicy)
            let times = ExchangeTimes()
            let handle: GroupHandle = await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let callbacks = GroupCallbacks(
                        success: { continuation.resume(returning: $0) }, failure: { continuation.resume(returning: $0) },
                        memberFinished: { handle, member in
                            let secrets = CaseSecrets(credentials: credentials, captured: hiddenCaptures(of: handle))
                            let (memberCases, nested) = outcomes(of: member, group: name, iteration: iteration, path: [], secrets: secrets, times: times)
                            for runCase in memberCases where !runCase.skipped { memberFinished(runCase) }
                            for result in nested { nestedGroupFinished(result) }
                        },
                        memberDebug: { message in
                            credentials.record(message)
                            times.record(message)
                        })
                    let handle = priorityFirst ? agent.startPriorityFirst(group, callbacks: callbacks) : agent.start(group, callbacks: callbacks)
                    started.withLock { $0 = handle }
                    if Task.isCancelled { agent.cancel(handle) }
                }
            } onCancel: {
                if let handle = started.withLock({ $0 }) { agent.cancel(handle) }
            }
            let secrets = CaseSecrets(credentials: credentials, captured: hiddenCaptures(of: handle))
            let members = handle.members.map { outcomes(of: $0, group: name, iteration: iteration, path: [], secrets: secrets, times: times) }
            var result = RunResult(target: target, iteration: iteration, cases: members.flatMap(\.cases), groupState: handle.state)
            result.nested = members.flatMap(\.nested)
            return result
        }
    }

    private func runRequest(_ request: Request, name: String, expectations: FilledExpectations, iteration: Int) async -> RunCase {
        let started = ContinuousClock.now
        let handleBox = Locked<RequestHandle?>(nil)
        let credentials = SentCredentials(policy: session.redactionPolicy)
        let times = ExchangeTimes()
        let outcome: (Response?, RequestError?) = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let handle = agent.start(request, callbacks: RequestCallbacks(
                    success: { response in continuation.resume(returning: (response, nil)) },
                    failure: { failure in continuation.resume(returning: (failure.response, failure.error)) },
                    debug: { message in
                        times.record(message)
                        credentials.record(message)
                    }
                ))
                handleBox.withLock { $0 = handle }
                // A cancellation that came before the handle was stored.
                if Task.isCancelled { agent.cancel(handle) }
            }
        } onCancel: {
            if let handle = handleBox.withLock({ $0 }) { agent.cancel(handle) }
        }
        let id = handleBox.withLock { $0?.id }
        let measured = times.of(id) ?? ExchangeTimes.Times(wall: ContinuousClock.now - started)
        return makeCase(name: name, group: nil, iteration: iteration, response: outcome.0, error: outcome.1, times: measured, expectations: expectations,
                        hiding: credentials.values(sentBy: id))
    }

    /// `hiding`: what this request's session log record hides besides the workspace's secrets
    /// (the credentials it sent, the chain captures a log hides).
    /// `times`: what the report shows of the exchange's duration and what `maxDuration` checks.
    private func makeCase(name: String, group: String?, iteration: Int, response: Response?, error: RequestError?, times: ExchangeTimes.Times?,
                          expectations: FilledExpectations, hiding: SentCredentials.Sent) -> RunCase {
        // A request refused before it was sent has no latency, and stays out of the run's percentiles.
        let times = response == nil && error?.cameBeforeSending == true ? nil : times
        let outcome = ExchangeOutcome(response: response, error: error, duration: times?.checked)
        // Assertions judge an answer; without one they fail as one (`unansweredFailures`).
        // What a report shows of the answer, and of the error, hides what the session log hides.
        var policy = session.redactionPolicy
        policy.hideAlso(hiding.anywhere)
        policy.hideAlso(standingAlone: hiding.standingAlone)
        var error = error
        if let message = error?.message { error?.message = policy.redactText(message) }
        let failures = response == nil ? Expectation.unansweredFailures(of: expectations.written, error: error)
            : expectations.failures(in: outcome, hiding: policy.redactText).map { failure in
                ExpectationFailure(assertion: failure.assertion, expected: policy.redactText(failure.expected), actual: policy.redactText(failure.actual))
            }
        return RunCase(request: name, group: group, iteration: iteration, statusCode: response?.statusCode, error: error,
                       failures: failures, duration: times?.shown)
    }

    /// The cases of one finished member (every request's of a nested group), and the verdicts
    /// of the groups it is or holds, innermost first (each after its own members), each case
    /// judged once.
    private func outcomes(of member: MemberSnapshot, group: String, iteration: Int,
                          path: [String], secrets: CaseSecrets, times: ExchangeTimes) -> (cases: [RunCase], nested: [NestedGroupResult]) {
        guard let child = member.child else { return (cases(of: member, group: group, iteration: iteration, path: path, secrets: secrets, times: times), []) }
        let path = path + [member.label]
        var memberCases: [RunCase] = []
        var nested: [NestedGroupResult] = []
        for inner in child.members {
            let outcome = outcomes(of: inner, group: group, iteration: iteration, path: path, secrets: secrets, times: times)
            memberCases += outcome.cases
            nested += outcome.nested
        }
        var result = NestedGroupResult(group: group, path: path, iteration: iteration, state: member.state, cases: memberCases)
        if var error = member.error, error.kind == .captureFailed {
            error.message = session.redactionPolicy.redactText(error.message)
            result.stepError = error
        }
        nested.append(result)
        return (memberCases, nested)
    }

    /// The cases of one member that is not a group that ran: a request's, or those of a nested
    /// group that never started.
    private func cases(of member: MemberSnapshot, group: String, iteration: Int, path: [String], secrets: CaseSecrets, times: ExchangeTimes) -> [RunCase] {
        // A nested group that never started has no handle: its requests are listed as not run,
        // as they are when its top-level group never ran.
        if case .group(let name)? = reference(of: member, path: path, group: group) {
            return notRunCases(of: name, in: group, path: path + [name], iteration: iteration)
        }
        guard member.state.isTerminal else {
            return [RunCase(request: member.label, group: group, path: path, iteration: iteration, failures: [], skipped: true)]
        }
        let expectations = session.expectations(of: member.label, captured: member.startedWith.values)
        // The member's own times, as for a request run alone; the group's clock for one without.
        let measured = times.of(member.requestID) ?? member.duration.map {
            ExchangeTimes.Times(wall: .microseconds(Int64(($0 * 1_000_000).rounded())))
        }
        var runCase = makeCase(name: member.label, group: group, iteration: iteration, response: member.response, error: member.error,
                               times: measured, expectations: expectations, hiding: secrets.values(for: member.requestID))
        runCase.path = path
        // Never started: cancelled while waiting, or left out when its chain stopped (which
        // carries no error), either way not run, never a pass.
        runCase.skipped = member.state == .cancelled && member.startedAt == nil
        return [runCase]
    }

    /// Every value a group's chains captured (its own and its nested groups'), a name's earlier
    /// values included, that a log hides: `RedactionPolicy.hiddenCapture`, with each capture's
    /// own source, as the session log decides from the same captures.
    private func hiddenCaptures(of handle: GroupHandle) -> [String] {
        let policy = session.redactionPolicy
        return handle.members.flatMap { member in
            member.captured.compactMap { item in
                policy.hiddenCapture(named: item.capture.name, value: item.value, from: item.capture.source) ? item.value : nil
            } + (member.child.map(hiddenCaptures) ?? [])
        }
    }

    /// What the workspace lists at `member`'s place in the group holding it: the last of
    /// `path`, or the top-level `group`.
    private func reference(of member: MemberSnapshot, path: [String], group: String) -> WorkspaceGroup.Member.Reference? {
        guard let members = session.workspace.group(named: path.last ?? group)?.members, members.indices.contains(member.index) else { return nil }
        return members[member.index].reference
    }
}

extension RunTarget {
    /// The group's name, for a group.
    public var groupName: String? {
        if case .group(let name) = self { return name }
        return nil
    }
}
