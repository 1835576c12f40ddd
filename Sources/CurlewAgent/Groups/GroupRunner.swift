import Foundation
import CurlewLocking

/// Runs one group: feeds every input (launch, a member's end, a chain step's decisions, a
/// cancel) to its `GroupMachine` and carries out the effects the machine returns: starting and
/// cancelling members, updating the handle, publishing group events, calling back.
///
/// Effects are carried out in order while the machine's lock is held, so those of concurrent
/// inputs never interleave. None of them calls back into this runner synchronously (member
/// results and finish callbacks go through the agent's callback runner), and a chain step's callback,
/// which is user code, runs after the lock is released.
final class GroupRunner: Sendable {
    let handle: GroupHandle
    let info: GroupInfo
    /// The transfer thread every member (nested groups' included) is given, with `.transferThread`
    /// delivery, so that the group's callbacks and its members' keep one order (a member that uses
    /// cookies runs its exchange on the cookie thread, its callbacks still on this one).
    let lane: Int
    private let agent: Agent
    private let callbacks: GroupCallbacks
    /// Members of the current priority gate's tree pass it.
    private let passesGate: Bool
    private let onFinish: (@Sendable (GroupHandle) -> Void)?
    private let machine: Locked<GroupMachine>
    /// Members' `{{name}}` are filled in: a chain's, and any group's nested in a chain that had
    /// captured values by the time it started it.
    private let fillsTemplates: Bool
    /// What each started member runs as, for cancelling it.
    private let started = Locked<[Int: StartedMember]>([:])
    private let startedAt = Locked(ContinuousClock.now)

    private enum StartedMember {
        case request(RequestHandle)
        case group(GroupRunner)
    }

    /// `inherited`: for a group nested in a chain, what the chain had captured when it started
    /// this group; its members' `{{name}}` are filled from it as a chain step's are.
    init(group: RequestGroup, id: UInt64, agent: Agent, callbacks: GroupCallbacks, parent: (id: UInt64, index: Int)?, lane: Int,
         isPriorityGate: Bool, passesGate: Bool, inherited: ChainVariables = ChainVariables(), onFinish: (@Sendable (GroupHandle) -> Void)?) {
        let machine = GroupMachine(plan: group.plan, fillsOnly: group.fillsOnly, inherited: inherited, defaultHeaders: agent.config.defaultHeaders.fields)
        // A group that names what it fills (`fillsOnly`) fills those names wherever it runs, and
        // fails on one with no value.
        fillsTemplates = group.kind == .chain || !inherited.values.isEmpty || group.fillsOnly?.isEmpty == false
        let labels = machine.slots.map { machine.label(of: $0.member) }
        self.lane = lane
        self.agent = agent
        self.callbacks = callbacks
        self.passesGate = passesGate
        self.onFinish = onFinish
        self.info = GroupInfo(id: id, name: group.name, kind: group.kind, parentID: parent?.id, indexInParent: parent?.index, isPriorityGate: isPriorityGate)
        self.handle = GroupHandle(info: info, labels: labels)
        self.machine = Locked(machine)
        publish(.created(info, memberLabels: labels))
    }

    // MARK: Inputs

    /// Starts the group, or queues it behind an open priority gate.
    func begin() {
        let admitted = agent.gate.admit(id: info.id, opensGate: info.isPriorityGate, passes: passesGate) {
            PriorityGate.Waiter(
                id: info.id, opensGate: info.isPriorityGate,
                release: { [self] in send(.launch) },
                cancel: { [self] in cancel() }
            )
        }
        if admitted {
            send(.launch)
        } else {
            handle.update { $0.state = .waiting }
            publish(.waiting(info, reason: .gated))
        }
    }

    /// Cancels every pending and running member; the group ends `cancelled`. With `reason`
    /// (the group holding this one stops it), the running members' errors say it.
    func cancel(because reason: String? = nil) {
        send(reason.map { .stop(because: $0) } ?? .cancel)
    }

    /// Cancels one member. Its siblings go on unless the group's policy says otherwise.
    func cancelMember(at index: Int) {
        send(.cancelMember(index: index))
    }

    private func memberEnded(_ index: Int, succeeded: Bool, response: Response?, error: RequestError?) {
        send(.memberEnded(index: index, succeeded: succeeded, response: response, error: error))
    }

    /// Feeds one input to the machine and carries out its effects; then runs a chain step's
    /// callback, if the input ended a step that has one, and feeds its decisions back.
    private func send(_ input: GroupMachine.Input) {
        let stepCallback = machine.withLock { machine -> (Int, @Sendable (ChainStepContext) -> Void)? in
            var deferred: (Int, @Sendable (ChainStepContext) -> Void)?
            for effect in machine.apply(input) {
                if case .runStepCallback(let index, let callback) = effect {
                    deferred = (index, callback)
                } else {
                    perform(effect, in: machine)
                }
            }
            return deferred
        }
        guard let (index, callback) = stepCallback else { return }
        let context = ChainStepContext(chain: handle, step: index, finished: handle[index])
        callback(context)
        send(.stepDecided(index: index, context.made))
    }

    // MARK: Effects

    private func perform(_ effect: GroupMachine.Effect, in machine: GroupMachine) {
        switch effect {
        case .launched:
            let launched = ContinuousClock.now
            startedAt.withLock { $0 = launched }
            handle.update {
                $0.state = .running
                $0.startedAt = Date()
                for index in $0.members.indices { $0.members[index].state = .pending; $0.members[index].waitReason = .queued }
            }
            publish(.started(info, at: launched))
            for (index, label) in handle.members.map(\.label).enumerated() {
                publish(.memberChanged(info, MemberUpdate(index: index, label: label, state: .pending, waitReason: .queued, at: launched)))
            }
        case .start(let index, let member, let variables, let captures):
            start(index, member: member, label: machine.label(of: member), variables: variables, captures: captures)
        case .cancel(let index, let reason):
            switch started.withLock({ $0[index] }) {
            case .request(let request):
                if let reason { agent.cancel(request, because: reason) } else { agent.cancel(request) }
            case .group(let child): child.cancel(because: reason)
            case nil: break
            }
        case .skip(let index):
            handle.update {
                $0.members[index].state = .cancelled
                $0.members[index].waitReason = nil
            }
            publish(.memberChanged(info, MemberUpdate(index: index, label: handle[index].label, state: .cancelled)))
        case .memberEnded(let index, let state, let response, let error, let captured):
            handle.update {
                $0.members[index].state = state
                $0.members[index].response = response
                $0.members[index].error = error
                $0.members[index].finishedAt = Date()
                $0.members[index].captured = captured
                $0.variables = machine.variables
            }
            let member = handle[index]
            publish(.memberChanged(info, MemberUpdate(
                index: index, label: member.label, state: state, requestID: member.requestID,
                childGroupID: member.child?.id, statusCode: response?.statusCode, error: error)))
            for item in captured {
                publish(.captured(info, step: index, name: item.capture.name, value: item.value, source: item.capture.source))
            }
            notifyMemberFinished(member)
        case .runStepCallback:
            break  // run by `send` once the lock is released
        case .stepsChanged(let labels, let added, let variables):
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
            for (index, label) in added {
                publish(.stepAdded(info, index: index, label: label))
            }
        case .finish(let verdict):
            finish(verdict, wasLaunched: machine.launched)
        }
    }

    /// `label`: the member's, as the group's events name it (`GroupMachine.label(of:)`).
    private func start(_ index: Int, member: GroupMember, label: String, variables: ChainVariables, captures: [Capture]) {
        handle.update {
            $0.members[index].state = .pending
            $0.members[index].waitReason = nil
            $0.members[index].startedAt = Date()
            $0.members[index].startedWith = variables
        }
        publish(.memberChanged(info, MemberUpdate(index: index, label: label, state: .pending)))
        switch member {
        case .request(let template):
            // A step its chain's values cannot fill still ends as a request of the agent, refused
            // before sending, so its debug message reaches observers and the session log.
            var request = template
            var refusal: RequestError?
            do {
                if fillsTemplates || template.captureFilling != nil {
                    request = try variables.request(for: template, defaultHeaders: agent.config.defaultHeaders)
                }
            } catch {
                refusal = error
            }
            if !captures.isEmpty { request.validation.captures = captures }
            let placement = RequestPlacement(group: info, index: index, label: label, lane: lane)
            let requestHandle = agent.start(request, callbacks: RequestCallbacks(
                success: { [self] response in memberEnded(index, succeeded: true, response: response, error: nil) },
                failure: { [self] failure in memberEnded(index, succeeded: false, response: failure.response, error: failure.error) },
                debug: callbacks.memberDebug
            ), placement: placement, passesGate: passesGate, refusal: refusal)
            handle.update { $0.members[index].requestID = requestHandle.id }
            started.withLock { $0[index] = .request(requestHandle) }
        case .group(let group):
            let child = GroupRunner(
                group: group, id: agent.makeID(), agent: agent, callbacks: GroupCallbacks(memberDebug: callbacks.memberDebug),
                parent: (info.id, index), lane: lane, isPriorityGate: false, passesGate: passesGate, inherited: variables,
                onFinish: { [self] childHandle in
                    let succeeded = childHandle.state == .succeeded
                    let error = succeeded ? nil : RequestError(childHandle.state == .cancelled ? .cancelled : .groupFailed,
                                                               GroupFailure(group: childHandle).description)
                    memberEnded(index, succeeded: succeeded, response: childHandle.lastResponse, error: error)
                }
            )
            handle.update { $0.members[index].child = child.handle }
            started.withLock { $0[index] = .group(child) }
            agent.groups.register(child)
            child.begin()
        }
    }

    // MARK: Reporting

    private func finish(_ verdict: GroupVerdict, wasLaunched: Bool) {
        // A group cancelled while it waited at a priority gate leaves the gate's queue.
        if !wasLaunched { _ = agent.gate.withdraw(info.id) }
        let duration = ContinuousClock.now - startedAt.withLock { $0 }
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
        agent.runCallback(lane: lane) { [onFinish] in
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
        agent.runCallback(lane: lane) {
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
    private let running = Locked<[UInt64: GroupRunner]>([:])

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
