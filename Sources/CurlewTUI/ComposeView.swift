import CurlewAgent

/// The Compose pane: the request list on the left, the editor form on the right.
enum ComposeView {
    static func label(_ field: EditorField) -> String {
        switch field {
        case .name: "Name"
        case .folder: "Folder"
        case .method: "Method"
        case .url: "URL"
        case .paramsHeading: "Params"
        case .param: "param"
        case .headersHeading: "Headers"
        case .header: "header"
        case .bodyMode: "Body"
        case .body: "body"
        case .auth: "Auth"
        case .authUser: "user"
        case .authPassword: "password"
        case .authToken: "token"
        case .timeout: "Timeout"
        case .redirects: "Redirects"
        }
    }

    static func draw(_ model: AppModel, in area: Rect, into frame: inout FrameBuffer) {
        let compose = model.compose
        let listWidth = Layout.composeListWidth(columns: area.width)
        frame.put("Requests", row: area.row, column: 1, style: compose.focus == .list ? .title : .bold)
        let listRows = area.height - 1
        // A folder's items follow its heading, indented; a heading shows where the folder
        // changes, and a folded one stands for all it holds.
        let lines = model.composeListLines
        let selectedLine = lines.firstIndex { line in
            switch line {
            case .heading(let folder, true, _): folder == compose.selectedFolder
            case .heading: false
            case .item(let index, _): compose.selectedFolder == nil && index == compose.selectedItem
            }
        } ?? 0
        let listScroll = max(0, selectedLine - listRows + 1)
        for (offset, line) in lines.enumerated().dropFirst(listScroll).prefix(listRows) {
            let row = area.row + 1 + offset - listScroll
            let index: Int, folder: String?
            switch line {
            case .heading(let name, let folded, let count):
                // A subfolder is indented under its parent.
                let indent = String(repeating: "  ", count: max(0, name.split(separator: "/").count - 1))
                let text = indent + (folded ? " ▸ \(name) (\(count))" : " ▾ " + name)
                let selected = folded && name == compose.selectedFolder
                frame.putLine(text, row: row, column: 0, width: listWidth - 1, style: selected ? (compose.focus == .list ? .selected : .bold) : .accent)
                model.registerHit(row: row, columns: 0..<(listWidth - 1), .composeFolder(name))
                continue
            case .item(let item, let itemFolder):
                index = item
                folder = itemFolder
            }
            let depth = folder.map { $0.split(separator: "/").count } ?? 0
            let selected = compose.selectedFolder == nil && index == compose.selectedItem
            let style: Style = selected ? (compose.focus == .list ? .selected : .bold) : .plain
            let marker = compose.tracksSaves ? (compose.isUnsaved(index) ? "● " : "  ") : ""
            // The item being edited shows as it now is.
            let title = compose.currentDraft(at: index).map { ComposeItem.request($0).title } ?? compose.items[index].title
            frame.putLine(" " + String(repeating: "  ", count: depth) + marker + title, row: row, column: 0, width: listWidth - 1, style: style)
            model.registerHit(row: row, columns: 0..<(listWidth - 1), .composeItem(index))
        }
        for row in area.row..<(area.row + area.height) { frame.put("│", row: row, column: listWidth - 1, style: .dim) }

        // Wide terminals show the response beside the editor; narrow ones in its place on `v`.
        let editorColumn = listWidth + 1
        let rest = area.width - editorColumn
        if area.width >= Layout.responseBesideColumns {
            let editorWidth = rest / 2
            let besideGroupEditor = compose.focus == .editor && compose.groupEditor != nil
            drawEditor(model, in: Rect(row: area.row, column: editorColumn, height: area.height, width: editorWidth - 1), into: &frame)
            for row in area.row..<(area.row + area.height) { frame.put("│", row: row, column: editorColumn + editorWidth - 1, style: .dim) }
            let besideArea = Rect(row: area.row, column: editorColumn + editorWidth, height: area.height, width: rest - editorWidth)
            if besideGroupEditor {
                // Beside the group editor: the group as saved, member by member.
                if let item = compose.groupEditor?.item, compose.items.indices.contains(item), case .group(let name, let group) = compose.items[item] {
                    drawGroup(named: name + " (as saved)", group, in: besideArea, into: &frame, showsKeys: false)
                } else {
                    let note = model.savesWorkspace ? "Not saved yet: w writes it into the workspace file." : "Not saved: the demo workspace is never saved."
                    frame.put(note, row: area.row, column: besideArea.column + 1, style: .dim, width: besideArea.width - 2)
                }
            } else if compose.focus == .list, compose.selectedFolder != nil {
                // Nothing beside a folded folder: an answer there would be a hidden request's.
            } else if compose.showsVariables {
                VariablesView.draw(model, in: besideArea, into: &frame)
            } else if compose.focus == .list, compose.items.indices.contains(compose.selectedItem), case .group(let name, _) = compose.items[compose.selectedItem] {
                drawGroupRun(model, named: name, item: compose.selectedItem, in: besideArea, into: &frame)
            } else {
                drawResponse(model, in: besideArea, into: &frame)
            }
        } else if compose.showsVariables {
            VariablesView.draw(model, in: Rect(row: area.row, column: editorColumn - 1, height: area.height, width: rest + 1), into: &frame)
        } else if compose.showsResponse {
            drawResponse(model, in: Rect(row: area.row, column: editorColumn - 1, height: area.height, width: rest + 1), into: &frame)
        } else {
            drawEditor(model, in: Rect(row: area.row, column: editorColumn, height: area.height, width: rest), into: &frame)
        }
    }

    /// In the editor's place while the cursor is on a folded folder: what the folder holds.
    private static func drawFoldedFolder(_ folder: String, _ model: AppModel, in area: Rect, into frame: inout FrameBuffer) {
        frame.put("Folder \(folder) (folded)", row: area.row, column: area.column, style: .bold, width: area.width)
        let names = model.composeListOrder.filter { AppModel.folder(model.listFolder(at: $0), isIn: folder) }.map { model.compose.items[$0].title }
        let rows = max(0, area.height - 3)
        for (offset, name) in names.prefix(rows).enumerated() {
            frame.put("  " + name, row: area.row + 1 + offset, column: area.column, style: .dim, width: area.width)
        }
        if names.count > rows { frame.put("  … \(names.count - rows) more", row: area.row + area.height - 2, column: area.column, style: .dim, width: area.width) }
        frame.put("z, Enter or → unfolds it.", row: area.row + area.height - 1, column: area.column, style: .dim, width: area.width)
    }

    /// Beside a group selected in the list: its latest run from here, as the Groups pane draws
    /// it, or how to start one.
    private static func drawGroupRun(_ model: AppModel, named name: String, item: Int, in area: Rect, into frame: inout FrameBuffer) {
        guard let id = model.compose.groupRunIDs[item], let record = model.groups.group(id: id) else {
            frame.put("Last run", row: area.row, column: area.column + 1, style: .bold)
            let hint = model.canSend ? "\(name) has not run from here yet: s runs it, and its members show here and in Groups (3)."
                : "\(name) has not run here: this window browses session logs. Open curlew on the demo or a workspace to run it."
            putHint(hint, in: area, into: &frame)
            return
        }
        GroupsView.drawGroup(record, model: model, in: Rect(row: area.row, column: area.column + 1, height: area.height, width: area.width - 1), into: &frame)
    }

    /// A panel's hint under its title, wrapped to the panel's width (cut, its end was lost on a
    /// narrow panel) and to the rows it has.
    private static func putHint(_ hint: String, in area: Rect, into frame: inout FrameBuffer) {
        for (offset, line) in TextWidth.wrap(hint, to: area.width - 2).prefix(max(0, area.height - 2)).enumerated() {
            frame.put(line, row: area.row + 2 + offset, column: area.column + 1, style: .dim, width: area.width - 2)
        }
    }

    /// The answer to what the selected item sent last, drawn as the detail view draws it.
    private static func drawResponse(_ model: AppModel, in area: Rect, into frame: inout FrameBuffer) {
        guard var state = model.compose.response else {
            frame.put("Response", row: area.row, column: area.column + 1, style: .bold)
            let name = (model.compose.currentDraft(at: model.compose.responseItem) ?? model.compose.draft).name
            let hint = model.canSend ? "Nothing sent from \(name) yet: s sends it, and its answer shows here."
                : "Nothing sent from \(name) here: this window browses session logs. Open curlew on the demo or a workspace to send it."
            putHint(hint, in: area, into: &frame)
            return
        }
        // Lines under the answer take rows from it, so its scrolling still reaches its last line.
        var footer: [(text: String, style: Style)] = []
        if let checks = model.compose.checks, checks.requestID == state.message.requestID, checks.startedAt == state.message.startedAt {
            // A failed check names the value it found, which may be a secret (a `$.token`).
            let summary = model.secretsHiding?.redactText(checks.summary) ?? checks.summary
            // Passed is good, failed bad; unchecked (a cancelled exchange) neither.
            footer.append((summary, checks.failures.isEmpty ? (checks.unanswered ? .dim : .good) : .bad))
        }
        if model.compose.answeredEarlier {
            let when = state.message.startedAt.dayAndClockText(using: model.clock)
            footer.append(("an earlier session's answer (\(when))" + (model.canSend ? " · s sends it now" : ""), .warning))
        }
        // Each wrapped to the panel, one space in, so a narrow one loses no word of a short line;
        // a long one (a failed check's values) keeps two rows, the second ending in "…".
        let width = max(1, area.width - 1)
        footer = footer.flatMap { line in
            var rows = TextWidth.wrap(line.text, to: width)
            if rows.count > 2 { rows = [rows[0], TextWidth.truncate(rows[1] + " …", to: width)] }
            return rows.map { (" " + $0, line.style) }
        }
        let shown = min(footer.count, max(0, area.height - 3))
        DetailView.draw(&state, hiding: model.secretsHiding, in: Rect(row: area.row, column: area.column, height: area.height - shown, width: area.width), into: &frame)
        model.compose.response = state
        for (index, line) in footer.prefix(shown).enumerated() {
            frame.putLine(line.text, row: area.row + area.height - shown + index, column: area.column, width: area.width, style: line.style)
        }
    }

    /// A group selected in the list: how it runs and its members, in place of the editor.
    /// `canSend`: whether the keys that run it are named (not in a window that only browses logs).
    private static func drawGroup(named name: String, _ group: RequestGroup, in area: Rect, into frame: inout FrameBuffer, showsKeys: Bool = true,
                                  canSend: Bool = true) {
        frame.put("\(group.kind.label) \(name)", row: area.row, column: area.column, style: .title, width: area.width)
        let titleWidth = TextWidth.of("\(group.kind.label) \(name)") + 2
        if showsKeys, area.width > titleWidth {
            let keys = canSend ? "Enter edits it · s runs it · 3 shows it running" + (group.kind == .chain ? " · S steps through it" : "") : "Enter edits it"
            frame.put(keys, row: area.row,
                      column: area.column + titleWidth, style: .dim, width: area.width - titleWidth)
        }
        frame.put(group.planDescription, row: area.row + 1, column: area.column, style: .dim, width: area.width)
        let labels = group.memberLabels
        let indexWidth = String(labels.count).count + 1
        for (index, label) in labels.enumerated().prefix(area.height - 3) {
            frame.put(TextWidth.cell("\(index + 1)", width: indexWidth) + label, row: area.row + 3 + index, column: area.column, width: area.width)
        }
        if labels.count > area.height - 3 {
            frame.put("… \(labels.count - (area.height - 3)) more", row: area.row + area.height - 1, column: area.column, style: .dim)
        }
    }

    private static func drawEditor(_ model: AppModel, in area: Rect, into frame: inout FrameBuffer) {
        var compose = model.compose
        if compose.focus == .editor, compose.groupEditor != nil {
            GroupEditorView.draw(model, in: area, into: &frame)
            return
        }
        if compose.focus == .list, let folder = compose.selectedFolder {
            drawFoldedFolder(folder, model, in: area, into: &frame)
            return
        }
        // In the list, the editor shows the request under the cursor (Enter edits it).
        if compose.focus == .list, compose.stepping == nil, let preview = compose.currentDraft(at: compose.selectedItem) {
            compose.draft = preview
            compose.fieldIndex = 0
            compose.editing = nil
        }
        if compose.focus == .list, compose.items.indices.contains(compose.selectedItem), case .group(let name, let group) = compose.items[compose.selectedItem] {
            drawGroup(named: name, group, in: area, into: &frame, canSend: model.canSend)
            return
        }
        let editorColumn = area.column
        let editorWidth = area.width
        frame.put("Editor", row: area.row, column: editorColumn, style: compose.focus == .editor ? .title : .bold)
        if let stepper = compose.stepping {
            // Stepping a chain: where the run is and what it captured, instead of the usual keys.
            let captured = stepper.captured.map { capture in
                let shown = model.shownCapture(named: capture.name, value: capture.value)
                return "\(capture.name)=\(shown.count > 12 ? String(shown.prefix(12)) + "…" : shown)"
            }.joined(separator: " ")
            let state = stepper.outcome ?? "step \(stepper.index + 1)/\(stepper.stepCount) · s sends · Esc stops"
            frame.put("\(stepper.name) · \(state)" + (captured.isEmpty ? "" : " · " + captured), row: area.row, column: editorColumn + 8,
                      style: .warning, width: editorWidth - 8)
        } else {
            // The keys of the moment first, so a narrow editor still shows them; named as the
            // active key map binds them.
            let keys = model.keyMap
            func hint(_ command: Command, _ text: String) -> String? {
                guard model.offers(command) else { return nil }
                return keys.label(for: command, in: .compose).map { "\($0) \(text)" }
            }
            let wide = model.lastColumns >= Layout.responseBesideColumns
            let parts = [hint(.send, "send"), model.compose.tracksSaves ? hint(.save, "save") : nil, hint(.edit, "edit"),
                         wide ? [hint(.previousTab, ""), hint(.nextTab, "response tabs")].compactMap { $0 }.joined(separator: "").trimmingCharacters(in: .whitespaces) : hint(.toggleResponse, "response"),
                         wide ? [hint(.scrollResponseDown, ""), hint(.scrollResponseUp, "scroll")].compactMap { $0 }.joined(separator: "").trimmingCharacters(in: .whitespaces) : nil,
                         hint(.newRequest, "new"), hint(.duplicate, "duplicate"), hint(.addRow, "add"), hint(.deleteRow, "delete"), hint(.cancel, "cancel")]
            // Whole hints only: the last ones go when the row is too narrow for them, rather than
            // one cut off in the middle of its name.
            var shown = parts.compactMap { $0 }.filter { !$0.isEmpty }
            while shown.count > 1, TextWidth.of(shown.joined(separator: " · ")) > editorWidth - 8 { shown.removeLast() }
            frame.put(shown.joined(separator: " · "), row: area.row, column: editorColumn + 8, style: .dim, width: editorWidth - 8)
        }
        let fields = compose.fields
        let valueColumn = editorColumn + 11
        let valueWidth = editorWidth - 11
        // Each field takes a row; a body takes a row per line (numbered, up to a screenful) and,
        // when it is JSON, a row that says whether it parses.
        // A field that uses a variable defined nowhere is marked before anything is sent.
        let unknown = model.variableRows(for: compose.draft).filter(\.isUnknown).map { "{{\($0.name)}}" }
        func usesUnknown(_ text: String) -> Bool {
            !unknown.isEmpty && unknown.contains { text.replacingOccurrences(of: " ", with: "").contains($0) }
        }
        let rows = fields.map { field -> [(text: String, style: Style)] in
            if field == .body, compose.editing?.field != .body {
                return bodyRows(compose.draft, width: valueWidth, limit: max(3, area.height / 2)).map { usesUnknown($0.text) ? ($0.text, .bad) : $0 }
            }
            let text = value(field, of: compose.draft)
            return [(text, usesUnknown(text) ? .bad : .plain)]
        }
        var starts: [Int] = []
        var next = 0
        for block in rows { starts.append(next); next += block.count }
        let visible = area.height - 1
        let focusedIndex = min(compose.fieldIndex, fields.count - 1)
        let scroll = max(0, starts[focusedIndex] + min(rows[focusedIndex].count, visible) - visible)
        for (index, field) in fields.enumerated() {
            let focused = compose.focus == .editor && index == compose.fieldIndex
            for (line, content) in rows[index].enumerated() {
                let row = area.row + 1 + starts[index] + line - scroll
                guard row > area.row, row < area.row + area.height else { continue }
                if line == 0 { frame.put(labelColumn(field), row: row, column: editorColumn, style: focused ? .title : .dim, width: 11) }
                model.registerHit(row: row, columns: editorColumn..<(editorColumn + editorWidth), .editorField(index))
                if line == 0, let editing = compose.editing, editing.field == field {
                    frame.putLine(editing.editor.display(width: valueWidth), row: row, column: valueColumn, width: valueWidth, style: .selected)
                } else {
                    frame.putLine(content.text, row: row, column: valueColumn, width: valueWidth, style: focused && line == 0 ? .selected : content.style)
                }
                if line == 0, content.style == .bad, field != .body, !(compose.editing?.field == field) {
                    let note = " ✗ undefined · V"
                    frame.put(note, row: row, column: valueColumn + valueWidth - TextWidth.of(note), style: .bad)
                }
            }
        }
    }

    /// A body's rows: its lines numbered, the rest counted, and for JSON whether it parses.
    static func bodyRows(_ draft: RequestDraft, width: Int, limit: Int) -> [(text: String, style: Style)] {
        guard !draft.body.isEmpty else {
            return [(draft.bodyMode == .multipart ? "(empty: a part a line, name=value or name=@file;type=image/png; o opens $EDITOR)"
                : "(empty: Enter types it, o opens $EDITOR)", .dim)]
        }
        let lines = draft.body.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        let numberWidth = String(lines.count).count
        var rows: [(text: String, style: Style)] = lines.prefix(limit).enumerated().map { number, line in
            (String(repeating: " ", count: numberWidth - String(number + 1).count) + "\(number + 1) │ " + line, .plain)
        }
        if lines.count > limit { rows.append(("… \(lines.count - limit) more lines (o opens $EDITOR)", .dim)) }
        if draft.bodyMode == .json {
            rows.append(BodyCheck.jsonProblem(draft.body).map { ("✗ not JSON: " + $0, .bad) } ?? ("✓ JSON" + (lines.count == 1 && draft.body.count > width ? " · P pretty-prints" : ""), .good))
        }
        if draft.bodyMode == .multipart { rows.append(BodyCheck.multipartSummary(draft.body)) }
        if draft.bodyMode == .form { rows.append(BodyCheck.formSummary(draft.body)) }
        return rows
    }

    private static func labelColumn(_ field: EditorField) -> String {
        switch field {
        case .param, .header, .body, .authUser, .authPassword, .authToken: ""
        default: label(field)
        }
    }

    static func value(_ field: EditorField, of draft: RequestDraft) -> String {
        switch field {
        case .name: return draft.name
        case .folder: return draft.folder ?? "(top level: Enter types one, as api/users)"
        case .method: return "◂ \(draft.method) ▸"
        case .url: return draft.url.isEmpty ? "(empty: Enter to type a URL; {{name}} uses captured values or the environment)" : draft.url
        case .paramsHeading: return draft.params.isEmpty ? "+ add (a)" : "\(draft.params.filter(\.enabled).count) of \(draft.params.count) on · + add (a)"
        case .param(let index):
            let row = draft.params[index]
            return "\(row.enabled ? "☑" : "☐") \(row.name) = \(row.value)"
        case .headersHeading: return draft.headers.isEmpty ? "+ add (a)" : "\(draft.headers.filter(\.enabled).count) of \(draft.headers.count) on · + add (a)"
        case .header(let index):
            let row = draft.headers[index]
            return "\(row.enabled ? "☑" : "☐") \(row.name): \(row.value)"
        case .bodyMode: return RequestDraft.BodyMode.allCases.map { $0 == draft.bodyMode ? "[\($0.rawValue)]" : $0.rawValue }.joined(separator: " ")
        case .body: return draft.body.isEmpty ? "(empty)" : draft.body
        case .auth: return ["none", "basic", "bearer"].map { $0 == draft.auth.label ? "[\($0)]" : $0 }.joined(separator: " ")
        case .authUser: if case .basic(let user, _) = draft.auth { return "user \(user)" }; return ""
        case .authPassword: if case .basic(_, let password) = draft.auth { return "password " + (password.isEmpty ? "" : "••••••••") }; return ""
        case .authToken: if case .bearer(let token) = draft.auth { return "token " + (token.isEmpty ? "" : String(token.prefix(6)) + "…") }; return ""
        case .timeout: return draft.hasOwnTimeout ? "\(draft.timeoutSeconds) s" : "the config's (Enter sets one)"
        case .redirects: return draft.followRedirects ? "[follow] stay" : "follow [stay]"
        }
    }
}
