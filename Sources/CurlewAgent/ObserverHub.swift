import Dispatch
import CurlewLocking
import Synchronization

/// One observer's delivery lane: events queue here and one drain on the lane's serial queue
/// delivers them in order, in batches, so a busy lane costs one dispatch per batch, not per event.
///
/// A drain starts `coalescing` after the first event of a batch arrives. Under load that gathers
/// the events of many requests into one wake-up of the lane's thread (a wake-up costs more CPU than
/// delivering an event); observers hear every event at most that much later.
final class ObserverLane: Sendable {
    static let coalescing = DispatchTimeInterval.milliseconds(5)
    /// Stream items (chunks and events of streamed responses) waiting on one lane at most; past
    /// this the oldest waiting ones are dropped and counted, so a slow observer of a fast stream
    /// costs bounded memory. Other events are never dropped.
    static let maxQueuedStreamItems = 1024

    private struct Pending {
        /// Batches as the hub published them: shared by every lane, not copied into each.
        var batches: [[ObserverEvent]] = []
        var drainScheduled = false
        var queuedStreamItems = 0
        /// Stream items dropped since the last one delivered, by request.
        var droppedStreamItems: [UInt64: Int] = [:]
    }

    let observer: any NetworkObserver
    /// What the observer said it reads of a body, when it was added.
    let bodyBytesRead: BodyReadLimit
    private let queue: DispatchQueue
    private let undelivered = Atomic<Int>(0)
    private let pending = Locked(Pending())

    init(observer: any NetworkObserver, label: String) {
        self.observer = observer
        self.bodyBytesRead = observer.bodyBytesRead
        self.queue = DispatchQueue(label: label)
    }

    var backlog: Int { undelivered.load(ordering: .relaxed) }

    /// Queues `events`, of which `streamed` are stream items (counted once for every lane).
    func enqueue(_ events: [ObserverEvent], streamed: Int) {
        undelivered.add(events.count, ordering: .relaxed)
        let schedule = pending.withLock { pending -> Bool in
            pending.batches.append(events)
            if streamed > 0 {
                pending.queuedStreamItems += streamed
                let over = pending.queuedStreamItems - Self.maxQueuedStreamItems
                if over > 0 {
                    var excess = over
                    var droppedByRequest: [UInt64: Int] = [:]
                    // The oldest items go first; only the batches that hold some are copied.
                    for index in pending.batches.indices where excess > 0 && pending.batches[index].contains(where: \.isStreamItem) {
                        pending.batches[index].removeAll { event in
                            guard excess > 0, case .streamed(let shared, _) = event else { return false }
                            excess -= 1
                            droppedByRequest[shared.info.id, default: 0] += 1
                            return true
                        }
                    }
                    // What was removed, whatever `streamed` said.
                    let dropped = over - excess
                    pending.queuedStreamItems -= dropped
                    pending.droppedStreamItems.merge(droppedByRequest, uniquingKeysWith: +)
                    undelivered.subtract(dropped, ordering: .relaxed)
                }
            }
            guard !pending.drainScheduled else { return false }
            pending.drainScheduled = true
            return true
        }
        if schedule { queue.asyncAfter(deadline: .now() + Self.coalescing) { [self] in deliverPending() } }
    }

    /// Delivers what is pending as one batch and tells the observer the batch ended. Events that
    /// arrived meanwhile get the next drain, again after `coalescing`.
    private func deliverPending() {
        var batches: [[ObserverEvent]] = []
        let dropped = pending.withLock { pending -> [UInt64: Int] in
            swap(&pending.batches, &batches)
            defer {
                pending.queuedStreamItems = 0
                pending.droppedStreamItems.removeAll()
            }
            return pending.droppedStreamItems
        }
        if batches.contains(where: { !$0.isEmpty }) {
            var droppedBefore = dropped
            for batch in batches {
                batch.withUnsafeBufferPointer { events in
                    for index in events.indices {
                        ObserverEvent.deliver(events.baseAddress! + index, to: observer, droppedBefore: &droppedBefore)
                        undelivered.subtract(1, ordering: .relaxed)
                    }
                }
            }
            if !droppedBefore.isEmpty {
                // Requests not finished yet hear of their drops with their next item or their end.
                pending.withLock { $0.droppedStreamItems.merge(droppedBefore, uniquingKeysWith: +) }
            }
            observer.observerDidFinishBatch()
        }
        let more = pending.withLock { pending -> Bool in
            if pending.batches.isEmpty { pending.drainScheduled = false }
            return !pending.batches.isEmpty
        }
        if more { queue.asyncAfter(deadline: .now() + Self.coalescing) { [self] in deliverPending() } }
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
    private struct Lanes {
        var all: [ObserverLane] = []
        /// What each lane's observer reads of a body, distinct ones once, the most text first:
        /// kept beside the lanes so a request reads it without building it.
        var bodyReadLimits: [BodyReadLimit] = []

        mutating func changed() {
            bodyReadLimits = Set(all.map(\.bodyBytesRead)).sorted { ($0.text, $0.binary) > ($1.text, $1.binary) }
        }
    }

    private let lanes = Locked(Lanes())
    /// How many lanes there are, set under the lock and read without it: asked several times
    /// per request, and by every transfer thread.
    private let laneCount = Atomic(0)

    func add(_ observer: any NetworkObserver) {
        // Made outside the lock: it asks the observer what it reads.
        let lane = ObserverLane(observer: observer, label: "curlew.observer.\(type(of: observer))")
        lanes.withLock { lanes in
            guard !lanes.all.contains(where: { $0.observer === observer }) else { return }
            lanes.all.append(lane)
            lanes.changed()
            laneCount.store(lanes.all.count, ordering: .releasing)
        }
    }

    func remove(_ observer: any NetworkObserver) {
        lanes.withLock { lanes in
            lanes.all.removeAll { $0.observer === observer }
            lanes.changed()
            laneCount.store(lanes.all.count, ordering: .releasing)
        }
    }

    /// No observer is registered: events need not even be built.
    var isEmpty: Bool { laneCount.load(ordering: .acquiring) == 0 }

    /// What the observers read of a body, each distinct limit once; none without observers.
    var bodyReadLimits: [BodyReadLimit] { lanes.withLock { $0.bodyReadLimits } }

    /// Queues events in order on every lane: one hand-over per lane for the whole array.
    func publish(_ events: [ObserverEvent]) {
        guard !events.isEmpty else { return }
        let streamed = ObserverEvent.streamItemCount(in: events)
        for lane in lanes.withLock({ $0.all }) { lane.enqueue(events, streamed: streamed) }
    }

    func backlog(of observer: any NetworkObserver) -> Int {
        lanes.withLock { $0.all.first { $0.observer === observer }?.backlog ?? 0 }
    }

    func drain() async {
        for lane in lanes.withLock({ $0.all }) { await lane.drain() }
    }
}
