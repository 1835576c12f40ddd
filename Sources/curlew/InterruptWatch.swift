import CurlewLocking
import Foundation

/// Ctrl-C, and the SIGTERM a CI runner sends at its timeout, while a command works: the first
/// calls `onInterrupt` (the command cancels its work and still writes what it owes: reports, the
/// session log); a second ends the process at once with `secondExitStatus`. `stop()` puts back
/// the handlers that were there before (a command started under nohup keeps ignoring SIGINT).
final class InterruptWatch {
    /// Shared with the signal handlers, which run on a dispatch queue.
    private final class Seen: Sendable {
        let flag = Locked(false)
    }

    private let interrupted = Seen()
    private let sources: [any DispatchSourceSignal]
    private let previousHandlers: [(Int32, __sighandler_t?)]

    init(secondMessage: String, secondExitStatus: Int32, onInterrupt: @escaping @Sendable () -> Void) {
        previousHandlers = [SIGINT, SIGTERM].map { ($0, signal($0, SIG_IGN)) }
        sources = [SIGINT, SIGTERM].map { DispatchSource.makeSignalSource(signal: $0, queue: .global()) }
        let interrupted = interrupted
        for source in sources {
            // The handler holds its source until `stop()` removes it.
            source.setEventHandler {
                // Two signals that arrive together are delivered as one event with a count of two.
                let again = interrupted.flag.withLock { seen in defer { seen = true }; return seen } || source.data > 1
                if again {
                    FileHandle.standardError.write(Data("\ncurlew: \(secondMessage)\n".utf8))
                    Foundation.exit(secondExitStatus)
                }
                onInterrupt()
            }
            source.resume()
        }
    }

    /// Whether an interrupt arrived.
    var wasInterrupted: Bool { interrupted.flag.withLock { $0 } }

    func stop() {
        for source in sources { source.cancel(); source.setEventHandler(handler: nil) }
        for (number, handler) in previousHandlers { signal(number, handler) }
    }
}
