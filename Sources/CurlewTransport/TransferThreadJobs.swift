import Dispatch
import Foundation
import Synchronization
import CurlewLocking

/// Closures to run on an engine's transfer thread, in the order they were handed over, between
/// turns of its loop (after a turn's events went to the sink, before the next wait).
///
/// For a receiver that wants its callbacks on the thread that drives every transfer: a request
/// started from such a closure is picked up in the same turn, without waking anything. When the
/// engine stops, closures still queued and any handed over later go to `fallback`, in order, so
/// none is lost.
public final class TransferThreadJobs: Sendable {
    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var multi: MultiHandle?
        var stopped = false
    }

    private let state = Locked(State())
    /// The transfer thread's id, set once it runs; `pthread_t` is an integer on Linux.
    private let thread = Atomic<UInt>(0)
    private let fallback: DispatchQueue

    /// `fallback` runs the closures still queued when the engine stops, and any handed over later.
    public init(fallback: DispatchQueue) {
        self.fallback = fallback
    }

    /// Queues `job` for the transfer thread, waking it when it may be waiting.
    public func run(_ job: @escaping @Sendable () -> Void) {
        let wake = state.withLock { state -> MultiHandle? in
            guard !state.stopped else {
                // Under the lock, as `stop` queued the earlier ones, so the order holds.
                fallback.async(execute: job)
                return nil
            }
            let wasEmpty = state.jobs.isEmpty
            state.jobs.append(job)
            return wasEmpty ? state.multi : nil
        }
        if let wake, !isTransferThread { wake.wakeup() }
    }

    /// Whether the calling thread is the transfer thread.
    public var isTransferThread: Bool {
        let current = thread.load(ordering: .relaxed)
        return current != 0 && pthread_equal(pthread_self(), current) != 0
    }

    /// Ties the jobs to an engine's multi handle. Called once, by the engine.
    func attach(to multi: MultiHandle) {
        state.withLock { state in
            precondition(state.multi == nil, "one TransferThreadJobs serves one engine")
            state.multi = multi
        }
    }

    /// Marks the calling thread as the transfer thread. Called by the loop when it starts.
    func enterTransferThread() {
        thread.store(pthread_self(), ordering: .relaxed)
    }

    /// Whether closures wait to run.
    var hasPending: Bool {
        state.withLock { !$0.jobs.isEmpty }
    }

    /// Runs the closures queued so far (the loop calls this between turns). They are moved into
    /// `ran`, which must be empty, and stay there after running: the loop releases them, and
    /// everything they hold (a finished exchange's response, its callbacks), once the requests
    /// they started are on the wire. The two arrays change places, so neither is copied.
    func runPending(into ran: inout [@Sendable () -> Void]) {
        precondition(ran.isEmpty, "the closures a turn ran are released before the next turn takes more")
        state.withLock { state in
            guard !state.jobs.isEmpty else { return }
            swap(&state.jobs, &ran)
        }
        for job in ran { job() }
    }

    /// Sends what is queued, and whatever comes later, to the fallback queue, in order. Not run
    /// here: a thread shutting the engine down waits for the loop to end, and a callback that
    /// waited for that thread in turn would never return.
    func stop() {
        thread.store(0, ordering: .relaxed)
        state.withLock { state in
            state.stopped = true
            for job in state.jobs { fallback.async(execute: job) }
            state.jobs.removeAll()
        }
    }
}
