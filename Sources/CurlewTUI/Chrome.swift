import CurlewAgent
import CurlewSessions
import Foundation

/// A rectangle of the frame.
struct Rect {
    var row: Int
    var column: Int
    var height: Int
    var width: Int
}

/// Fixed positions shared by rendering and mouse hit-testing.
enum Layout {
    static let minimumRows = 24
    static let minimumColumns = 80
    static func composeListWidth(columns: Int) -> Int {
        min(36, columns / 3)
    }

    /// From this width on, Compose shows the response beside the editor.
    static let responseBesideColumns = 120

    static func pane(rows: Int, columns: Int) -> Rect {
        Rect(row: 1, column: 0, height: rows - 3, width: columns)
    }
}

/// The parts around the panes: tab bar, prompt line, status bar, help overlay.
enum Chrome {
    static func tabTitle(_ pane: Pane) -> String {
        " \(pane.rawValue + 1) \(pane.title) "
    }

    /// Which tab a click at `column` of the tab bar hits.
    static func tabHit(column: Int) -> Pane? {
        var start = 0
        for pane in Pane.allCases {
            let width = TextWidth.of(tabTitle(pane)) + 1
            if column >= start, column < start + width { return pane }
            start += width
        }
        return nil
    }

    static func drawTabs(_ model: AppModel, into frame: inout FrameBuffer) {
        frame.fill(row: 0, column: 0, width: frame.columns, style: .dim)
        var column = 0
        for pane in Pane.allCases {
            let title = tabTitle(pane)
            column += frame.put(title, row: 0, column: column, style: pane == model.pane ? .selected.union(.bold) : .plain) + 1
        }
        let brand = "curlew \(CurlewVersion.current)"
        let brandColumn = frame.columns - TextWidth.of(brand) - 1
        frame.put(brand, row: 0, column: brandColumn, style: .title)
        // The workspace, its environment (E switches) and what is unsaved, always in view.
        if let workspace = model.workspace {
            var parts = [(workspace.path as NSString).lastPathComponent + (workspace.isReadOnly ? " (demo)" : "")]
            if let environment = workspace.session.environment { parts.append("env \(environment)") }
            let unsaved = model.compose.unsavedCount
            if unsaved > 0 { parts.append("● \(unsaved) unsaved") }
            let label = parts.joined(separator: " · ")
            let room = brandColumn - column - 3
            if room > 8 {
                frame.put(TextWidth.truncate(label, to: room), row: 0, column: column + 2, style: unsaved > 0 ? .bad : .accent, width: room)
            }
        }
    }

    static func drawPromptLine(_ model: AppModel, into frame: inout FrameBuffer) {
        let row = frame.rows - 2
        let width = frame.columns
        switch model.prompt {
        case .filter(let editor):
            frame.put("filter: ", row: row, column: 0, style: .title)
            frame.put(editor.display(width: width - 8), row: row, column: 8)
            // The syntax error as the user types, with a caret under its position.
            if !editor.text.trimmingCharacters(in: .whitespaces).isEmpty {
                do {
                    _ = try MessageFilter.parse(editor.text)
                } catch {
                    let caret = TextWidth.of(editor.text) < width - 8 ? 8 + TextWidth.of(String(editor.text.prefix(error.position))) : 0
                    frame.putLine(String(repeating: " ", count: caret) + "^ " + error.message, row: row - 1, column: 0, width: width, style: .bad)
                }
            }
        case .command(let editor):
            frame.put(":", row: row, column: 0, style: .title)
            frame.put(editor.display(width: width - 1), row: row, column: 1)
        case .search(let editor):
            frame.put("search: ", row: row, column: 0, style: .title)
            frame.put(editor.display(width: width - 8), row: row, column: 8)
        case .confirmQuit:
            // The work may end while the question is open.
            frame.putLine(" " + (model.runningWork.map { "\($0). Quit and cancel? (y/n) " } ?? "Nothing runs now. Quit? (y/n) "), row: row, column: 0, width: width, style: .bad.union(.selected))
        case .confirmDiscard(let count):
            let question = model.runningWork.map { "\($0). Quit without saving and cancel?" } ?? "Quit without saving?"
            // Named, the first few and each cut short, so the question stays on the line.
            let names = model.compose.unsavedNames
            let named = names.prefix(3).map { TextWidth.truncate($0, to: 24) }.joined(separator: ", ") + (names.count > 3 ? " +\(names.count - 3) more" : "")
            frame.putLine(" \(count) unsaved (\(named); ● in Compose). \(question) (y/n; w in Compose saves) ", row: row, column: 0,
                          width: width, style: .bad.union(.selected))
        case .confirmDelete(let index):
            let name = model.compose.groupName(at: index).map { "group \($0)" } ?? model.compose.currentDraft(at: index)?.name ?? "this item"
            let question = model.isInWorkspaceFile(at: index) ? "Delete \(name) from the workspace file?" : "Drop \(name), never saved?"
            frame.putLine(" \(question) (y/n) ", row: row, column: 0, width: width, style: .bad.union(.selected))
        case nil:
            if let editing = model.compose.editing, model.pane == .compose {
                frame.put("edit \(ComposeView.label(editing.field)): ", row: row, column: 0, style: .title)
                if let problem = model.compose.problem(editing.editor.text, for: editing.field) {
                    frame.put(TextWidth.truncate(problem, to: width - 40), row: row, column: 14, style: .bad)
                }
                frame.put("Enter keeps, Esc discards", row: row, column: width - 26, style: .dim)
            } else {
                frame.put(TextWidth.truncate(model.message, to: width), row: row, column: 0, style: model.message.hasPrefix("filter error") ? .bad : .plain)
            }
        }
    }

    static func drawStatus(_ model: AppModel, into frame: inout FrameBuffer) {
        let row = frame.rows - 1
        let inFlight = model.inFlightCount
        // What changes how the screen reads comes first, where a narrow bar still shows it.
        var parts = model.revealsSecrets ? ["SECRETS SHOWN"] : []
        parts += [model.environment.name, "\(inFlight) in flight"]
        if let running = model.runningGroupsText { parts.append(running) }
        if let path = model.environment.sessionLogPath { parts.append("log " + path) }
        if !model.mouseEnabled { parts.append("mouse off") }
        if model.live.pausedAt != nil { parts.append("paused +\(model.live.hiddenWhilePaused)") }
        // The next keys come first: they get the room, the session's facts what is left.
        var hints = model.statusHints
        // Only where ? and q do that: not while a prompt, the palette or a field takes typed
        // keys, nor over the help, which any key closes.
        let typing = model.prompt != nil || model.palette != nil || model.showHelp
            || model.pane == .compose && (model.compose.editing != nil || model.compose.groupEditor?.editing != nil)
        let closing = typing ? [] : [model.keyMap.label(for: .help, in: .global).map { "\($0) help" },
                                     model.keyMap.label(for: .quit, in: .global).map { "\($0) quit" }].compactMap { $0 }
        func hintText() -> String { (hints + closing).joined(separator: " · ") + " " }
        while hints.count > 1, TextWidth.of(hintText()) > frame.columns * 2 / 3 { hints.removeLast() }
        let hint = hintText()
        let room = max(0, frame.columns - TextWidth.of(hint) - 1)
        frame.putLine(TextWidth.fit(" " + parts.joined(separator: " │ "), to: room) + " ", row: row, column: 0, width: frame.columns, style: .bar)
        frame.put(hint, row: row, column: max(0, frame.columns - TextWidth.of(hint)), style: .bar, width: frame.columns)
    }

    static func drawHelp(_ model: AppModel, into frame: inout FrameBuffer) {
        let area = Rect(row: 2, column: 4, height: frame.rows - 5, width: frame.columns - 8)
        var lines: [StyledLine] = [StyledLine("Keys (any other key closes; j/k scroll)", .title), StyledLine("")]
        var lastContext: KeyContext?
        // A window that only browses logs lists no key or command that sends.
        for line in model.keyMap.helpLines() where model.offers(line.command) {
            if line.context != lastContext {
                if lastContext != nil { lines.append(StyledLine("")) }
                lines.append(StyledLine(line.context.rawValue.capitalized, .bold))
                lastContext = line.context
            }
            lines.append(StyledLine("  " + TextWidth.fit(line.keys, to: 22) + model.help(for: line.command, line.help)))
        }
        lines += [StyledLine(""), StyledLine("Filter: ~m METHOD ~u regex ~c 404|4xx ~h regex ~b regex ~d host ~e ~dur >500ms ~size >1MB ! & | ( )", .dim)]
        lines += [StyledLine("Commands (:): " + model.commandLineCommands.joined(separator: " "), .dim)]
        let scroll = min(model.helpScroll, max(0, lines.count - (area.height - 2)))
        for row in 0..<area.height {
            frame.putLine("", row: area.row + row, column: area.column, width: area.width, style: .plain)
        }
        drawBox(area, title: "Help", into: &frame)
        for (offset, line) in lines.dropFirst(scroll).prefix(area.height - 2).enumerated() {
            frame.put(line.text, row: area.row + 1 + offset, column: area.column + 2, style: line.style, width: area.width - 4)
        }
    }

    static func drawBox(_ area: Rect, title: String, into frame: inout FrameBuffer) {
        let horizontal = String(repeating: "─", count: max(0, area.width - 2))
        frame.put("┌" + horizontal + "┐", row: area.row, column: area.column, style: .accent)
        frame.put("└" + horizontal + "┘", row: area.row + area.height - 1, column: area.column, style: .accent)
        for row in 1..<max(1, area.height - 1) {
            frame.put("│", row: area.row + row, column: area.column, style: .accent)
            frame.put("│", row: area.row + row, column: area.column + area.width - 1, style: .accent)
        }
        frame.put(" \(title) ", row: area.row, column: area.column + 2, style: .title)
    }

    static func drawTooSmall(_ model: AppModel, into frame: inout FrameBuffer) {
        var lines = [
            "Terminal too small",
            "Curlew needs at least \(Layout.minimumColumns)x\(Layout.minimumRows);",
            "this one is \(frame.columns)x\(frame.rows).",
            "Enlarge it, or press q to quit.",
        ]
        // A quit question stays answerable while the screen is too small to draw its bar.
        switch model.prompt {
        case .confirmQuit: lines[3] = model.runningWork.map { "\($0): quit and cancel? (y/n)" } ?? "Quit? (y/n)"
        case .confirmDiscard(let count):
            lines[3] = "\(count) unsaved" + (model.runningWork.map { ", \($0)" } ?? "") + ": quit? (y/n)"
        default: break
        }
        for (offset, line) in lines.enumerated() where offset < frame.rows {
            frame.put(TextWidth.truncate(line, to: frame.columns), row: min(frame.rows - 1, frame.rows / 2 - 2 + offset), column: 0, style: offset == 0 ? .bad : .plain)
        }
    }

    /// A bar of `width` cells filled to `fraction`.
    static func progressBar(_ fraction: Double, width: Int) -> String {
        let filled = Int((max(0, min(1, fraction)) * Double(width)).rounded())
        return String(repeating: "█", count: filled) + String(repeating: "░", count: max(0, width - filled))
    }

    /// "1 entry", "2 entries".
    static func counted(_ count: Int, _ singular: String, _ plural: String) -> String {
        "\(count) " + (count == 1 ? singular : plural)
    }

}

extension AppModel {
    /// Draws the whole screen for a terminal of this size.
    public func render(rows: Int, columns: Int) -> FrameBuffer {
        var frame = FrameBuffer(rows: rows, columns: columns)
        hitRegions.removeAll(keepingCapacity: true)
        screenTooSmall = rows < Layout.minimumRows || columns < Layout.minimumColumns
        guard !screenTooSmall else {
            Chrome.drawTooSmall(self, into: &frame)
            return frame
        }
        logs.refresh()
        revealComposeSelection()
        // A filter pattern that gave up says so once, whichever batch of entries it gave up on.
        if let gaveUp = logs.opened?.filter?.gaveUpMessage, gaveUpReportedFor != logs.opened?.filterText {
            message = gaveUp
            gaveUpReportedFor = logs.opened?.filterText
        }
        lastColumns = columns
        noticeWorkspaceChange()
        if pane == .compose { refreshComposeResponse() }
        Chrome.drawTabs(self, into: &frame)
        let area = Layout.pane(rows: rows, columns: columns)
        if var state = comparison {
            ComparisonView.draw(&state, in: area, into: &frame)
            comparison = state
        } else if var state = latency {
            LatencyView.draw(&state, in: area, into: &frame)
            latency = state
        } else if let current = detail, current.pane == pane {
            var state = current.state
            DetailView.draw(&state, hiding: secretsHiding, in: area, into: &frame)
            detail = (current.pane, state)
        } else if pane == .compose, var state = history {
            HistoryView.draw(&state, hiding: secretsHiding, canSend: canSend, in: area, into: &frame, clock: clock)
            history = state
        } else {
            switch pane {
            case .compose: ComposeView.draw(self, in: area, into: &frame)
            case .live: LiveView.draw(self, in: area, into: &frame)
            case .groups: GroupsView.draw(self, in: area, into: &frame)
            case .logs: LogsView.draw(self, in: area, into: &frame)
            }
        }
        Chrome.drawPromptLine(self, into: &frame)
        Chrome.drawStatus(self, into: &frame)
        if showHelp { Chrome.drawHelp(self, into: &frame) }
        if let palette { PaletteView.draw(palette, into: &frame) }
        return frame
    }
}
