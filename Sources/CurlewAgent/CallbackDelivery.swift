import CurlewTransport
import Dispatch

/// Which thread runs an agent's callbacks: closures, delegate methods, group and reachability
/// handlers.
public enum CallbackDelivery: String, Sendable, Equatable {
    /// The config's `callbackQueue` (the default): callbacks may take their time, transfers go on.
    case callbackQueue
    /// The agent's transfer thread (with several, the one that ran the request; callbacks handed
    /// over from elsewhere run on the first), right after the turn of its loop that finished the request:
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

    init(config: NetworkConfig) {
        queue = config.callbackQueue
        transferThread = config.callbackDelivery == .transferThread ? TransferThreadJobs(fallback: config.callbackQueue, threads: config.transferThreads) : nil
    }

    /// What debug messages name as the place callbacks run (the transfer thread's until the agent
    /// shuts down; the few after that run on the callback queue).
    var label: String {
        transferThread == nil ? queue.label : "curlew.transfer"
    }

    func run(_ job: @escaping @Sendable () -> Void) {
        if let transferThread {
            transferThread.run(job)
        } else {
            queue.async(execute: job)
        }
    }
}
