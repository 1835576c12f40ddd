import Dispatch
import Foundation
import Synchronization
import CurlewLocking

/// Closures to run on an engine's transfer threads, each thread's in the order they were handed
/// over, between turns of its loop (after a turn's events went to the sink, before the next wait).
///
/// For a receiver that wants its callbacks on the thread that drives its transfers: the closures
/// of an exchange go to the thread that runs it (`run(_:lane:)`), so they keep their order, and a
/// request one of them starts on that thread is picked up in the same turn, without waking
/// anything. When the engine stops, closures still queued and any handed over later go to
/// `fallback`, in order, so none is lost.
public final class TransferThreadJobs: Sendable {
    /// The closures of one transfer thread.
    final class Lane: Sendable {
        struct State {
            var jobs: [@Sendable () -> Void] = []
            var multi: MultiHandle?
            var stopped = false
        }

        let state = Locked(State())
        /// The thread's id, set once it runs; `pthread_t` is an integer on Linux.
        let thread = Atomic<UInt>(0)

        var isCurrentThread: Bool {
            let current = thread.load(ordering: .relaxed)
            return current != 0 && pthread_equal(pthread_self(), current) != 0
        }
    }

    let lanes: [Lane]
    private let fallback: DispatchQueue

    /// `fallback` runs the closures still queued when the engine stops, and any handed over
    /// later. `threads` is the engine's number of transfer threads
    /// (`TransferEngine.Configuration.threadCount`).
    public init(fallback: DispatchQueue, threads: Int = 1) {
        self.fallback = fallback
        lanes = (0..<max(threads, 1)).map { _ in Lane() }
    }

    /// Queues `job` for transfer thread `lane` (the one that runs the exchange it belongs to),
    /// waking it when it may be waiting.
    public func run(_ job: @escaping @Sendable () -> Void, lane index: Int) {
        let lane = lanes[index < lanes.count ? index : 0]
        let wake = lane.state.withLock { state -> MultiHandle? in
            guard !state.stopped else {
                // Under the lock, as `stop` queued the earlier ones, so the order holds.
                fallback.async(execute: job)
                return nil
            }
            let wasEmpty = state.jobs.isEmpty
            state.jobs.append(job)
            return wasEmpty ? state.multi : nil
        }
        if let wake, !lane.isCurrentThread { wake.wakeup() }
    }

    /// Whether the calling thread is one of the engine's transfer threads.
    public var isTransferThread: Bool {
        currentLane != nil
    }

    /// The lane of the calling thread, nil off the transfer threads. With one thread, one check.
    var currentLane: Int? {
        if lanes.count == 1 { return lanes[0].isCurrentThread ? 0 : nil }
        return lanes.firstIndex { $0.isCurrentThread }
    }

    /// Ties lane `index` to a transfer thread's multi handle. Called once per lane, by the engine.
    func attach(to multi: MultiHandle, lane index: Int) {
        lanes[index].state.withLock { state in
            precondition(state.multi == nil, "one TransferThreadJobs serves one engine")
            state.multi = multi
        }
    }

    /// Marks the calling thread as lane `index`'s. Called by its loop when it starts.
    func enterTransferThread(lane index: Int) {
        lanes[index].thread.store(pthread_self(), ordering: .relaxed)
    }

    /// Marks the calling thread as no longer lane `index`'s. Called when its loop has ended and
    /// everything the loop held was released.
    func leaveTransferThread(lane index: Int) {
        lanes[index].thread.store(0, ordering: .relaxed)
    }

    /// Whether closures wait to run on lane `index`.
    func hasPending(lane index: Int) -> Bool {
        lanes[index].state.withLock { !$0.jobs.isEmpty }
    }

    /// Runs the closures queued so far on lane `index` (its loop calls this between turns). They
    /// are moved into `ran`, which must be empty, and stay there after running: the loop releases
    /// them, and everything they hold (a finished exchange's response, its callbacks), once the
    /// requests they started are on the wire. The two arrays change places, so neither is copied.
    func runPending(lane index: Int, into ran: inout [@Sendable () -> Void]) {
        precondition(ran.isEmpty, "the closures a turn ran are released before the next turn takes more")
        lanes[index].state.withLock { state in
            guard !state.jobs.isEmpty else { return }
            swap(&state.jobs, &ran)
        }
        for job in ran { job() }
    }

    /// Sends what lane `index` has queued, and whatever comes for it later, to the fallback
    /// queue, in order. Not run here: a thread shutting the engine down waits for the loop to
    /// end, and a callback that waited for that thread in turn would never return.
    func stop(lane index: Int) {
        lanes[index].state.withLock { state in
            state.stopped = true
            for job in state.jobs { fallback.async(execute: job) }
            state.jobs.removeAll()
        }
    }
}
