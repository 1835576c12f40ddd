import CurlewAgent
import CurlewSessions
import CurlewWorkspace
import Foundation

extension AppModel {
    func perform(_ command: Command) {
        if pane == .compose, detail?.pane != .compose, compose.focus == .editor, compose.groupEditor != nil, performInGroupEditor(command) { return }
        if let refusal = foldedHeadingRefusal, !Self.worksOnFoldedHeading.contains(command) {
            message = refusal
            return
        }
        switch command {
        case .toggleFold where pane == .compose && compose.focus == .list && context != .detail: toggleFold()
        case .toggleFold: break
        case .nextPane: switchPane(to: Pane(rawValue: (pane.rawValue + 1) % Pane.allCases.count)!)
        case .previousPane: switchPane(to: Pane(rawValue: (pane.rawValue + Pane.allCases.count - 1) % Pane.allCases.count)!)
        case .composePane: switchPane(to: .compose)
        case .livePane: switchPane(to: .live)
        case .groupsPane: switchPane(to: .groups)
        case .logsPane: switchPane(to: .logs)
        case .up: move(by: -1)
        case .down: move(by: 1)
        case .pageUp: move(by: -pageSize)
        case .pageDown: move(by: pageSize)
        case .top: move(by: -Int.max / 2)
        case .bottom: move(by: Int.max / 2)
        case .left: sideways(-1)
        case .right: sideways(1)
        case .open: open()
        case .back: back()
        case .filter:
            // Elsewhere than the Log browser, what the user types next goes into the filter of
            // this session's log, and is never taken as commands.
            goToLogToFilter()
            if logs.opened != nil {
                prompt = .filter(LineEditor(logs.opened?.filterText ?? ""))
            } else {
                message = "open a log first (Enter), then / filters it"
            }
        case .commandPrompt: prompt = .command(LineEditor())
        case .help:
            showHelp = true
            helpScroll = 0
        case .quit: requestQuit()
        case .send: send()
        case .cancel: cancel()
        case .duplicate:
            guard loadRequestUnderCursor(for: "duplicating") else { return }
            compose.duplicate()
            message = "duplicated as \(compose.draft.name)"
        case .edit: open()
        case .toggleRow: toggleRow()
        case .addRow: addRow()
        case .deleteRow: deleteRow()
        case .toggleFollow where pane == .logs:
            guard logs.opened != nil else { message = "open a log first (Enter), then f follows its newest entry"; return }
            logs.toggleFollowingNewest()
            if let ended = logs.opened?.index.followingEnded {
                message = "the file is no longer followed (\(ended)): Esc and Enter open it as it now is"
            } else {
                message = logs.opened?.followsNewest == true ? "following the log's newest entry" : "follow off"
            }
        case .toggleFollow:
            live.follow.toggle()
            if live.follow { live.selected = max(0, live.visibleCount - 1) }
            message = live.follow ? "following the newest request" : "follow off"
        case .togglePause:
            live.togglePause()
            message = live.pausedAt == nil ? "stream resumed" : "stream paused"
        case .nextTab, .previousTab:
            let delta = command == .nextTab ? 1 : -1
            if context == .detail { detail?.state.switchTab(by: delta) } else { compose.response?.switchTab(by: delta) }
        case .palette: openPalette()
        case .stepChain: startStepping()
        case .mark: markForComparison()
        case .compare: compareMarked()
        case .latency: startLatency()
        case .externalEdit: editExternally()
        case .prettyPrint: prettyPrintBody()
        case .copy: copy(.curl)
        case .save: saveDraft()
        case .newRequest:
            var names = UniqueNames(taken: compose.items.compactMap { item -> String? in if case .request(let draft) = item { draft.name } else { nil } })
            var draft = RequestDraft(name: names.claim("new request"))
            // On a folded folder's heading, the new request goes into that folder (which then unfolds).
            if compose.focus == .list, let folder = compose.selectedFolder { draft.folder = folder }
            compose.add(draft)
            message = "a new request: Enter edits a field" + (canSend ? ", s sends" : "") + (compose.tracksSaves ? ", w saves" : "")
        case .switchEnvironment: switchEnvironment()
        case .newGroup: newGroup()
        case .history: openHistory()
        case .moveUp, .moveDown: message = "< and > move a member in the group editor"
        case .variables:
            guard compose.showsVariables || loadRequestUnderCursor(for: "the variables panel") else { return }
            compose.showsVariables.toggle()
            compose.showsResponse = compose.showsVariables
            if compose.showsVariables {
                say("the variables of \(compose.draft.name) as they resolve now; V goes back", about: .variablesPanel)
            } else {
                message = "Ready."
            }
        case .toggleResponse:
            compose.showsVariables = false
            compose.showsResponse.toggle()
            if compose.showsResponse {
                say("the response of \(compose.responseLabel); v goes back to the editor", about: .responsePanel)
            } else {
                message = "editor"
            }
        case .scrollResponseUp, .scrollResponseDown:
            guard var response = compose.response else { message = canSend ? "no response yet: s sends the request" : "no response here: " + Self.noAgentMessage; return }
            response.scroll = max(0, response.scroll + (command == .scrollResponseDown ? pageSize / 2 : -pageSize / 2))
            compose.response = response
        case .search: prompt = .search(LineEditor(detail?.state.search ?? ""))
        case .nextMatch: detail?.state.nextMatch()
        case .resend: resend()
        case .toggleSecrets:
            revealsSecrets.toggle()
            if let open = comparison {
                var again = ComparisonState(open.left, open.right, hiding: secretsHiding, sources: open.sources)
                again.showsAll = open.showsAll
                again.scroll = open.scroll
                comparison = again
            }
            let key = keyMap.label(for: .toggleSecrets, in: .global) ?? ":"
            message = revealsSecrets ? "secrets revealed in exchanges: \(key) hides them again (logs and exports keep hiding them)"
                : "secrets hidden in exchanges"
        case .toggleMouse:
            mouseEnabled.toggle()
            message = mouseEnabled ? "mouse on" : "mouse off: the terminal's own text selection works"
        case .cancelMember: cancelGroupMember()
        case .clearFilter: applyFilter("")
        }
    }

    var pageSize: Int { 10 }

    private func switchPane(to next: Pane) {
        pane = next
        if next == .logs, logs.opened == nil {
            logs.refresh(directory: environment.sessionsDirectory, extraFiles: environment.extraLogFiles)
        }
    }

    /// What the keys do with the cursor on a folded folder's heading: move, unfold, and what
    /// does not act on a list item. The rest would act on an item the heading hides.
    private static let worksOnFoldedHeading: Set<Command> = [
        .nextPane, .previousPane, .composePane, .livePane, .groupsPane, .logsPane,
        .up, .down, .pageUp, .pageDown, .top, .bottom, .left, .right, .open, .edit, .back, .toggleFold,
        .filter, .commandPrompt, .help, .quit, .palette, .toggleMouse, .newRequest, .newGroup, .switchEnvironment, .toggleSecrets,
    ]

    /// Why a key or `:` command that acts on the list's item does nothing now: the cursor is
    /// on a folded folder's heading, and the item `selectedItem` still names is hidden under it.
    var foldedHeadingRefusal: String? {
        guard pane == .compose, context != .detail, compose.focus == .list, let folder = compose.selectedFolder else { return nil }
        return "\(folder) is folded: z or Enter unfolds it, then pick a request"
    }

    private func move(by delta: Int) {
        if context == .detail {
            guard var current = detail else { return }
            current.state.scroll = max(0, current.state.scroll + delta)
            detail = current
            return
        }
        switch pane {
        case .compose:
            if compose.focus == .list {
                // The cursor moves as the list shows the items (folders together), stopping on
                // a folded folder's heading.
                let stops = composeListStops
                let position = stops.firstIndex(of: composeListStop) ?? 0
                if !stops.isEmpty {
                    switch stops[clamp(position + delta, stops.count)] {
                    case .item(let index): compose.selectedItem = index
                    case .folder(let folder): compose.selectedFolder = folder
                    }
                }
            } else {
                compose.fieldIndex = clamp(compose.fieldIndex + delta, compose.fields.count)
            }
        case .live:
            live.selected = clamp(live.selected + delta, live.visibleCount)
            live.follow = live.selected == live.visibleCount - 1 && delta > 0 ? live.follow : false
        case .groups:
            if groupMembersFocused, let group = selectedGroup {
                groups.selectedMember = clamp((groups.selectedMember ?? 0) + delta, group.members.count)
            } else {
                groups.selected = clamp(groups.selected + delta, groups.groups.count)
            }
        case .logs:
            logs.moveSelection(by: max(-1_000_000, min(1_000_000, delta)))
        }
    }

    func clamp(_ value: Int, _ count: Int) -> Int {
        min(max(0, value), max(0, count - 1))
    }

    private func sideways(_ delta: Int) {
        switch pane {
        case .compose:
            if compose.focus == .list, let folder = compose.selectedFolder {
                if delta > 0 { unfold(folder) }
            } else if compose.focus == .list {
                if delta > 0 { compose.focus = .editor }
            } else if [.method, .bodyMode, .auth, .redirects].contains(compose.field) {
                compose.cycle(compose.field, by: delta)
            } else if delta < 0 {
                compose.focus = .list
            }
        case .groups:
            groupMembersFocused = delta > 0 && selectedGroup != nil
            if groupMembersFocused, groups.selectedMember == nil { groups.selectedMember = 0 }
        default:
            break
        }
    }

    /// The group the Groups pane's keys act on; none while a group just run is starting.
    var selectedGroup: GroupRecord? {
        guard groups.awaitedID == nil else { return nil }
        return groups.groups.indices.contains(groups.selected) ? groups.groups[groups.selected] : nil
    }

    private func open() {
        switch pane {
        case .compose:
            if compose.focus == .list, let folder = compose.selectedFolder {
                unfold(folder)
            } else if compose.focus == .list {
                if compose.stepping != nil { stopStepping() }
                // A group opens in the group editor; s runs it.
                if let (name, _) = compose.loadSelected() { openGroupEditor(at: compose.selectedItem, named: name) }
            } else {
                editField()
            }
        case .live:
            let visible = live.rows.prefix(live.visibleCount)
            guard visible.indices.contains(live.selected) else { return }
            let row = visible[live.selected]
            detail = (.live, DetailState(message: row.detailMessage, running: row.message == nil))
        case .groups:
            if !groupMembersFocused {
                groupMembersFocused = selectedGroup != nil
                groups.selectedMember = 0
            } else if let group = selectedGroup, let index = groups.selectedMember, group.members.indices.contains(index) {
                let member = group.members[index]
                if let row = live.rows.last(where: { $0.info.groupID == group.info.id && $0.info.step == index }), let message = row.message {
                    // Over Groups, so Esc comes back to the member (it went on to Live).
                    detail = (.groups, DetailState(message: message))
                } else if let child = member.childGroupID, let position = groups.groups.firstIndex(where: { $0.info.id == child }) {
                    groups.selected = position
                    groups.selectedMember = 0
                } else {
                    message = "no debug message for \(member.label) yet"
                }
            }
        case .logs:
            if logs.opened == nil {
                guard logs.files.indices.contains(logs.selectedFile) else { return }
                openLog(logs.files[logs.selectedFile].path)
            } else if let message = logs.selectedMessage {
                var state = DetailState(message: message)
                state.logEntry = selectedLogEntry()
                detail = (.logs, state)
            } else if let unreadable = unreadableSelectionMessage {
                message = unreadable
            }
        }
    }

    /// Opens a session log in the log browser and shows that pane.
    public func openLog(_ path: String) {
        do {
            try logs.open(path)
            // The title counts entries and skipped lines, and keeps counting while the log is
            // indexed; a count here would go stale.
            message = "opened " + (path as NSString).lastPathComponent
        } catch {
            message = error.description
        }
    }

    private func back() {
        if detail != nil, detail?.pane == pane {
            detail = nil
        } else if pane == .compose, compose.stepping != nil {
            stopStepping()
        } else if pane == .compose, compose.focus == .editor {
            compose.focus = .list
        } else if pane == .groups, groupMembersFocused {
            groupMembersFocused = false
        } else if pane == .logs, logs.opened != nil {
            let source = logs.opened?.source
            logs.close()
            // Back to the list as the files now are (the log just read may have grown or been
            // cut), on the log just read.
            logs.refresh(directory: environment.sessionsDirectory, extraFiles: environment.extraLogFiles, selecting: source)
        }
    }

    // MARK: Compose

    private func editField() {
        let field = compose.field
        switch field {
        case .paramsHeading, .headersHeading: addRow()
        case .bodyMode, .auth, .redirects: compose.cycle(field, by: 1)
        case .body where compose.draft.body.contains(where: \.isNewline):
            // A body of several lines is edited whole, in the user's editor.
            editExternally()
        default:
            if let text = compose.text(of: field) { compose.editing = (field, LineEditor(text)) }
        }
    }

    func handleEditing(_ key: Key) {
        guard let (field, startingEditor) = compose.editing else { return }
        var editor = startingEditor
        switch editor.handle(key) {
        case .editing:
            compose.editing = (field, editor)
        case .cancelled:
            compose.editing = nil
            message = "Ready."
            if case .param(let index) = field, compose.draft.params[index].name.isEmpty { compose.draft.params.remove(at: index) }
            if case .header(let index) = field, compose.draft.headers[index].name.isEmpty { compose.draft.headers.remove(at: index) }
        case .committed:
            compose.editing = nil
            if let problem = compose.commit(editor.text, to: field) {
                message = problem
                compose.editing = (field, editor)
            } else {
                message = "Ready."
            }
        }
    }

    private func toggleRow() {
        switch compose.field {
        case .param(let index): compose.draft.params[index].enabled.toggle()
        case .header(let index): compose.draft.headers[index].enabled.toggle()
        case .redirects: compose.draft.followRedirects.toggle()
        default: break
        }
    }

    private func addRow() {
        guard pane == .compose else { return }
        // From the list, to the request under the cursor (found by a new user's trial: the one
        // edited before got the row).
        guard loadRequestUnderCursor(for: "adding a row") else { return }
        compose.focus = .editor
        switch compose.field {
        case .headersHeading, .header:
            compose.draft.headers.append(KeyValueRow("", ""))
            let index = compose.draft.headers.count - 1
            compose.fieldIndex = compose.fields.firstIndex(of: .header(index)) ?? compose.fieldIndex
            compose.editing = (.header(index), LineEditor())
        default:
            compose.draft.params.append(KeyValueRow("", ""))
            let index = compose.draft.params.count - 1
            compose.fieldIndex = compose.fields.firstIndex(of: .param(index)) ?? compose.fieldIndex
            compose.editing = (.param(index), LineEditor())
        }
    }

    private func deleteRow() {
        if compose.focus == .list {
            guard compose.items.indices.contains(compose.selectedItem) else { return }
            if workspace?.isReadOnly == true, isInWorkspaceFile(at: compose.selectedItem) {
                message = "the demo workspace is not changed; open your own with curlew tui --workspace FILE"
                return
            }
            // What another group uses cannot go: say so before asking.
            if let name = listEntryName(at: compose.selectedItem), let user = workspace?.session.workspace.groups.first(where: { group in
                group.members.contains { $0.reference == .request(name) || $0.reference == .group(name) }
            }) {
                message = "\(name) is used by the group \(user.name); take it out of that group first"
                return
            }
            prompt = .confirmDelete(compose.selectedItem)
            return
        }
        switch compose.field {
        case .param(let index): compose.draft.params.remove(at: index)
        case .header(let index): compose.draft.headers.remove(at: index)
        default:
            // Said, not ignored: a field that is no row is emptied by editing it.
            let key = keyMap.label(for: .deleteRow, in: .compose) ?? "d"
            message = "\(key) removes a parameter or header row; edit this field to change or empty it"
            return
        }
        compose.fieldIndex = min(compose.fieldIndex, compose.fields.count - 1)
    }

    /// The workspace entry a list item stands for: a saved request's name, or a group's.
    func listEntryName(at index: Int) -> String? {
        compose.groupName(at: index) ?? compose.currentDraft(at: index)?.entryName
    }

    /// Whether a list item is in the workspace file (a group, a saved request), so deleting it
    /// changes the file; a request never saved is only dropped from the list.
    func isInWorkspaceFile(at index: Int) -> Bool {
        guard let name = listEntryName(at: index), let workspace else { return false }
        if compose.groupName(at: index) != nil { return true }
        return workspace.session.workspace.request(named: name) != nil
    }

    /// In Compose's list, what a key acts on is the item under the cursor: a request is loaded
    /// into the editor first; a group is refused with `action` named.
    func loadRequestUnderCursor(for action: String) -> Bool {
        guard compose.focus == .list, compose.items.indices.contains(compose.selectedItem) else { return true }
        switch compose.items[compose.selectedItem] {
        case .group(let name, _):
            // Saving a group is the group editor's: say where (found by a new user's trial).
            message = action == "saving"
                ? "\(name) is a group: Enter opens it in the group editor, where w saves it"
                : "\(action) works on a request; \(name) is a group"
            return false
        case .request:
            if compose.loadedItem != compose.selectedItem {
                _ = compose.loadSelected()
                compose.focus = .list
            }
            return true
        }
    }

    // MARK: Workspace

    /// Writes the edited request into the workspace file as its entry.
    func saveDraft() {
        // `:save` with the group editor open saves the group, as `w` there does.
        if compose.focus == .editor, compose.groupEditor != nil { saveGroup(); return }
        guard compose.stepping == nil else { say("a chain's step is not saved from the stepper: Esc ends the run, then edit the entry", about: .stepper); return }
        guard var workspace else {
            message = "no workspace to save to: start curlew in a directory with a curlew.yaml, or curlew tui --workspace FILE"
            return
        }
        // From the list, the request under the cursor, which the editor shows (found by a new
        // user's trial: the one edited before was saved).
        guard loadRequestUnderCursor(for: "saving") else { return }
        compose.keepDraft()
        guard let index = compose.loadedItem else { return }
        do {
            let (saved, summary) = try workspace.save(compose.draft, loadedAs: compose.saved[index])
            self.workspace = workspace
            compose.draft = saved
            compose.items[index] = .request(saved)
            compose.saved[index] = saved
            refreshUnchangedItems()
            refreshGroupItems()
            let moved = summary.secrets.isEmpty ? "" : "; \(summary.secrets.joined(separator: ", ")) kept in \(Workspace.secretsFileName)"
            message = "saved \(saved.name) to \(workspace.path)\(moved)"
        } catch {
            message = "not saved: \(error)"
        }
    }

    /// Adds another tool's requests (the format found from the file) to the workspace, and to
    /// the list after what is there; unsaved edits stay.
    func importFile(_ path: String) {
        guard var workspace, !workspace.isReadOnly else {
            message = "no workspace to import into: start curlew in a directory with a curlew.yaml, or curlew tui --workspace FILE"
            return
        }
        guard let importer = environment.importer else { message = "importing is not available here"; return }
        let file = (path.trimmingCharacters(in: .whitespaces) as NSString).expandingTildeInPath
        guard !file.isEmpty else { message = "import FILE: a curl, HAR, .http, Postman or OpenAPI file"; return }
        do {
            let collection = try importer(file)
            let summary = try WorkspaceWriter.add(collection, to: workspace.path)
            try workspace.reload()
            self.workspace = workspace
            for name in summary.requests {
                let draft = try workspace.draft(named: name)
                compose.items.append(.request(draft))
                compose.saved[compose.items.count - 1] = draft
            }
            for name in summary.groups { compose.items.append(.group(name: name, try workspace.session.group(named: name))) }
            let notes = collection.notes.isEmpty ? "" : " (\(collection.notes.count) note\(collection.notes.count == 1 ? "" : "s"): \(collection.notes[0]))"
            message = "imported \(summary.requests.count) request\(summary.requests.count == 1 ? "" : "s") from \(file)" + notes
        } catch {
            message = "not imported: \(error)"
        }
    }

    /// Removes a list item, and its entry from the workspace file when it has one.
    func deleteItem(at index: Int) {
        guard compose.items.indices.contains(index) else { return }
        let title = compose.currentDraft(at: index)?.name ?? listEntryName(at: index) ?? "the item"
        let inFile = isInWorkspaceFile(at: index)
        if let name = listEntryName(at: index), var workspace {
            do {
                if case .group = compose.items[index] {
                    try workspace.delete(groupNamed: name)
                } else if workspace.session.workspace.request(named: name) != nil {
                    try workspace.delete(requestNamed: name)
                }
                self.workspace = workspace
            } catch {
                message = "not deleted: \(error)"
                return
            }
        }
        compose.remove(at: index)
        refreshGroupItems()
        message = inFile ? "deleted \(title)" : "dropped \(title), never saved"
    }

    /// Requests with no unsaved edits take their entries as the file now has them (a save reads
    /// the file again, with whatever changed there meanwhile).
    private func refreshUnchangedItems() {
        guard let workspace else { return }
        for index in compose.items.indices where index != compose.loadedItem && !compose.isUnsaved(index) {
            guard let name = compose.currentDraft(at: index)?.entryName, workspace.session.workspace.request(named: name) != nil,
                  let draft = try? workspace.draft(named: name) else { continue }
            compose.items[index] = .request(draft)
            compose.saved[index] = draft
        }
    }

    /// Groups in the list built again from the workspace as it now is.
    func refreshGroupItems() {
        guard let workspace else { return }
        for (index, item) in compose.items.enumerated() {
            if case .group(let name, _) = item, let group = try? workspace.listedGroup(named: name) { compose.items[index] = .group(name: name, group) }
        }
    }

    /// The workspace's next environment: its variables resolve anew for what is sent next.
    private func switchEnvironment() {
        guard let workspace else { message = Self.noWorkspaceMessage; return }
        let names = workspace.session.workspace.environmentNames
        guard !names.isEmpty else { message = "\(workspace.path) defines no environments"; return }
        useEnvironment(names[((workspace.session.environment.flatMap { names.firstIndex(of: $0) } ?? -1) + 1) % names.count])
    }

    /// The workspace in the environment `name` from now on (`E`, `:env NAME`).
    private func useEnvironment(_ name: String) {
        guard var workspace else { message = Self.noWorkspaceMessage; return }
        do {
            try workspace.reload(environment: name)
            self.workspace = workspace
            refreshGroupItems()
            message = "environment \(name)" + (environmentSettingsKept(by: workspace).map { "; \($0)" } ?? "")
        } catch {
            // An environment the workspace lacks is a message of its own; a broken file says where.
            message = error.keyPath == "environments" ? error.message : "environment \(name): \(error)"
        }
    }

    /// What of the chosen environment's config the running agent does not take (it has its
    /// connections and cookie jar from the start), said when they differ; nil when none does.
    private func environmentSettingsKept(by workspace: ComposeWorkspace) -> String? {
        guard let running = environment.agent?.config else { return nil }
        let chosen = workspace.session.config
        var kept: [String] = []
        if chosen.maxConnectionsPerHost != running.maxConnectionsPerHost || chosen.maxTotalConnections != running.maxTotalConnections {
            kept.append("its connection limits")
        }
        if chosen.cookies != running.cookies { kept.append("its cookie settings") }
        guard !kept.isEmpty else { return nil }
        let name = workspace.session.environment ?? ""
        // Named only when a shell takes it as it is.
        let startIn = !name.isEmpty && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) } ? " (--env \(name))" : ""
        return kept.joined(separator: " and ") + " take effect when curlew is started in it" + startIn
    }

    /// Reads the workspace file again: Compose lists it as it now is, edits not saved are dropped.
    func reloadWorkspace() {
        guard var workspace else { message = Self.noWorkspaceMessage; return }
        do {
            try workspace.reload()
            let items = try workspace.items()
            self.workspace = workspace
            let selectedName = compose.currentDraft(at: compose.selectedItem)?.entryName
            let selectedGroup = compose.groupName(at: compose.selectedItem)
            let sent = compose.sentIDs.compactMap { entry in compose.currentDraft(at: entry.key)?.entryName.map { ($0, entry.value) } }
            // A group's last run stays beside it, wherever the file now lists it.
            let groupRuns = compose.groupRunIDs.compactMap { entry in compose.groupName(at: entry.key).map { ($0, entry.value) } }
            let (focus, fieldIndex) = (compose.focus, compose.fieldIndex)
            // A saved group open in the editor stays open, on the same field.
            let openGroup = compose.groupEditor.flatMap { editor in editor.entryName.map { (name: $0, field: editor.fieldIndex) } }
            let (folded, onFolder) = (compose.foldedFolders, compose.selectedFolder)
            compose = ComposeState(items: items, tracksSaves: !workspace.isReadOnly)
            compose.foldedFolders = folded
            func position(ofEntry name: String) -> Int? {
                items.firstIndex { if case .request(let draft) = $0 { draft.entryName == name } else { false } }
            }
            for (name, id) in sent {
                if let index = position(ofEntry: name) { compose.sentIDs[index] = id }
            }
            for (name, id) in groupRuns {
                if let index = compose.position(ofGroup: name) { compose.groupRunIDs[index] = id }
            }
            if selectedName == nil, let selectedGroup, let index = compose.position(ofGroup: selectedGroup) { compose.selectedItem = index }
            if let selectedName, let index = position(ofEntry: selectedName) {
                compose.selectedItem = index
                compose.loadedItem = index
                if case .request(let draft) = items[index] { compose.draft = draft }
                // Reading the file again does not move the user: the same item, the same field.
                compose.focus = focus
                compose.fieldIndex = min(fieldIndex, compose.fields.count - 1)
            }
            if let openGroup, let index = compose.position(ofGroup: openGroup.name) {
                compose.selectedItem = index
                openGroupEditor(at: index, named: openGroup.name)
                if let count = compose.groupEditor?.fields.count { compose.groupEditor?.fieldIndex = min(openGroup.field, count - 1) }
            }
            // The cursor stays on the folded folder it was on (gone from the file, it goes back to an item).
            if let onFolder, compose.focus == .list { compose.selectedFolder = onFolder }
            message = "read \(workspace.path) again"
        } catch {
            // A workspace error names its file (and line) itself.
            let reason = "\(error)"
            message = reason.hasPrefix(workspace.path) ? reason : "\(workspace.path): \(reason)"
        }
    }

    /// A change to the workspace file made elsewhere is read at once when nothing is unsaved,
    /// and reported once otherwise.
    /// Returns whether it did anything (the screen then needs drawing).
    @discardableResult
    func noticeWorkspaceChange() -> Bool {
        // Not while the user is in the middle of something (a prompt, a field, an overlay).
        guard var workspace, workspace.changedElsewhere, prompt == nil, palette == nil, compose.editing == nil, compose.groupEditor?.editing == nil,
              compose.stepping == nil, comparison == nil, latency == nil else { return false }
        if compose.unsavedCount == 0 {
            reloadWorkspace()
            // A file that does not read is reported once, not on every frame.
            if self.workspace?.changedElsewhere == true {
                workspace.acknowledgeChange()
                self.workspace = workspace
            }
        } else {
            workspace.acknowledgeChange()
            self.workspace = workspace
            message = "\(workspace.path) changed on disk; :reload reads it (dropping unsaved edits)"
        }
        return true
    }

    /// The request Compose's editor stands for now: through the workspace when one is open
    /// (its entry's other fields, the environment, captured values), else from the draft alone.
    /// Sending, copying and latency mode all use it.
    /// The request a draft makes. Every path that sends it (s, latency mode) is refused while a
    /// row switched back on still holds the marker from a record, which would go out as the
    /// credential; copying it as a command (`forSending: false`) keeps the marker visible.
    func requestToSend(_ draft: RequestDraft? = nil, forSending: Bool = true) throws(RequestError) -> Request {
        let draft = draft ?? compose.draft
        if forSending {
            try draft.checkURLGiven()
            try draft.checkNothingHidden()
        }
        if let workspace { return try workspace.request(for: draft, captured: groups.capturedVariables) }
        return try draft.makeRequest(variables: variables)
    }

    /// Captured chain values, then the process environment, for `{{name}}`.
    var variables: ChainVariables {
        ChainVariables(environment.processEnvironment.map { ($0.key, $0.value) } + groups.capturedVariables)
    }

    func send() {
        guard let agent = environment.agent else {
            message = Self.noAgentMessage
            return
        }
        if compose.stepping != nil {
            sendStep()
            return
        }
        if compose.focus == .editor, compose.groupEditor != nil {
            runGroupEditor()
            return
        }
        // s on a list item runs that group or sends that request, not the draft last edited.
        if compose.focus == .list, compose.items.indices.contains(compose.selectedItem), case .group = compose.items[compose.selectedItem] {
            do {
                if let (name, group) = try groupToRun() { run(group, named: name, item: compose.selectedItem) }
            } catch {
                message = "not run: \(error)"
            }
            return
        }
        guard loadRequestUnderCursor(for: "sending") else { return }
        do {
            var request = try requestToSend()
            // Streamed, so a running request's detail shows its events as they come.
            request.streamsResponse = true
            compose.keepDraft()
            let handle = agent.start(request)
            compose.noteSent(handle)
            if let index = compose.loadedItem { compose.sentIDs[index] = handle.id }
            // The answer takes the variables panel's place (at 80 columns too: V showed the
            // response side).
            compose.showsVariables = false
            let whereShown = lastColumns >= Layout.responseBesideColumns || compose.showsResponse ? "its answer shows beside the editor" : "v shows its answer"
            // A name that already says its method (`POST /hello`, from a paste) is not told twice.
            let method = compose.draft.method
            let label = compose.draft.name.hasPrefix(method + " ") ? compose.draft.name : "\(method) \(compose.draft.name)"
            message = "sent \(label) as #\(handle.id); \(whereShown)"
            announcedSend = (handle.id, message)
        } catch {
            message = "not sent: \(error.message)"
        }
    }

    /// Runs a group; `item`, its place in the Compose list, shows its run beside the editor.
    func run(_ group: RequestGroup, named name: String, item: Int? = nil) {
        guard let agent = environment.agent else { return }
        // It would succeed at once, having run nothing: a group still being put together.
        if let problem = group.emptyGroupProblem(named: name) { message = "not run: \(problem) (a in a group's editor adds one)"; return }
        var group = group
        do {
            if let workspace { group = try workspace.inEnvironment(group) }
        } catch {
            message = "not run: \(error.message)"
            return
        }
        if group.name == nil { group.name = name }
        let handle = agent.start(group)
        compose.lastGroup = handle
        groups.awaitRun(id: handle.id)
        groupMembersFocused = false
        if let item { compose.groupRunIDs[item] = handle.id }
        message = "running \(group.kind.label) \(name); 3 shows it live"
    }

    private func cancel() {
        guard let agent = environment.agent else { return }
        switch pane {
        case .groups:
            if let starting = groups.awaitedID {
                agent.cancelGroup(id: starting)
                message = "cancelling group #\(starting)"
                return
            }
            guard let group = selectedGroup, group.verdict == nil else { message = "no running group selected"; return }
            agent.cancelGroup(id: group.info.id)
            message = "cancelling \(group.info.kind.label) #\(group.info.id)"
        default:
            if let group = compose.lastGroup, !group.state.isTerminal {
                agent.cancel(group)
                message = "cancelling the group"
            } else if case let running = compose.takeRunning(), let last = running.last {
                // Every request still running that the editor sent, not only the last one.
                for handle in running { agent.cancel(handle) }
                if running.count == 1 {
                    message = "cancelling #\(last.id)"
                    cancelling = (.request(last.id), message)
                } else {
                    message = "cancelling " + running.map { "#\($0.id)" }.joined(separator: ", ")
                }
            } else {
                message = "nothing in flight from this editor"
            }
        }
    }

    private func cancelGroupMember() {
        guard let agent = environment.agent, let group = selectedGroup, let index = groups.selectedMember, groupMembersFocused else {
            message = "select a member first (→ or Enter)"
            return
        }
        if group.members.indices.contains(index), group.members[index].state.isTerminal {
            message = "member #\(index + 1) already \(group.members[index].state.rawValue)"
            return
        }
        agent.cancelMember(at: index, ofGroup: group.info.id)
        message = "cancelling member #\(index + 1)"
        cancelling = (.member(group: group.info.id, index: index), message)
    }

    /// Filters work on session logs: goes to the Log browser, opening this session's log there
    /// when it is asked from another pane or no log is open (`/` and `:filter` alike).
    private func goToLogToFilter() {
        if pane != .logs || logs.opened == nil, let path = environment.sessionLogPath,
           FileManager.default.fileExists(atPath: path), logs.opened?.path != path {
            switchPane(to: .logs)
            openLog(path)
        }
        if pane != .logs { switchPane(to: .logs) }
    }

    private func resend() {
        let source: DebugMessage?
        if let detail, detail.pane == pane {
            source = detail.state.message
        } else if pane == .live {
            let visible = live.rows.prefix(live.visibleCount)
            source = visible.indices.contains(live.selected) ? visible[live.selected].message : nil
        } else {
            source = logs.selectedMessage
        }
        guard let source else { message = unreadableSelectionMessage ?? "select a finished request to re-send"; return }
        compose.addNumbered(RequestDraft(source))
        pane = .compose
        // Said, since the record keeps no redirect setting: it is read from how the exchange ended.
        let stays = compose.draft.followRedirects ? "" : " (redirects stay, as it ended at one)"
        if let hidden = RequestDraft.hiddenSummary(of: source) {
            message = "loaded into Compose\(stays); " + hidden
        } else {
            let keeps = workspace == nil || workspace?.isReadOnly == true ? nil : "w keeps it in the workspace"
            let keys = [canSend ? "s sends" : nil, keeps].compactMap { $0 }
            message = "loaded into Compose\(stays)" + (keys.isEmpty ? "" : "; " + keys.joined(separator: ", "))
        }
    }

    // MARK: Mouse and command line

    func handleMouse(_ event: MouseEvent) {
        guard mouseEnabled, !screenTooSmall else { return }
        switch event.kind {
        case .wheelUp: move(by: -3)
        case .wheelDown: move(by: 3)
        case .click:
            if event.row == 0 {
                if let hit = Chrome.tabHit(column: event.column) { switchPane(to: hit) }
                return
            }
            switch hitTarget(row: event.row, column: event.column) {
            case .composeItem(let index):
                guard leaveGroupEditor() else { return }
                compose.focus = .list
                compose.selectedItem = clamp(index, compose.items.count)
            case .composeFolder(let folder):
                guard leaveGroupEditor() else { return }
                compose.focus = .list
                if compose.foldedFolders.contains(folder) { unfold(folder) } else { fold(folder) }
            case .editorField(let index):
                // A click on the request the list previews edits that one.
                if compose.focus == .list, compose.selectedItem != compose.loadedItem { _ = compose.loadSelected() }
                compose.focus = .editor
                compose.fieldIndex = clamp(index, compose.fields.count)
            case .groupField(let index):
                compose.focus = .editor
                if let count = compose.groupEditor?.fields.count { compose.groupEditor?.fieldIndex = clamp(index, count) }
            case .liveRow(let index):
                live.selected = clamp(index, live.visibleCount)
                live.follow = false
            case .group(let index):
                groups.selected = clamp(index, groups.groups.count)
            case .logFile(let index):
                logs.moveSelection(by: index - logs.selectedFile)
            case .logEntry(let index):
                logs.moveSelection(by: index - (logs.opened?.selected ?? 0))
            case nil:
                break
            }
        }
    }

    /// The commands that take no words after their name.
    static let commandsWithoutArgument: Set<String> = ["send", "cancel", "quit", "q", "help", "follow", "pause", "compare", "reload", "save"]

    func runCommandLine(_ line: String) {
        let parts = line.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1).map(String.init)
        guard let name = parts.first else { return }
        let argument = parts.count > 1 ? parts[1] : ""
        if let refusal = refusal(ofCommandLine: name) {
            message = refusal
            return
        }
        // Words a command takes none of are refused, not dropped (found by a new user's trial:
        // `:quit now` quit, `:send extra` sent).
        if !argument.trimmingCharacters(in: .whitespaces).isEmpty, Self.commandsWithoutArgument.contains(name) {
            message = ":\(name) takes nothing after it; nothing was done"
            return
        }
        switch name {
        case "send": send()
        case "cancel": cancel()
        case "quit", "q": requestQuit()
        case "help": showHelp = true
        case "follow": perform(.toggleFollow)
        case "pause": perform(.togglePause)
        case "mouse":
            guard ["on", "off", ""].contains(argument) else { message = "mouse on or mouse off"; return }
            mouseEnabled = argument != "off"
            message = mouseEnabled ? "mouse on" : "mouse off"
        case "pane":
            if let target = Pane.allCases.first(where: { $0.title.lowercased() == argument.lowercased() }) {
                switchPane(to: target)
            } else {
                message = "no pane \(argument.debugDescription); panes: " + Pane.allCases.map { $0.title.lowercased() }.joined(separator: " ")
            }
        case "filter":
            goToLogToFilter()
            applyFilter(argument)
        case "open":
            guard !argument.isEmpty else { message = "open FILE: a session log or HAR file to open"; return }
            pane = .logs
            openLog(argument)
        case "copy":
            let words = argument.split(separator: " ").map(String.init)
            guard let kind = CopyKind(rawValue: words.first ?? "curl"), words.dropFirst().allSatisfy({ $0 == "raw" }) else {
                message = "copy curl, url, body or har, with raw to keep secrets"
                return
            }
            copy(kind, raw: words.contains("raw"))
        case "import": importFile(argument)
        case "write", "write!":
            // `write FILE raw` keeps the body's secrets, as `copy body raw` does; `raw` alone
            // names no file.
            let trimmed = argument.trimmingCharacters(in: .whitespaces)
            let raw = trimmed.lowercased().hasSuffix(" raw") || trimmed.lowercased() == "raw"
            writeResponseBody(to: raw ? String(trimmed.dropLast(3)).trimmingCharacters(in: .whitespaces) : trimmed, replacing: name == "write!", raw: raw)
        case "compare": compareMarked()
        case "latency":
            guard let count = argument.isEmpty ? LatencyState.defaultCount : Int(argument) else { message = "latency N: how many times to send it"; return }
            startLatency(count: count)
        case "reload": reloadWorkspace()
        case "save": saveDraft()
        case "env": useEnvironment(argument)
        case "run":
            let match = compose.items.first { item in
                if case .group(let itemName, _) = item { return itemName.lowercased().hasPrefix(argument.lowercased()) }
                return false
            }
            if case .group(let itemName, let group) = match {
                do { run(try runnable(listed: group, named: itemName), named: itemName) } catch { message = "not run: \(error)" }
            } else {
                message = "no group named \(argument.debugDescription); Tab completes"
            }
        default:
            message = "unknown command \"\(name.map(TextWidth.visible).joined())\"; known: " + commandLineCommands.joined(separator: " ")
        }
    }
}
