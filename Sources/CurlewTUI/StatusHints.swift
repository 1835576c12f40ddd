/// What the next keys do where the user is now, for the status line: the few that matter most
/// first, named as the active key map binds them.
extension AppModel {
    var statusHints: [String] {
        // A window that only browses logs names no key that would send.
        func key(_ command: Command, _ text: String, in context: KeyContext? = nil) -> String? {
            guard offers(command) else { return nil }
            return keyMap.label(for: command, in: context ?? self.context).map { "\($0) \(text)" }
        }
        var hints: [String?]
        if let prompt {
            switch prompt {
            case .confirmQuit, .confirmDiscard, .confirmDelete: hints = ["y yes", "any other key no"]
            case .command: hints = ["Enter runs", "Tab completes", "Esc cancels"]
            case .filter, .search: hints = ["Enter applies", "Esc cancels"]
            }
        } else if showHelp {
            hints = ["j/k scroll", "any other key closes"]
        } else if palette != nil {
            hints = ["type to find", "↑/↓ choose", "Enter runs", "Esc closes"]
        } else if comparison != nil {
            hints = ["a all/differences", "j/k scroll", "Esc closes"]
        } else if let latency {
            hints = latency.ended ? ["Esc closes"] : ["x stops", "Esc closes"]
        } else if let detail, detail.pane == pane {
            hints = [key(.nextTab, "tab"), key(.search, "search"), key(.mark, "mark"), key(.copy, "copy"), key(.resend, resendHint), key(.back, "back")]
        } else if pane == .compose, history != nil {
            hints = ["Enter opens", "m marks", "= compares", "y copies", canSend ? "r re-sends" : "r to Compose", "Esc closes"]
        } else {
            switch pane {
            case .compose: hints = composeHints(key)
            case .live: hints = [key(.open, "open"), key(.toggleFollow, "follow"), key(.togglePause, "pause"), key(.resend, resendHint), key(.mark, "mark")]
            case .groups:
                hints = groupMembersFocused ? [key(.open, "open member"), key(.cancelMember, "cancel member"), key(.back, "groups")]
                    : [key(.open, "members"), key(.cancel, "cancel")]
            case .logs:
                hints = logs.opened == nil ? [key(.open, "open log"), key(.commandPrompt, "open FILE")]
                    : [key(.open, "open"), key(.filter, "filter"), key(.resend, resendHint), key(.mark, "mark"), key(.clearFilter, "clear filter"),
                       key(.back, "files"), key(.toggleFollow, "follow")]
            }
        }
        return hints.compactMap { $0 }
    }

    /// Whether `w` writes the workspace file: not in the demo, whose workspace is never saved.
    var savesWorkspace: Bool { workspace?.isReadOnly != true }

    /// What `r` does here: it loads the exchange into Compose, to send from there when this
    /// window can send.
    private var resendHint: String { canSend ? "re-send" : "to Compose" }

    private func composeHints(_ label: (Command, String, KeyContext?) -> String?) -> [String?] {
        func key(_ command: Command, _ text: String) -> String? { label(command, text, nil) }
        if compose.editing != nil || compose.groupEditor?.editing != nil {
            return ["Enter keeps", "Esc drops", "Ctrl-U clears to the cursor"]
        }
        if compose.focus == .editor, let editor = compose.groupEditor {
            let field: String? = editor.field.isChoice ? "←/→ choose" : editor.field == .membersHeading ? key(.addRow, "add member") : key(.edit, "edit")
            return [field, key(.send, "run"), savesWorkspace ? key(.save, "save") : nil, editor.memberIndex != nil ? key(.deleteRow, "remove") : nil, key(.back, "list")]
        }
        if compose.focus == .list, compose.selectedFolder != nil {
            return [key(.toggleFold, "unfold"), key(.newRequest, "new request")]
        }
        if compose.focus == .list {
            guard compose.items.indices.contains(compose.selectedItem) else { return [key(.newRequest, "new request"), key(.newGroup, "new group")] }
            // The demo's workspace is never changed: what is in its file is not offered for deleting.
            let delete = savesWorkspace || !isInWorkspaceFile(at: compose.selectedItem) ? key(.deleteRow, "delete") : nil
            if case .group(_, let group) = compose.items[compose.selectedItem] {
                return [key(.edit, "edit"), key(.send, "run"), key(.latency, "latency"), group.kind == .chain ? key(.stepChain, "step") : nil, delete]
            }
            return [key(.edit, "edit"), key(.send, "send"), key(.history, "history"), key(.newRequest, "new"), delete,
                    listFolder(at: compose.selectedItem) != nil ? key(.toggleFold, "fold") : nil]
        }
        if let stepper = compose.stepping {
            // Once the run has ended (all steps done, or stopped), only going back is offered.
            return stepper.outcome == nil ? [key(.send, "send step"), key(.back, "stop")] : [key(.back, "go back")]
        }
        let field: String? = switch compose.field {
        case .method, .bodyMode, .auth: "←/→ choose"
        case .redirects: key(.toggleRow, "toggle")
        case .param, .header: [key(.edit, "edit"), key(.toggleRow, "on/off")].compactMap { $0 }.joined(separator: " · ")
        case .paramsHeading, .headersHeading: key(.addRow, "add")
        case .body: [key(.edit, "edit"), key(.externalEdit, "$EDITOR")].compactMap { $0 }.joined(separator: " · ")
        default: key(.edit, "edit")
        }
        return [field, key(.send, "send"), compose.tracksSaves ? key(.save, "save") : nil, key(.variables, "variables"), key(.back, "list")]
    }
}
