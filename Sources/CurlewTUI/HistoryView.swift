import CurlewAgent
import Foundation

/// The history of one request (`H` in Compose): every exchange it had in this session and in
/// the newest session logs, newest first.
public struct HistoryState: Sendable {
    public let name: String
    public let entries: [DebugMessage]
    public var selected = 0
    /// How many of the entries (the first ones) are from this session.
    public let fromThisSession: Int

    public init(name: String, thisSession: [DebugMessage], earlier: [DebugMessage]) {
        self.name = name
        // The newest first; an exchange this session logged and also read back appears once.
        let current = thisSession.sorted { $0.startedAt > $1.startedAt }
        let seen = Set(current.map { "\($0.requestID)@\($0.startedAt.timeIntervalSince1970)" })
        entries = current + earlier.filter { !seen.contains("\($0.requestID)@\($0.startedAt.timeIntervalSince1970)") }
        fromThisSession = current.count
    }

    var selectedMessage: DebugMessage? { entries.indices.contains(selected) ? entries[selected] : nil }
}

/// Draws a request's history: when, status, time, size and URL, a row each.
enum HistoryView {
    /// `hiding`: the policy whose secrets (a URL's password and secret query parameters) the
    /// rows hide, nil while they are revealed.
    /// `canSend`: whether this window can send (it cannot when it only browses session logs).
    static func draw(_ state: inout HistoryState, hiding: RedactionPolicy?, canSend: Bool, in area: Rect, into frame: inout FrameBuffer, clock: Calendar) {
        let count = state.entries.count
        frame.put("History  \(state.name) · \(count) exchange\(count == 1 ? "" : "s") · Enter opens · m marks · = compares · Esc closes",
                  row: area.row, column: area.column + 1, style: .title, width: area.width - 2)
        guard count > 0 else {
            frame.put("Not sent in this session, and not in the newest session logs" + (canSend ? ": s sends it." : "."), row: area.row + 2, column: area.column + 1, style: .dim,
                      width: area.width - 2)
            return
        }
        frame.put(TextWidth.fit("when", to: 27) + TextWidth.fit("status", to: 8) + TextWidth.fitRight("time", to: 10) + "  " + "request",
                  row: area.row + 1, column: area.column + 2, style: .dim, width: area.width - 3)
        let visible = max(1, area.height - 2)
        state.selected = min(max(0, state.selected), count - 1)
        let scroll = max(0, state.selected - visible + 1)
        for (offset, message) in state.entries.enumerated().dropFirst(scroll).prefix(visible) {
            let row = area.row + 2 + offset - scroll
            let status = MessageRows.status(of: message)
            let time = message.timings.map { TimingBreakdown.format($0.elapsed) } ?? "-"
            let when = (offset < state.fromThisSession ? "● " : "  ") + message.startedAt.dayAndClockText(using: clock)
            let line = TextWidth.fit(when, to: 27) + TextWidth.fit(status, to: 8) + TextWidth.fitRight(time, to: 10) + "  "
                + "\(message.original?.method ?? "?") \(message.original.map { hiding?.including(credentialsOf: message).redactText($0.url) ?? $0.url } ?? "")"
            let style: Style = offset == state.selected ? .selected : MessageRows.style(of: message)
            frame.putLine(TextWidth.truncate(line, to: area.width - 2), row: row, column: area.column + 1, width: area.width - 2, style: style)
        }
    }
}

extension AppModel {
    /// Opens the history of the request under the list's cursor or in the editor.
    func openHistory() {
        guard pane == .compose, loadRequestUnderCursor(for: "history") else { return }
        let draft = compose.draft
        let name = draft.entryName ?? draft.name
        let thisSession = live.rows.compactMap(\.message).filter { $0.name == draft.name || $0.name == name }
        history = HistoryState(name: name, thisSession: thisSession, earlier: recentAnswers[name] ?? [])
        let text = switch (history?.entries.isEmpty ?? true, history?.fromThisSession ?? 0) {
        case (true, _): "no exchanges of \(name) yet"
        case (false, 0): "from earlier sessions' logs: none finished in this session yet"
        default: "● marks this session's exchanges"
        }
        say(text, about: .history)
    }

    /// Keys while a history is open; false for those it leaves to the rest (quit, help, panes).
    func handleHistory(_ key: Key) -> Bool {
        guard pane == .compose, var state = history else { return false }
        switch key {
        case .escape: history = nil; return true
        case .down, .character("j"): state.selected += 1
        case .up, .character("k"): state.selected = max(0, state.selected - 1)
        case .pageDown, .control("f"): state.selected += pageSize
        case .pageUp, .control("b"): state.selected = max(0, state.selected - pageSize)
        case .character("g"), .home: state.selected = 0
        case .character("G"), .end: state.selected = max(0, state.entries.count - 1)
        case .enter:
            if let entry = state.selectedMessage { detail = (.compose, DetailState(message: entry)) }
        case .character("m"), .character("="), .character("y"), .character("r"):
            // Marking, comparing, copying and re-sending act on the selected exchange, as they
            // do on an open one.
            guard let entry = state.selectedMessage, let command = keyMap.command(for: key, in: .detail) else { return true }
            history = command == .resend ? nil : state
            detail = (.compose, DetailState(message: entry))
            perform(command)
            if detail?.pane == .compose { detail = nil }
            return true
        case .character("q"), .control("c"), .character("?"), .character(":"), .control("p"), .tab, .backTab, .mouse, .resize,
             .character("1"), .character("2"), .character("3"), .character("4"):
            return false
        case _ where keyMap.command(for: key, in: .global) == .toggleSecrets:
            return false
        default:
            say("Esc closes the history", about: .history)
            return true
        }
        state.selected = min(state.selected, max(0, state.entries.count - 1))
        history = state
        return true
    }
}
