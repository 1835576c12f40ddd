import Dispatch
import Synchronization

/// One observer's delivery lane: events queue here and one drain on the lane's serial queue
/// delivers them in order, in batches, so a busy lane costs one dispatch per batch, not per event.
final class ObserverLane: Sendable {
    let observer: any NetworkObserver
    private let queue: DispatchQueue
    private let undelivered = Atomic<Int>(0)
    private let pending = Mutex<(events: [ObserverEvent], drainScheduled: Bool)>(([], false))

    init(observer: any NetworkObserver, label: String) {
        self.observer = observer
        self.queue = DispatchQueue(label: label)
    }

    var backlog: Int { undelivered.load(ordering: .relaxed) }

    func enqueue(_ events: [ObserverEvent]) {
        undelivered.add(events.count, ordering: .relaxed)
        let schedule = pending.withLock { pending -> Bool in
            pending.events.append(contentsOf: events)
            guard !pending.drainScheduled else { return false }
            pending.drainScheduled = true
            return true
        }
        if schedule { queue.async { [self] in deliverPending() } }
    }

    /// Delivers batches until none is left, then tells the observer each batch ended.
    private func deliverPending() {
        while true {
            let batch = pending.withLock { pending -> [ObserverEvent] in
                guard !pending.events.isEmpty else {
                    pending.drainScheduled = false
                    return []
                }
                defer { pending.events.removeAll(keepingCapacity: true) }
                return pending.events
            }
            guard !batch.isEmpty else { return }
            for event in batch {
                event.deliver(to: observer)
                undelivered.subtract(1, ordering: .relaxed)
            }
            observer.observerDidFinishBatch()
        }
    }

    /// Returns once every event enqueued before the call has been delivered: a drain already
    /// scheduled runs first on the serial queue and empties the pending events.
    func drain() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { continuation.resume() }
        }
    }
}

/// Fans events out to every observer's lane without ever blocking the caller on an observer.
final class ObserverHub: Sendable {
    private let lanes = Mutex<[ObserverLane]>([])

    func add(_ observer: any NetworkObserver) {
        lanes.withLock { lanes in
            guard !lanes.contains(where: { $0.observer === observer }) else { return }
            lanes.append(ObserverLane(observer: observer, label: "curlew.observer.\(type(of: observer))"))
        }
    }

    func remove(_ observer: any NetworkObserver) {
        lanes.withLock { $0.removeAll { $0.observer === observer } }
    }

    /// No observer is registered: events need not even be built.
    var isEmpty: Bool { lanes.withLock { $0.isEmpty } }

    func publish(_ event: ObserverEvent) {
        publish([event])
    }

    /// Queues events in order on every lane: one hand-over per lane for the whole array.
    func publish(_ events: [ObserverEvent]) {
        guard !events.isEmpty else { return }
        for lane in lanes.withLock({ $0 }) { lane.enqueue(events) }
    }

    func backlog(of observer: any NetworkObserver) -> Int {
        lanes.withLock { $0.first { $0.observer === observer }?.backlog ?? 0 }
    }

    func drain() async {
        for lane in lanes.withLock({ $0 }) { await lane.drain() }
    }
}
