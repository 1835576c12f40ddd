import CurlewAgent
import CurlewWorkspace

/// Defining and editing groups in Compose: Enter on a group opens it in the editor, `N` starts a
/// new one; `s` runs it as edited, `w` saves it into the workspace file.
extension AppModel {
    /// Opens the group editor on list item `index`, with its unsaved edits if it has some.
    func openGroupEditor(at index: Int, named name: String) {
        guard let workspace else {
            message = "\(name): s runs it, then 3 shows it running"
            return
        }
        guard leaveGroupEditor() else { return }
        guard var editor = compose.groupEdits.removeValue(forKey: index) ?? workspace.groupEditor(named: name, item: index) else {
            message = "\(name) is not in \(workspace.path) any more; :reload reads it again"
            return
        }
        editor.item = index
        editor.choices = workspace.memberChoices(excluding: editor.entryName)
        compose.groupEditor = editor
        compose.focus = .editor
        say(groupKeysHint, about: .groupEditor)
    }

    /// Starts a new group in the editor (a batch of the first request until changed).
    func newGroup() {
        guard let workspace else { message = Self.noWorkspaceMessage; return }
        guard leaveGroupEditor() else { return }
        compose.keepDraft()
        compose.groupEditor = workspace.newGroupEditor()
        compose.focus = .editor
        say("a new group: ←/→ choose its kind and members, a adds a member" + (savesWorkspace ? ", w saves it" : ""), about: .groupEditor)
    }

    /// Closes the group editor (its edits kept for its list item) unless that would drop a new
    /// group never saved: then the first try says so, and only a second one drops it.
    @discardableResult
    func leaveGroupEditor() -> Bool {
        guard var editor = compose.groupEditor else { return true }
        if editor.item == nil, editor.isUnsaved, !editor.confirmingDiscard {
            editor.confirmingDiscard = true
            compose.groupEditor = editor
            // The demo's workspace is never saved, so `w` is not offered there.
            let keeping = savesWorkspace ? "w saves it" : "the demo workspace is not saved"
            message = "\(editor.name) is not saved: \(keeping); the same key again drops it"
            return false
        }
        if editor.item == nil, editor.isUnsaved { message = "dropped \(editor.name), never saved" }
        compose.closeGroupEditor()
        return true
    }

    /// The group editor's keys, named as the active key map binds them.
    var groupKeysHint: String {
        func key(_ command: Command) -> String { keyMap.label(for: command, in: .compose) ?? "?" }
        let step = compose.groupEditor?.definition.kind == .chain ? " · \(key(.stepChain)) steps" : ""
        return "\(key(.send)) runs it as edited · " + (savesWorkspace ? "\(key(.save)) saves · " : "") + "\(key(.addRow)) adds a member · \(key(.deleteRow)) removes one · "
            + "\(key(.moveUp))/\(key(.moveDown)) move it\(step) · ←/→ choose"
    }

    /// Carries out a command while the group editor has the focus; false for commands it
    /// leaves to the rest of the interface (panes, help, the palette, quitting).
    func performInGroupEditor(_ command: Command) -> Bool {
        guard var editor = compose.groupEditor else { return false }
        // Keys that leave the editor drop a new unsaved group only when pressed twice.
        let leaves = command == .back || command == .newRequest || command == .newGroup || (command == .left && !editor.field.isChoice)
        if !leaves { editor.confirmingDiscard = false }
        let count = editor.fields.count
        switch command {
        case .up: editor.fieldIndex = max(0, editor.fieldIndex - 1)
        case .down: editor.fieldIndex = min(count - 1, editor.fieldIndex + 1)
        case .pageUp: editor.fieldIndex = max(0, editor.fieldIndex - pageSize)
        case .pageDown: editor.fieldIndex = min(count - 1, editor.fieldIndex + pageSize)
        case .top: editor.fieldIndex = 0
        case .bottom: editor.fieldIndex = count - 1
        case .left, .right:
            if editor.field.isChoice {
                editor.cycle(by: command == .left ? -1 : 1)
            } else if command == .left {
                compose.groupEditor = editor
                if leaveGroupEditor() { compose.focus = .list }
                return true
            }
        case .open, .edit, .toggleRow:
            if let text = editor.text(of: editor.field), command != .toggleRow {
                editor.editing = (editor.field, LineEditor(text))
            } else if editor.field == .membersHeading {
                addMember(&editor)
            } else {
                editor.cycle(by: 1)
            }
        case .addRow: addMember(&editor)
        case .deleteRow:
            guard editor.memberIndex != nil else { message = "d removes the member under the cursor"; return true }
            editor.removeMember()
        case .moveUp, .moveDown: editor.moveMember(by: command == .moveUp ? -1 : 1)
        case .send:
            compose.groupEditor = editor
            runGroupEditor()
            return true
        case .save:
            compose.groupEditor = editor
            saveGroup()
            return true
        case .stepChain:
            compose.groupEditor = editor
            startStepping()
            return true
        case .back:
            compose.groupEditor = editor
            if leaveGroupEditor() { compose.focus = .list }
            return true
        case .newRequest:
            compose.groupEditor = editor
            return !leaveGroupEditor()
        case .newGroup:
            compose.groupEditor = editor
            newGroup()
            return true
        case .duplicate:
            var copy = editor
            copy.name = workspace?.unusedGroupName(editor.name + " copy") ?? editor.name + " copy"
            copy.entryName = nil
            copy.saved = nil
            copy.item = nil
            compose.closeGroupEditor()
            editor = copy
            message = "\(copy.name) is a copy, not saved yet" + (savesWorkspace ? ": w saves it" : "")
        case .latency:
            compose.groupEditor = editor
            startLatency()
            return true
        case .externalEdit, .prettyPrint, .copy, .history, .variables, .toggleResponse:
            message = "that works on a request; this is the group \(editor.name)"
        default:
            // Cancelling, the answer's tabs and scrolling, panes, help and the palette.
            return false
        }
        compose.groupEditor = editor
        return true
    }

    private func addMember(_ editor: inout GroupEditor) {
        if !editor.addMember() { message = "the workspace has no request to add yet: n creates one" }
    }

    /// Keys while a field of the group editor is being typed into.
    func handleGroupEditing(_ key: Key) {
        guard var editor = compose.groupEditor, let (field, startingEditor) = editor.editing else { return }
        var line = startingEditor
        switch line.handle(key) {
        case .editing:
            editor.editing = (field, line)
        case .cancelled:
            editor.editing = nil
            message = "Ready."
        case .committed:
            editor.editing = nil
            if let problem = editor.commit(line.text, to: field) {
                message = problem
                editor.editing = (field, line)
            } else {
                say(groupKeysHint, about: .groupEditor)
            }
        }
        compose.groupEditor = editor
    }

    /// The group a key for groups acts on: the group editor's, as edited, while it has the
    /// focus; else the group under the list's cursor; nil when neither is there.
    func groupToRun() throws(WorkspaceError) -> (name: String, group: RequestGroup)? {
        guard pane == .compose else { return nil }
        if compose.focus == .editor, let editor = compose.groupEditor, let workspace { return (editor.name, try workspace.runnableGroup(editor)) }
        if compose.focus == .list, compose.items.indices.contains(compose.selectedItem), case .group(let name, let group) = compose.items[compose.selectedItem] {
            return (name, try runnable(listed: group, named: name))
        }
        return nil
    }

    /// A group of the list as it runs: built again from the workspace, so one listed with a
    /// chain's captures left as templates (it only runs as that chain's step) is refused with
    /// the name it lacks.
    func runnable(listed group: RequestGroup, named name: String) throws(WorkspaceError) -> RequestGroup {
        guard let workspace else { return group }
        return try workspace.session.group(named: name)
    }

    /// Runs the group in the editor as it is edited (saved or not).
    func runGroupEditor() {
        guard let editor = compose.groupEditor, let workspace else { return }
        do {
            let group = try workspace.runnableGroup(editor)
            run(group, named: editor.name)
            if editor.isUnsaved { message += savesWorkspace ? " (as edited; w saves it)" : " (as edited)" }
        } catch {
            message = "not run: \(error)"
        }
    }

    /// Writes the group in the editor into the workspace file and lists it as saved: as the
    /// file now reads, so what counts as unsaved is what the file has.
    func saveGroup() {
        guard var editor = compose.groupEditor, var workspace else { return }
        do {
            try workspace.save(editor)
        } catch {
            message = "not saved: \(error)"
            return
        }
        self.workspace = workspace
        if let written = workspace.session.workspace.group(named: editor.name) { editor.definition = GroupDefinition(written) }
        editor.entryName = editor.name
        editor.saved = editor.definition
        editor.confirmingDiscard = false
        editor.choices = workspace.memberChoices(excluding: editor.name)
        message = "saved \(editor.name) to \(workspace.path)"
        do {
            let built = try workspace.listedGroup(named: editor.name)
            if let item = editor.item, compose.items.indices.contains(item) {
                compose.items[item] = .group(name: editor.name, built)
            } else {
                compose.items.append(.group(name: editor.name, built))
                editor.item = compose.items.count - 1
                compose.selectedItem = compose.items.count - 1
            }
        } catch {
            // Saved, but not runnable here (a variable undefined in this environment): the list
            // leaves it out, as it does when the file is read.
            message += "; it cannot be run in this environment: \(error)"
        }
        compose.groupEditor = editor
        refreshGroupItems()
    }
}
