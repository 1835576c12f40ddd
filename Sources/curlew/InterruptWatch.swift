import CurlewLocking
import Foundation

/// Ctrl-C, and the SIGTERM a CI runner sends at its timeout, while a command works (or the
/// `signals` given): the first calls what `cancels(_:)` gave (the command cancels its work and
/// still writes what it owes: reports, the session log); a second ends the process at once with
/// `secondExitStatus`, when one is given. A signal the process started with ignored (a
/// background job of a non-interactive shell ignores SIGINT) stays ignored. `stop()` puts back
/// the handlers that were there before, unless an interrupt came.
final class InterruptWatch {
    /// Shared with the signal handlers, which run on a dispatch queue.
    private final class Seen: Sendable {
        /// The first signal that arrived, or 0.
        let first = Locked<Int32>(0)
        /// What an interrupt cancels (`cancels(_:)`), once the work has started.
        let cancel = Locked<(@Sendable () -> Void)?>(nil)
    }

    private let seen = Seen()
    private let sources: [any DispatchSourceSignal]
    private let previousHandlers: [(Int32, __sighandler_t?)]

    init(signals: [Int32] = [SIGINT, SIGTERM], secondMessage: String = "", secondExitStatus: Int32?) {
        let previous = signals.map { ($0, signal($0, SIG_IGN)) }
        previousHandlers = previous
        let watched = previous.filter { !Self.ignores($0.1) }.map(\.0)
        sources = watched.map { DispatchSource.makeSignalSource(signal: $0, queue: .global()) }
        let seen = seen
        for (source, number) in zip(sources, watched) {
            // The handler holds its source until `stop()` removes it.
            source.setEventHandler {
                // Two signals that arrive together are delivered as one event with a count of two.
                let again = seen.first.withLock { first in
                    defer { if first == 0 { first = number } }
                    return first != 0
                } || source.data > 1
                if again, let secondExitStatus {
                    StandardStreams.error("\ncurlew: \(secondMessage)\n")
                    Foundation.exit(secondExitStatus)
                }
                seen.cancel.withLock { $0 }?()
            }
            source.resume()
        }
    }

    /// Gives the first interrupt `cancel` to call: the work a command starts once the watch is
    /// on, so that no interrupt falls between the two (one that came already calls it now).
    func cancels(_ cancel: @escaping @Sendable () -> Void) {
        seen.cancel.withLock { $0 = cancel }
        if wasInterrupted { cancel() }
    }

    /// Whether an interrupt arrived.
    var wasInterrupted: Bool { signalNumber != nil }

    /// `wasInterrupted` for another thread to ask (the interface's loop).
    var interruptedCheck: @Sendable () -> Bool {
        let seen = seen
        return { seen.first.withLock { $0 } != 0 }
    }

    /// The first interrupting signal, if one arrived.
    var signalNumber: Int32? {
        let first = seen.first.withLock { $0 }
        return first == 0 ? nil : first
    }

    /// Whether `handler` is SIG_IGN (C function pointers are not comparable in Swift).
    private static func ignores(_ handler: __sighandler_t?) -> Bool {
        unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }

    func stop() {
        for source in sources { source.cancel(); source.setEventHandler(handler: nil) }
        // After an interrupt the command is ending as interrupted: a second signal arriving now
        // (Ctrl-C and a runner's SIGTERM sent together) must not kill it with the signal's own
        // status instead of its exit code, so the signals stay ignored.
        guard !wasInterrupted else { return }
        for (number, handler) in previousHandlers { signal(number, handler) }
    }

    /// After an interrupt, gives the watched signals back their default action, so that another
    /// one ends the process at once (a cleanup that hangs can still be stopped). Nothing before.
    func endOnNextSignal() {
        guard wasInterrupted else { return }
        for source in sources { source.cancel(); source.setEventHandler(handler: nil) }
        for (number, _) in previousHandlers { Self.restoreDefault(number) }
    }

    /// `stop()`, then `endWithSignal()`: the last thing a command that is to end by the signal
    /// that interrupted it does.
    func finish() {
        stop()
        endWithSignal()
    }

    /// Ends the process with the signal that interrupted it, as if it had not been caught (a
    /// parent sees it killed by that signal); returns when none came.
    func endWithSignal() {
        guard let signalNumber else { return }
        Self.restoreDefault(signalNumber)
        raise(signalNumber)
    }

    /// The signal's default action, unblocked in this thread (dispatch's signal sources leave it
    /// blocked in the threads they run).
    private static func restoreDefault(_ number: Int32) {
        signal(number, SIG_DFL)
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        sigaddset(&unblocked, number)
        pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
    }
}
