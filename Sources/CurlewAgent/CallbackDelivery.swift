import CurlewTransport
import Dispatch

/// Which thread runs an agent's callbacks: closures, delegate methods, group and reachability
/// handlers.
public enum CallbackDelivery: String, Sendable, Equatable {
    /// The config's `callbackQueue` (the default): callbacks may take their time, transfers go on.
    case callbackQueue
    /// The agent's transfer thread (with several, the one the request was given when it started,
    /// which runs it unless it uses cookies, or for a group the one its members are given), right
    /// after the turn of its loop that finished the request:
    /// no hand-over to another thread, and a request started from a callback goes out in the same
    /// turn. Every transfer waits while a callback runs, so callbacks must be quick and must never
    /// block waiting for the agent (a semaphore, a `sync` call, a cookie call awaited by blocking);
    /// work that takes time belongs in a `Task` started from the callback. Callbacks still queued
    /// when the agent shuts down, and any later, run on `callbackQueue`.
    case transferThread
}

/// Runs the agent's callbacks where its config says, in the order they are handed over.
struct CallbackRunner: Sendable {
    let queue: DispatchQueue
    /// Set for `.transferThread`.
    let transferThread: TransferThreadJobs?

    /// `transferThreads` is the engine's number of transfer threads.
    init(config: NetworkConfig, transferThreads: Int) {
        queue = config.callbackQueue
        transferThread = config.callbackDelivery == .transferThread
            ? TransferThreadJobs(fallback: config.callbackQueue, threads: transferThreads) : nil
    }

    /// What debug messages name as the place callbacks run (the transfer thread's until the agent
    /// shuts down; the few after that run on the callback queue).
    var label: String {
        transferThread == nil ? queue.label : "curlew.transfer"
    }

    /// Runs `job` after those handed over before it for the same transfer thread `lane` (the one
    /// that runs the request or group it belongs to); on the callback queue, after all of them.
    func run(_ job: @escaping @Sendable () -> Void, lane: Int = 0) {
        if let transferThread {
            transferThread.run(job, lane: lane)
        } else {
            queue.async(execute: job)
        }
    }
}
