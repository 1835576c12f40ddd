import CurlewLocking

extension Agent {
    /// Starts a batch, chain or ordered window. Its callbacks run where the config's `callbackDelivery` says.
    @discardableResult
    public func start(_ group: RequestGroup, callbacks: GroupCallbacks = GroupCallbacks()) -> GroupHandle {
        startGroup(group, callbacks: callbacks, isPriorityGate: false, onFinish: nil)
    }

    /// Runs a group to its end. Throws `GroupFailure` when it fails or is cancelled; cancelling
    /// the calling task cancels the group.
    @discardableResult
    public func run(_ group: RequestGroup) async throws -> GroupHandle {
        let slot = CancellationSlot<GroupHandle>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<GroupHandle, any Error>) in
                let handle = startGroup(group, callbacks: GroupCallbacks(
                    success: { continuation.resume(returning: $0) },
                    failure: { continuation.resume(throwing: GroupFailure(group: $0)) }
                ), isPriorityGate: false, onFinish: nil)
                if slot.store(handle) { cancel(handle) }
            }
        } onCancel: {
            if let handle = slot.markCancelled() { cancel(handle) }
        }
    }

    /// Starts a request as the priority-first gate (JKNetworking's `addPriorityFirstRequest`):
    /// every other request or group started before it finishes waits, then all are released in
    /// the order they were started, whether it succeeded or failed. If a gate is already open,
    /// this one waits its turn like everything else and opens when released.
    @discardableResult
    public func startPriorityFirst(_ request: Request, callbacks: RequestCallbacks = RequestCallbacks()) -> RequestHandle {
        let gate = gate
        let closing = Locked<UInt64?>(nil)
        var wrapped = callbacks
        wrapped.success = { response in
            callbacks.success?(response)
            closing.withLock { $0 }.map(gate.close)
        }
        wrapped.failure = { failure in
            callbacks.failure?(failure)
            closing.withLock { $0 }.map(gate.close)
        }
        let handle = start(request, callbacks: wrapped, placement: nil, passesGate: true, opensGate: true)
        closing.withLock { $0 = handle.id }
        if handle.state.isTerminal { gate.close(handle.id) }
        return handle
    }

    /// Starts a group as the priority-first gate; its own members pass, everything else waits.
    @discardableResult
    public func startPriorityFirst(_ group: RequestGroup, callbacks: GroupCallbacks = GroupCallbacks()) -> GroupHandle {
        startGroup(group, callbacks: callbacks, isPriorityGate: true, onFinish: nil)
    }

    /// Cancels a group: pending members never start, running ones are aborted, and the group
    /// ends `cancelled`. A finished group is left alone.
    public func cancel(_ group: GroupHandle) {
        cancelGroup(id: group.id)
    }

    /// Cancels one member of a group; its siblings go on unless the group's policy ends the group.
    public func cancelMember(at index: Int, of group: GroupHandle) {
        cancelMember(at: index, ofGroup: group.id)
    }

    /// Cancels a group known only by its id (as observers know groups).
    public func cancelGroup(id: UInt64) {
        groups.runner(id)?.cancel()
    }

    /// Cancels one member of a group known only by its id.
    public func cancelMember(at index: Int, ofGroup id: UInt64) {
        groups.runner(id)?.cancelMember(at: index)
    }

    private func startGroup(_ group: RequestGroup, callbacks: GroupCallbacks, isPriorityGate: Bool,
                            onFinish: (@Sendable (GroupHandle) -> Void)?) -> GroupHandle {
        let runner = GroupRunner(
            group: group, id: makeID(), agent: self, callbacks: callbacks, parent: nil, lane: laneForNewWork(),
            isPriorityGate: isPriorityGate, passesGate: isPriorityGate, onFinish: onFinish
        )
        groups.register(runner)
        runner.begin()
        return runner.handle
    }
}

