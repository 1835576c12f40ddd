import CurlewLocking
import Foundation

/// Standard output and error as the commands write them. `FileHandle.write(_:)` traps when a
/// write fails (a full disk, a closed descriptor); these writes note the failure instead, and
/// the command, once it has done its work and written its reports, exits with 23, as curl does.
/// A reader that went away ends the process by SIGPIPE, as it ends `curl … | head` (an event
/// stream piped to `head` stops there), but for `curlew run`, which ignores it so that its
/// reports are still written.
enum StandardStreams {
    /// Whether a write to standard output failed: the process's one standard output, as the C
    /// library's own error flag for it is.
    private static let outputFailed = Locked(false)

    /// Ignores SIGPIPE from here on: a write to a pipe nobody reads fails instead.
    static func ignoreBrokenPipes() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// Writes `data` to standard output, after what `print` has buffered.
    static func out(_ data: Data) {
        if fflush(nil) != 0 { outputFailed.withLock { $0 = true } }
        do {
            try FileHandle.standardOutput.write(contentsOf: data)
        } catch {
            outputFailed.withLock { $0 = true }
        }
    }

    static func out(_ text: String) {
        out(Data(text.utf8))
    }

    /// Writes `text` to standard error, after what `print` has buffered; a failure there has
    /// nowhere left to be told.
    static func error(_ text: String) {
        if fflush(nil) != 0 { outputFailed.withLock { $0 = true } }
        try? FileHandle.standardError.write(contentsOf: Data(text.utf8))
    }

    /// After a command that succeeded: exits with 23, saying so on standard error, when what it
    /// wrote to standard output did not all arrive.
    static func finish() {
        guard sayIfOutputFailed() else { return }
        Foundation.exit(23)
    }

    /// Says on standard error that what was written to standard output did not all arrive, when
    /// so, and returns whether it was: a command that fails exits with its own status, but the
    /// output it lost (`curlew run --junit - > /dev/full` with a failing test) is said all the same.
    @discardableResult
    static func sayIfOutputFailed() -> Bool {
        let flushFailed = fflush(nil) != 0
        guard flushFailed || outputFailed.withLock({ $0 }) else { return false }
        error("curlew: could not write standard output (a full disk, or a pipe or file closed before the output ended)\n")
        return true
    }
}
