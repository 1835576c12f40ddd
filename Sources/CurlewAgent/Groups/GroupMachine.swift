import Foundation

/// The state of one group, changed only by `apply(_:)`: every input (launch, a member's end, a
/// chain step's decisions, a cancel) yields the effects to carry out, in order. It starts
/// nothing and calls nobody itself, so every rule is decided in one place and tested without a
/// network; `GroupRunner` carries the effects out.
struct GroupMachine: Sendable {
    struct Slot: Sendable {
        var member: GroupMember
        var captures: [Capture] = []
        var stepCallback: (@Sendable (ChainStepContext) -> Void)?
        var started = false
        var ended = false
        var succeeded = false
        /// It ended cancelled (by the caller, or skipped), not failed.
        var endedCancelled = false
        /// The caller asked to cancel it while it ran.
        var cancelRequested = false
        /// Why the group cancelled it, when another member's end ended the group. It goes with
        /// the cancel, so a request's own error and debug message say so instead of "stopped by
        /// the caller"; a nested group's error is given it when the group ends.
        var stoppedBecause: String?
    }

    enum Input: Sendable {
        /// Admitted (past any priority gate): start members.
        case launch
        /// A member's request or nested group ended.
        case memberEnded(index: Int, succeeded: Bool, response: Response?, error: RequestError?)
        /// A chain step's callback returned with these decisions.
        case stepDecided(index: Int, ChainStepContext.Decisions)
        case cancel
        /// The group holding this one (a member of it) stops it: `reason` is what its members
        /// that were running say, as a member the group itself stops does.
        case stop(because: String)
        case cancelMember(index: Int)
    }

    enum Effect: Sendable {
        /// Members are queued; the group runs.
        case launched
        /// `captures`: what a chain step must find in its answer, checked as the request's own
        /// validation, so the request itself fails (and is logged failed) when one is missing.
        case start(index: Int, member: GroupMember, variables: ChainVariables, captures: [Capture])
        /// Abort a running member; `reason`, when the group stops it, is what its error says.
        case cancel(index: Int, reason: String?)
        /// A member that never started ends as cancelled.
        case skip(index: Int)
        case memberEnded(index: Int, state: RequestState, response: Response?, error: RequestError?, captured: [CapturedValue])
        /// Run the chain step's callback (user code, outside any lock), then feed `.stepDecided`.
        case runStepCallback(index: Int, @Sendable (ChainStepContext) -> Void)
        /// Chain steps were added or replaced, and variables set.
        case stepsChanged(labels: [String], added: [(index: Int, label: String)], variables: ChainVariables)
        case finish(GroupVerdict)
    }

    let policy: GroupPolicy
    let isChain: Bool
    private(set) var slots: [Slot]
    private(set) var variables = ChainVariables()
    private(set) var launched = false
    private(set) var finished = false
    private var cancelling = false
    /// A failure that ends the group under its policy has happened.
    private var failureDecided = false
    private var earlyVerdict: GroupVerdict?
    /// A chain step whose callback has not returned yet; nothing more starts until it does.
    private var awaitingStep: Int?
    private var nextToStart = 0
    private var running = 0

    /// The default headers of the agent's config, whose credentials members' labels hide too.
    private let defaultHeaders: [HeaderField]

    /// `inherited`: what the chain this group runs in had captured when it started the group.
    /// `defaultHeaders`: the agent's config's, which every member sends.
    init(plan: RequestGroup.Plan, fillsOnly: Set<String>? = nil, inherited: ChainVariables = ChainVariables(), defaultHeaders: [HeaderField] = []) {
        self.defaultHeaders = defaultHeaders
        variables = inherited
        // A group that names none keeps the limit of the chain it runs in.
        variables.fillsOnly = fillsOnly ?? inherited.fillsOnly
        policy = GroupPolicy(plan)
        switch plan {
        case .batch(let members, _, _), .orderedWindow(let members, _):
            slots = members.map { Slot(member: $0) }
            isChain = false
        case .chain(let steps, _):
            slots = steps.map { Slot(member: $0.member, captures: $0.captures, stepCallback: $0.onFinish) }
            isChain = true
        }
    }

    /// What the group's events call `member`: its label, hiding what the default headers carry.
    func label(of member: GroupMember) -> String {
        member.label(sendingAlso: defaultHeaders)
    }

    mutating func apply(_ input: Input) -> [Effect] {
        guard !finished else { return [] }
        switch input {
        case .launch:
            // A group cancelled before its launch has already finished (above).
            launched = true
            return [.launched] + schedule()
        case .memberEnded(let index, let succeeded, let response, let error):
            return memberEnded(index, succeeded: succeeded, response: response, error: error)
        case .stepDecided(let index, let decisions):
            return stepDecided(index, decisions)
        case .cancel:
            return cancelAll(reason: nil)
        case .stop(let reason):
            return cancelAll(reason: reason)
        case .cancelMember(let index):
            guard slots.indices.contains(index), !slots[index].ended else { return [] }
            if slots[index].started {
                slots[index].cancelRequested = true
                return [.cancel(index: index, reason: nil)]
            }
            slots[index].ended = true
            slots[index].endedCancelled = true
            var effects: [Effect] = [.skip(index: index)]
            effects += failure(of: index)
            return effects + schedule()
        }
    }

    private var runningMembers: [Int] {
        slots.indices.filter { slots[$0].started && !slots[$0].ended }
    }

    private mutating func memberEnded(_ index: Int, succeeded initialSuccess: Bool, response: Response?, error initialError: RequestError?) -> [Effect] {
        guard slots.indices.contains(index), !slots[index].ended else { return [] }
        var succeeded = initialSuccess
        var error = initialError
        // A request step checks its captures itself (`ResponseValidation.captures`) and fails
        // with the first one missing: the values its checks found are kept, those before a
        // missing one too, and its answer is not read again. A group step's are read here, from
        // its last answer (whose own `captured` are an inner step's), by the same rule, and so
        // are a request step's that ended well unchecked.
        var captured: [CapturedValue] = []
        if isChain, !slots[index].captures.isEmpty, succeeded || error?.kind == .captureFailed {
            if case .request = slots[index].member, let response, !succeeded || response.captured.count == slots[index].captures.count {
                captured = response.captured
            } else {
                let found = Capture.extract(slots[index].captures, from: response)
                captured = found.captured
                if succeeded, let failure = found.failure {
                    succeeded = false
                    error = failure
                }
            }
        }
        if error?.kind == .cancelled, let reason = slots[index].stoppedBecause { error = RequestError(.cancelled, reason) }
        slots[index].ended = true
        slots[index].endedCancelled = !succeeded && error?.kind == .cancelled
        slots[index].succeeded = succeeded
        running -= 1
        for item in captured { variables.set(item.capture.name, item.value) }
        let state: RequestState = succeeded ? .succeeded : (error?.kind == .cancelled ? .cancelled : .failed)
        var effects: [Effect] = [.memberEnded(index: index, state: state, response: response, error: error, captured: captured)]
        if let callback = slots[index].stepCallback {
            awaitingStep = index
            return effects + [.runStepCallback(index: index, callback)]
        }
        if !succeeded { effects += failure(of: index) }
        return effects + schedule()
    }

    private mutating func stepDecided(_ index: Int, _ decisions: ChainStepContext.Decisions) -> [Effect] {
        guard awaitingStep == index else { return [] }
        awaitingStep = nil
        var added: [(index: Int, label: String)] = []
        for (name, value) in decisions.variables { variables.set(name, value) }
        if let next = decisions.nextRequest {
            if index + 1 < slots.count {
                // The step keeps its captures and callback; only its request changes.
                slots[index + 1].member = .request(next)
            } else {
                slots.append(Slot(member: .request(next)))
                added.append((slots.count - 1, label(of: .request(next))))
            }
        }
        for step in decisions.addedSteps {
            slots.append(Slot(member: step.member, captures: step.captures, stepCallback: step.onFinish))
            added.append((slots.count - 1, label(of: step.member)))
        }
        if let verdict = decisions.earlyVerdict { earlyVerdict = verdict }
        var effects: [Effect] = []
        if decisions.nextRequest != nil || !decisions.addedSteps.isEmpty || !decisions.variables.isEmpty {
            effects.append(.stepsChanged(labels: slots.map { label(of: $0.member) }, added: added, variables: variables))
        }
        if !slots[index].succeeded { effects += failure(of: index) }
        return effects + schedule()
    }

    /// Cancels every pending and running member; the running ones' errors say `reason` when
    /// there is one (one the caller is already cancelling keeps the caller's).
    private mutating func cancelAll(reason: String?) -> [Effect] {
        guard !cancelling else { return [] }
        cancelling = true
        guard launched else {
            for index in slots.indices { slots[index].ended = true }
            finished = true
            return slots.indices.map { .skip(index: $0) } + [.finish(.cancelled)]
        }
        let running = runningMembers
        if let reason {
            // The first reason stands, as the request's handle keeps the first it is given.
            for member in running where !slots[member].cancelRequested && slots[member].stoppedBecause == nil { slots[member].stoppedBecause = reason }
        }
        return running.map { .cancel(index: $0, reason: slots[$0].stoppedBecause) } + schedule()
    }

    /// A member failed or was cancelled: under a policy that ends the group, the running ones are
    /// cancelled and nothing more starts.
    private mutating func failure(of index: Int) -> [Effect] {
        guard !failureDecided, !cancelling, policy.endsGroup(failedIndex: index) else { return [] }
        failureDecided = true
        let running = runningMembers
        let cause = slots[index].endedCancelled ? "was cancelled" : "failed"
        // One the caller is already cancelling keeps the caller's reason.
        for member in running where !slots[member].cancelRequested {
            slots[member].stoppedBecause = "stopped by the group: member \(index + 1) (\(label(of: slots[index].member))) \(cause)"
        }
        return running.map { .cancel(index: $0, reason: slots[$0].stoppedBecause) }
    }

    /// Members that may start now, or the end when nothing more will run.
    private mutating func schedule() -> [Effect] {
        var effects: [Effect] = []
        let stopped = cancelling || failureDecided || earlyVerdict != nil
        if !stopped, awaitingStep == nil {
            while running < policy.concurrency, nextToStart < slots.count {
                let index = nextToStart
                nextToStart += 1
                guard !slots[index].ended else { continue }
                slots[index].started = true
                running += 1
                effects.append(.start(index: index, member: slots[index].member, variables: variables, captures: isChain ? slots[index].captures : []))
            }
        }
        guard running == 0, awaitingStep == nil, stopped || nextToStart >= slots.count else { return effects }
        for index in slots.indices where !slots[index].ended {
            slots[index].ended = true
            effects.append(.skip(index: index))
        }
        finished = true
        let verdict: GroupVerdict = cancelling ? .cancelled : earlyVerdict ?? policy.verdict(outcomes: slots.map(\.succeeded))
        return effects + [.finish(verdict)]
    }
}

extension Capture {
    /// What `captures` find in `response`, in order, up to the first that finds nothing, and why
    /// that one did not; the body is parsed once for all of them, and only if one reads it.
    static func extract(_ captures: [Capture], from response: Response?) -> (captured: [CapturedValue], failure: RequestError?) {
        guard let response else { return missingResponse(captures) }
        return extract(captures, statusCode: response.statusCode, header: { response.headers[$0] }, json: { try? response.json() })
    }

    /// `extract(_:from:)` for a debug message's response (the interface's chain stepper).
    public static func extract(_ captures: [Capture], from response: ResponseSnapshot?) -> (captured: [CapturedValue], failure: RequestError?) {
        guard let response else { return missingResponse(captures) }
        return extract(captures, statusCode: response.statusCode,
                       header: { name in response.headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value },
                       json: { try? JSONValue.parse(response.body.data) })
    }

    private static func missingResponse(_ captures: [Capture]) -> (captured: [CapturedValue], failure: RequestError?) {
        ([], captures.first.map { RequestError(.captureFailed, "capture \($0.name): no response") })
    }

    private static func extract(_ captures: [Capture], statusCode: Int, header: (String) -> String?,
                                json parse: () -> JSONValue?) -> (captured: [CapturedValue], failure: RequestError?) {
        var captured: [CapturedValue] = []
        var body: JSONValue??
        let json = { () -> JSONValue? in
            if let body { return body }
            let parsed = parse()
            body = .some(parsed)
            return parsed
        }
        for capture in captures {
            switch capture.extract(statusCode: statusCode, header: header, json: json) {
            case .success(let value): captured.append(CapturedValue(capture: capture, value: value))
            case .failure(let failure): return (captured, failure)
            }
        }
        return (captured, nil)
    }

    /// The captured value from a response's status, a header (by name, any case) or its JSON
    /// body: the one rule for a running chain and for a logged answer (the interface's chain
    /// stepper).
    public func extract(statusCode: Int, header: (String) -> String?, json: () -> JSONValue?) -> Result<String, RequestError> {
        switch source {
        case .status:
            return .success(String(statusCode))
        case .header(let headerName):
            guard let value = header(headerName) else {
                return .failure(RequestError(.captureFailed, "capture \(name): no \(headerName) header in the response"))
            }
            return .success(value)
        case .jsonPath(let text):
            let path: JSONPath
            do { path = try JSONPath(text) } catch { return .failure(error) }
            guard let body = json() else {
                return .failure(RequestError(.captureFailed, "capture \(name): the response body is not JSON"))
            }
            guard let value = path.evaluate(body) else {
                return .failure(RequestError(.captureFailed, "capture \(name): nothing at \(text) in the response"))
            }
            // A string as its text; any other value as JSON, `null` too (an empty string would
            // pass for a value the server never sent).
            return .success(value == .null ? "null" : value.textValue)
        }
    }
}
