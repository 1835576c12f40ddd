import CNCurses
import Foundation

/// Runs the app in the terminal until the user quits. The calling thread becomes the curses
/// thread: it alone reads keys and draws.
public enum TerminalApp {
    /// Redraws for events are spaced at least this far apart (about 30 per second); a key press
    /// is drawn at once.
    static let frameInterval = Duration.milliseconds(33)
    /// While something runs, the screen refreshes this often so durations and waterfalls advance.
    static let tickInterval = Duration.milliseconds(250)
    /// Events taken per loop iteration; a flood is spread over iterations so keys stay responsive.
    public static let maxEventsPerIteration = 1_000

    /// `stopRequested` is asked once per iteration: true ends the loop as a quit does, so the
    /// caller's own cleanup runs (the process's SIGTERM and SIGHUP are turned into it).
    public static func run(_ model: AppModel, observer: TUIObserver, stopRequested: @Sendable () -> Bool = { false }) {
        let screen = CursesScreen(theme: model.environment.theme)
        installSignalHandlers()
        defer {
            screen.close()
            // Not left to the model's end: the process may exit before the model is freed.
            model.logs.discardConvertedFiles()
        }
        var mouse = model.mouseEnabled
        screen.setMouse(mouse)
        var lastDraw = ContinuousClock.now - .seconds(1)
        var lastWorkspaceCheck = ContinuousClock.now
        var lastLogProgress: [Int]?
        var dirty = true
        while !model.shouldQuit, !stopRequested(), !screen.terminalLost {
            var pressed = false
            if let key = screen.readKey(timeout: 33) {
                model.handle(key)
                pressed = true
                while !model.shouldQuit, let next = screen.readKey(timeout: 0) { model.handle(next) }
            }
            let events = observer.drain(limit: maxEventsPerIteration)
            if !events.isEmpty {
                model.ingest(events)
                dirty = true
            }
            if !model.terminalRequests.isEmpty {
                for request in model.takeTerminalRequests() { carryOut(request, on: screen, for: model, stopRequested: stopRequested) }
                pressed = true
            }
            if model.mouseEnabled != mouse {
                mouse = model.mouseEnabled
                screen.setMouse(mouse)
            }
            let now = ContinuousClock.now
            // A workspace file changed elsewhere is noticed within a second, keys or not.
            if now - lastWorkspaceCheck >= .seconds(1) {
                lastWorkspaceCheck = now
                if model.noticeWorkspaceChange() { dirty = true }
            }
            // An opened log being indexed (or searched by a filter that decodes entries) is drawn
            // as it goes, and once more when done (nothing else would redraw "indexing…").
            // A followed log's title also changes when following ends, a last line waits or a
            // damaged line is appended.
            let logProgress = model.logs.opened.map { opened in
                [model.logs.isCatchingUp ? opened.index.entryCount : -1, model.logs.isCatchingUp ? opened.seen : -1,
                 opened.index.followingEnded == nil ? 0 : 1, Int(opened.index.waitingLineBytes), opened.index.skippedCount]
            }
            if logProgress != lastLogProgress {
                lastLogProgress = logProgress
                dirty = true
            }
            let ticking = model.inFlightCount > 0 || model.groups.groups.contains { $0.verdict == nil }
            if pressed || (dirty && now - lastDraw >= frameInterval) || (ticking && now - lastDraw >= tickInterval) {
                let size = screen.size
                screen.present(model.render(rows: size.rows, columns: size.columns))
                lastDraw = now
                dirty = false
            }
        }
    }

    private static func carryOut(_ request: TerminalRequest, on screen: CursesScreen, for model: AppModel, stopRequested: @Sendable () -> Bool) {
        switch request {
        case .copy(let text):
            screen.copyToClipboard(text)
        case .edit(let text, let field, let fileExtension):
            screen.suspend()
            let result = ExternalEditor.edit(text, fileExtension: fileExtension, stopRequested: stopRequested)
            screen.resume()
            model.finishExternalEdit(result, field: field)
        }
    }

    /// Restores the terminal when the process crashes or is told to quit with a core dump, then
    /// lets the signal do what it would have done. (SIGTERM and SIGHUP end the loop through
    /// `stopRequested`, so that files the interface made are removed and the log is closed.)
    private static func installSignalHandlers() {
        for signalNumber in [SIGQUIT, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP] {
            signal(signalNumber) { received in
                endwin()
                signal(received, SIG_DFL)
                raise(received)
            }
        }
    }
}
