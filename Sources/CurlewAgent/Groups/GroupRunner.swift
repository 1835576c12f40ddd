import Foundation
import Synchronization

/// Runs one group: starts members as its kind allows, applies captures, step callbacks and
/// policies, cancels, and reports everything as group events.
///
/// Decisions are made under the lock and returned as actions; actions (starting requests,
/// calling user code, publishing) run outside it.
final class GroupRunner: Sendable {
    let handle: GroupHandle
    let info: GroupInfo
    private let agent: Agent
    private let plan: RequestGroup.Plan
    private let callbacks: GroupCallbacks
    /// Members of the current priority gate's tree pass it.
    private let passesGate: Bool
    private let onFinish: (@Sendable (GroupHandle) -> Void)?
    private let state: Mutex<RunState>

    private struct Slot: Sendable {
        var member: GroupMember
        var captures: [Capture] = []
        var onFinish: (@Sendable (ChainStepContext) -> Void)?
        var request: RequestHandle?
        var child: GroupRunner?
        var started = false
        var terminal = false
        var succeeded = false
    }

    private struct RunState: Sendable {
        var slots: [Slot]
        var launched = false
        var finished = false
        var cancelling = false
        /// A failure that ends the group (batch policy, chain `.stop`) has happened.
        var failureDecided = false
        var earlyVerdict: GroupVerdict?
        var nextToStart = 0
        var running = 0
        var variables = ChainVariables()
        var startedAt = ContinuousClock.now
    }

    private enum Action {
        case start(Int)
        case cancel(Int)
        case publishSkipped(Int)
        case finish(GroupVerdict)
    }

    init(group: RequestGroup, id: UInt64, agent: Agent, callbacks: GroupCallbacks, parent: (id: UInt64, index: Int)?,
         isPriorityGate: Bool, passesGate: Bool, onFinish: (@Sendable (GroupHandle) -> Void)?) {
        let slots: [Slot]
        switch group.plan {
        case .batch(let members, _, _), .orderedWindow(let members, _):
            slots = members.map { Slot(member: $0) }
        case .chain(let steps, _):
            slots = steps.map { Slot(member: $0.member, captures: $0.captures, onFinish: $0.onFinish) }
        }
        self.agent = agent
        self.plan = group.plan
        self.callbacks = callbacks
        self.passesGate = passesGate
        self.onFinish = onFinish
        self.info = GroupInfo(id: id, name: group.name, kind: group.kind, parentID: parent?.id, indexInParent: parent?.index, isPriorityGate: isPriorityGate)
        self.handle = GroupHandle(info: info, labels: slots.map(\.member.label))
        self.state = Mutex(RunState(slots: slots))
        publish(.created(info, memberLabels: slots.map(\.member.label)))
    }

    // MARK: Starting

    /// Starts the group, or queues it behind an open priority gate.
    func begin() {
        let admitted = agent.gate.admit(id: info.id, opensGate: info.isPriorityGate, passes: passesGate) {
            PriorityGate.Waiter(
                id: info.id, opensGate: info.isPriorityGate,
                release: { [self] in launch() },
                cancel: { [self] in cancel() }
            )
        }
        if admitted {
            launch()
        } else {
            handle.update { $0.state = .waiting }
            publish(.waiting(info, reason: .gated))
        }
    }

    private func launch() {
        let alreadyCancelled = state.withLock { state -> Bool in
            state.launched = true
            state.startedAt = .now
            return state.cancelling
        }
        guard !alreadyCancelled else { return }
        handle.update {
            $0.state = .running
            $0.startedAt = Date()
            for index in $0.members.indices { $0.members[index].state = .pending; $0.members[index].waitReason = .queued }
        }
        publish(.started(info))
        for (index, label) in handle.members.map(\.label).enumerated() {
            publish(.memberChanged(info, MemberUpdate(index: index, label: label, state: .pending, waitReason: .queued)))
        }
        perform(state.withLock { schedule(&$0) })
    }

    /// The members that may start now, or the verdict when nothing is left to run.
    private func schedule(_ state: inout RunState) -> [Action] {
        var actions: [Action] = []
        if !state.cancelling, !state.failureDecided, state.earlyVerdict == nil {
            let limit: Int
            switch plan {
            case .batch(_, _, let maxConcurrency): limit = maxConcurrency ?? Int.max
            case .orderedWindow(_, let maxInFlight): limit = maxInFlight
            case .chain: limit = 1
            }
            while state.running < limit, state.nextToStart < state.slots.count {
                let index = state.nextToStart
                state.nextToStart += 1
                guard !state.slots[index].terminal else { continue }
                state.slots[index].started = true
                state.running += 1
                actions.append(.start(index))
            }
        }
        if state.running == 0, !state.finished, state.slots.allSatisfy({ $0.terminal || !$0.started }) {
            let leftOver = state.slots.indices.filter { !state.slots[$0].terminal }
            let nothingMoreWillStart = state.cancelling || state.failureDecided || state.earlyVerdict != nil || state.nextToStart >= state.slots.count
            if nothingMoreWillStart {
                for index in leftOver {
                    state.slots[index].terminal = true
                    actions.append(.publishSkipped(index))
                }
                state.finished = true
                actions.append(.finish(verdict(state)))
            }
        }
        return actions
    }

    private func verdict(_ state: RunState) -> GroupVerdict {
        if state.cancelling { return .cancelled }
        if let early = state.earlyVerdict { return early }
        let outcomes = state.slots.map(\.succeeded)
        switch plan {
        case .batch(_, .all, _), .orderedWindow:
            return outcomes.allSatisfy { $0 } ? .succeeded : .failed
        case .batch(_, .required(let required), _):
            let requiredOK = required.filter { $0 < outcomes.count }.allSatisfy { outcomes[$0] }
            return !state.failureDecided && requiredOK ? .succeeded : .failed
        case .batch(_, .any, _):
            return outcomes.isEmpty || outcomes.contains(true) ? .succeeded : .failed
        case .chain:
            return state.failureDecided || outcomes.contains(false) ? .failed : .succeeded
        }
    }

    private func perform(_ actions: [Action]) {
        for action in actions {
            switch action {
            case .start(let index): startMember(index)
            case .cancel(let index): cancelMember(index)
            case .publishSkipped(let index): markSkipped(index)
            case .finish(let verdict): finish(verdict)
            }
        }
    }

    private func startMember(_ index: Int) {
        let (member, variables) = state.withLock { ($0.slots[index].member, $0.variables) }
        let label = member.label
        handle.update {
            $0.members[index].state = .pending
            $0.members[index].waitReason = nil
            $0.members[index].startedAt = Date()
        }
        publish(.memberChanged(info, MemberUpdate(index: index, label: label, state: .pending)))
        switch member {
        case .request(let template):
            let request: Request
            do {
                request = info.kind == .chain ? try variables.expand(template) : template
            } catch {
                agent.config.callbackQueue.async { [self] in memberFinished(index, succeeded: false, response: nil, error: error) }
                return
            }
            let placement = RequestPlacement(group: info, index: index, label: label)
            let requestHandle = agent.start(request, callbacks: RequestCallbacks(
                success: { [self] response in memberFinished(index, succeeded: true, response: response, error: nil) },
                failure: { [self] failure in memberFinished(index, succeeded: false, response: failure.response, error: failure.error) }
            ), placement: placement, passesGate: passesGate)
            handle.update { $0.members[index].requestID = requestHandle.id }
            state.withLock { $0.slots[index].request = requestHandle }
        case .group(let group):
            let child = GroupRunner(
                group: group, id: agent.makeID(), agent: agent, callbacks: GroupCallbacks(),
                parent: (info.id, index), isPriorityGate: false, passesGate: passesGate,
                onFinish: { [self] childHandle in
                    let succeeded = childHandle.state == .succeeded
                    let error = succeeded ? nil : RequestError(childHandle.state == .cancelled ? .cancelled : .groupFailed,
                                                               GroupFailure(group: childHandle).description)
                    memberFinished(index, succeeded: succeeded, response: childHandle.lastResponse, error: error)
                }
            )
            handle.update { $0.members[index].child = child.handle }
            state.withLock { $0.slots[index].child = child }
            agent.groups.register(child)
            child.begin()
        }
    }

    // MARK: Finishing members

    private func memberFinished(_ index: Int, succeeded initialSuccess: Bool, response: Response?, error initialError: RequestError?) {
        var succeeded = initialSuccess
        var error = initialError
        let (captures, stepCallback, isChain) = state.withLock { state in
            (state.slots[index].captures, state.slots[index].onFinish, info.kind == .chain)
        }
        var captured: [(String, String)] = []
        if succeeded, isChain {
            for capture in captures {
                switch Self.extract(capture, from: response) {
                case .success(let value): captured.append((capture.name, value))
                case .failure(let failure):
                    succeeded = false
                    error = failure
                }
                if !succeeded { break }
            }
        }
        let cancelled = error?.kind == .cancelled
        let memberState: RequestState = succeeded ? .succeeded : (cancelled ? .cancelled : .failed)
        state.withLock { state in
            state.slots[index].terminal = true
            state.slots[index].succeeded = succeeded
            state.running -= 1
            for (name, value) in captured { state.variables.set(name, value) }
        }
        let variables = state.withLock { $0.variables }
        handle.update {
            $0.members[index].state = memberState
            $0.members[index].response = response
            $0.members[index].error = error
            $0.members[index].finishedAt = Date()
            $0.variables = variables
        }
        let label = handle[index].label
        publish(.memberChanged(info, MemberUpdate(
            index: index, label: label, state: memberState, requestID: handle[index].requestID,
            childGroupID: handle[index].child?.id, statusCode: response?.statusCode, error: error)))
        for (name, value) in captured {
            publish(.captured(info, step: index, name: name, value: value))
        }
        notifyMemberFinished(handle[index])

        if let stepCallback {
            let context = ChainStepContext(chain: handle, step: index, finished: handle[index])
            stepCallback(context)
            apply(context.made, after: index)
        }
        let actions = state.withLock { state -> [Action] in
            var actions: [Action] = []
            if !succeeded, !state.failureDecided, !state.cancelling, endsGroup(failedIndex: index) {
                state.failureDecided = true
                for other in state.slots.indices where !state.slots[other].terminal && state.slots[other].started {
                    actions.append(.cancel(other))
                }
            }
            return actions + schedule(&state)
        }
        perform(actions)
    }

    /// Whether a failure of this member ends the group under its policy.
    private func endsGroup(failedIndex index: Int) -> Bool {
        switch plan {
        case .batch(_, .all, _): true
        case .batch(_, .required(let required), _): required.contains(index)
        case .batch(_, .any, _), .orderedWindow: false
        case .chain(_, let onFailure): onFailure == .stop
        }
    }

    /// Applies what a chain step's callback decided.
    private func apply(_ decisions: ChainStepContext.Decisions, after index: Int) {
        var addedLabels: [(Int, String)] = []
        state.withLock { state in
            for (name, value) in decisions.variables { state.variables.set(name, value) }
            if let next = decisions.nextRequest {
                if index + 1 < state.slots.count {
                    state.slots[index + 1].member = .request(next)
                } else {
                    state.slots.append(Slot(member: .request(next)))
                    addedLabels.append((state.slots.count - 1, GroupMember.request(next).label))
                }
            }
            for step in decisions.addedSteps {
                state.slots.append(Slot(member: step.member, captures: step.captures, onFinish: step.onFinish))
                addedLabels.append((state.slots.count - 1, step.member.label))
            }
            if let verdict = decisions.earlyVerdict { state.earlyVerdict = verdict }
        }
        let variables = state.withLock { $0.variables }
        let labels = state.withLock { $0.slots.map(\.member.label) }
        handle.update { snapshot in
            snapshot.variables = variables
            for (offset, label) in labels.enumerated() {
                if offset < snapshot.members.count {
                    snapshot.members[offset].label = label
                } else {
                    snapshot.members.append(MemberSnapshot(index: offset, label: label, state: .pending, waitReason: .queued))
                }
            }
        }
        for (added, label) in addedLabels {
            publish(.stepAdded(info, index: added, label: label))
        }
    }

    private static func extract(_ capture: Capture, from response: Response?) -> Result<String, RequestError> {
        guard let response else { return .failure(RequestError(.captureFailed, "capture \(capture.name): no response")) }
        switch capture.source {
        case .status:
            return .success(String(response.statusCode))
        case .header(let name):
            guard let value = response.headers[name] else {
                return .failure(RequestError(.captureFailed, "capture \(capture.name): no \(name) header in the response"))
            }
            return .success(value)
        case .jsonPath(let text):
            let path: JSONPath
            do { path = try JSONPath(text) } catch { return .failure(error) }
            guard let json = try? response.json() else {
                return .failure(RequestError(.captureFailed, "capture \(capture.name): the response body is not JSON"))
            }
            guard let value = path.evaluate(json) else {
                return .failure(RequestError(.captureFailed, "capture \(capture.name): nothing at \(text) in the response"))
            }
            return .success(value.textValue)
        }
    }

    /// A member that will never start (group cancelled, failed or finished early) ends as cancelled.
    private func markSkipped(_ index: Int) {
        handle.update {
            $0.members[index].state = .cancelled
            $0.members[index].waitReason = nil
        }
        publish(.memberChanged(info, MemberUpdate(index: index, label: handle[index].label, state: .cancelled)))
    }

    // MARK: Cancelling

    /// Cancels every pending and running member; the group ends `cancelled`.
    func cancel() {
        let (actions, waitingAtGate) = state.withLock { state -> ([Action], Bool) in
            guard !state.finished, !state.cancelling else { return ([], false) }
            state.cancelling = true
            guard state.launched else {
                for index in state.slots.indices { state.slots[index].terminal = true }
                state.finished = true
                return (state.slots.indices.map { Action.publishSkipped($0) } + [.finish(.cancelled)], true)
            }
            let running = state.slots.indices.filter { state.slots[$0].started && !state.slots[$0].terminal }
            return (running.map { Action.cancel($0) } + schedule(&state), false)
        }
        if waitingAtGate { _ = agent.gate.withdraw(info.id) }
        perform(actions)
    }

    /// Cancels one member. Its siblings go on unless the group's policy says otherwise.
    func cancelMember(at index: Int) {
        let actions = state.withLock { state -> [Action] in
            guard state.slots.indices.contains(index), !state.slots[index].terminal else { return [] }
            if state.slots[index].started { return [.cancel(index)] }
            state.slots[index].terminal = true
            var actions: [Action] = [.publishSkipped(index)]
            if !state.failureDecided, endsGroup(failedIndex: index) {
                state.failureDecided = true
                actions += state.slots.indices.filter { state.slots[$0].started && !state.slots[$0].terminal }.map { Action.cancel($0) }
            }
            return actions + schedule(&state)
        }
        perform(actions)
    }

    private func cancelMember(_ index: Int) {
        let (request, child) = state.withLock { ($0.slots[index].request, $0.slots[index].child) }
        if let request { agent.cancel(request) }
        child?.cancel()
    }

    // MARK: Reporting

    private func finish(_ verdict: GroupVerdict) {
        let duration = state.withLock { ContinuousClock.now - $0.startedAt }
        let state: GroupState = switch verdict {
        case .succeeded: .succeeded
        case .failed: .failed
        case .cancelled: .cancelled
        }
        handle.update {
            $0.state = state
            $0.finishedAt = Date()
        }
        publish(.finished(info, verdict: verdict, duration: duration.wholeMicroseconds, failedMembers: handle.failedMembers.map(\.index)))
        agent.groups.unregister(info.id)
        let callbacks = callbacks
        let handle = handle
        let isGate = info.isPriorityGate
        let id = info.id
        let gate = agent.gate
        agent.config.callbackQueue.async { [onFinish] in
            if verdict == .succeeded { callbacks.success?(handle) } else { callbacks.failure?(handle) }
            callbacks.delegate?.requestGroupAllDidFinished(handle)
            onFinish?(handle)
            if isGate { gate.close(id) }
        }
    }

    private func notifyMemberFinished(_ member: MemberSnapshot) {
        guard callbacks.memberFinished != nil || callbacks.delegate != nil else { return }
        let callbacks = callbacks
        let handle = handle
        agent.config.callbackQueue.async {
            callbacks.memberFinished?(handle, member)
            callbacks.delegate?.requestGroup(handle, memberDidFinish: member)
        }
    }

    private func publish(_ event: GroupEvent) {
        agent.publish(event)
    }
}

/// The groups of an agent that have not finished, for cancelling by handle.
final class GroupRegistry: Sendable {
    private let running = Mutex<[UInt64: GroupRunner]>([:])

    func register(_ runner: GroupRunner) {
        running.withLock { $0[runner.info.id] = runner }
    }

    func unregister(_ id: UInt64) {
        running.withLock { _ = $0.removeValue(forKey: id) }
    }

    func runner(_ id: UInt64) -> GroupRunner? {
        running.withLock { $0[id] }
    }

    var all: [GroupRunner] {
        running.withLock { Array($0.values) }
    }
}
