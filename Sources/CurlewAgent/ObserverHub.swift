import Dispatch
import CurlewLocking
import Synchronization

/// One observer's delivery lane: events queue here and one drain on the lane's serial queue
/// delivers them in order, in batches, so a busy lane costs one dispatch per batch, not per event.
///
/// A drain starts `coalescing` (5 ms) after the first event of a batch arrives. Under load that gathers
/// the events of many requests into one wake-up of the lane's thread (a wake-up costs more CPU than
/// delivering an event); observers hear every event at most that much later. Events that keep
/// `promptDrainBodyBytes` of bodies alive are drained at once instead: large responses held for
/// the coalescing time pushed the transfers' own buffers out of the CPU's cache, and a wake-up
/// is nothing beside a megabyte.
final class ObserverLane: Sendable {
    static let defaultCoalescing = DispatchTimeInterval.milliseconds(5)
    static let promptDrainBodyBytes = 1 << 20
    /// Stream items (chunks and events of streamed responses) waiting on one lane at most; past
    /// this the oldest waiting ones are dropped and counted, so a slow observer of a fast stream
    /// costs bounded memory. Other events are never dropped.
    static let maxQueuedStreamItems = 1024

    private struct Pending {
        var events: [ObserverEvent] = []
        var drainScheduled = false
        /// Body bytes the pending events keep alive, and whether a drain without delay is queued.
        var heldBodyBytes = 0
        var promptDrainScheduled = false
        var queuedStreamItems = 0
        /// Stream items dropped since the last one delivered, by request.
        var droppedStreamItems: [UInt64: Int] = [:]
    }

    let observer: any NetworkObserver
    private let coalescing: DispatchTimeInterval
    private let queue: DispatchQueue
    private let undelivered = Atomic<Int>(0)
    private let pending = Locked(Pending())

    init(observer: any NetworkObserver, label: String, coalescing: DispatchTimeInterval = ObserverLane.defaultCoalescing) {
        self.observer = observer
        self.coalescing = coalescing
        self.queue = DispatchQueue(label: label)
    }

    var backlog: Int { undelivered.load(ordering: .relaxed) }

    /// When a drain is queued for the events handed over.
    private enum DrainTiming {
        case now, afterCoalescing
    }

    func enqueue(_ events: [ObserverEvent]) {
        undelivered.add(events.count, ordering: .relaxed)
        let bodyBytes = events.reduce(0) { $0 + $1.heldBodyBytes }
        let schedule = pending.withLock { pending -> DrainTiming? in
            pending.events.append(contentsOf: events)
            pending.heldBodyBytes += bodyBytes
            let streamed = events.reduce(0) { $0 + ($1.isStreamItem ? 1 : 0) }
            if streamed > 0 {
                pending.queuedStreamItems += streamed
                var excess = pending.queuedStreamItems - Self.maxQueuedStreamItems
                if excess > 0 {
                    let dropped = excess
                    var droppedByRequest: [UInt64: Int] = [:]
                    pending.events.removeAll { event in
                        guard excess > 0, case .streamed(let info, _) = event else { return false }
                        excess -= 1
                        droppedByRequest[info.id, default: 0] += 1
                        return true
                    }
                    pending.queuedStreamItems -= dropped
                    pending.droppedStreamItems.merge(droppedByRequest, uniquingKeysWith: +)
                    undelivered.subtract(dropped, ordering: .relaxed)
                }
            }
            if pending.heldBodyBytes >= Self.promptDrainBodyBytes, !pending.promptDrainScheduled {
                pending.promptDrainScheduled = true
                pending.drainScheduled = true
                return .now
            }
            guard !pending.drainScheduled else { return nil }
            pending.drainScheduled = true
            return .afterCoalescing
        }
        switch schedule {
        case .now: queue.async { [self] in deliverPending() }
        case .afterCoalescing: queue.asyncAfter(deadline: .now() + coalescing) { [self] in deliverPending() }
        case nil: break
        }
    }

    /// Delivers what is pending as one batch and tells the observer the batch ended. Events that
    /// arrived meanwhile get the next drain, again after `coalescing`.
    private func deliverPending() {
        let (batch, dropped) = pending.withLock { pending -> ([ObserverEvent], [UInt64: Int]) in
            defer {
                pending.events.removeAll(keepingCapacity: true)
                pending.heldBodyBytes = 0
                pending.promptDrainScheduled = false
                pending.queuedStreamItems = 0
                pending.droppedStreamItems.removeAll()
            }
            return (pending.events, pending.droppedStreamItems)
        }
        if !batch.isEmpty {
            var droppedBefore = dropped
            // By index: each event is read in place, where `for event in batch` copied it first.
            for index in batch.indices {
                if batch[index].isStreamItem, case .streamed(let info, let item) = batch[index] {
                    observer.requestDidStream(StreamUpdate(request: info, item: item, droppedBefore: droppedBefore.removeValue(forKey: info.id) ?? 0))
                } else {
                    batch[index].deliver(to: observer)
                }
                undelivered.subtract(1, ordering: .relaxed)
            }
            if !droppedBefore.isEmpty {
                // Requests whose next item has not come yet hear of their drops with it.
                pending.withLock { $0.droppedStreamItems.merge(droppedBefore, uniquingKeysWith: +) }
            }
            observer.observerDidFinishBatch()
        }
        let more = pending.withLock { pending -> Bool in
            if pending.events.isEmpty { pending.drainScheduled = false }
            return !pending.events.isEmpty
        }
        if more { queue.asyncAfter(deadline: .now() + coalescing) { [self] in deliverPending() } }
    }

    /// Returns once every event enqueued before the call has been delivered, without waiting
    /// for a coalescing drain to come due.
    func drain() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { [self] in
                deliverPending()
                continuation.resume()
            }
        }
    }
}

/// Fans events out to every observer's lane without ever blocking the caller on an observer.
final class ObserverHub: Sendable {
    private let lanes = Locked<[ObserverLane]>([])

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
