/// A status line that speaks of one view (a history's marks, a log's filter count, a search's
/// matches): it goes when that view closes, instead of lingering under whatever comes next.
struct ViewMessage {
    /// The view a status line speaks of.
    enum Subject: Equatable {
        /// The history open over Compose.
        case history
        /// The filter of the session log at `path`, open in the Log browser.
        case logFilter(path: String)
        /// The search in the tab `tab` of the detail view open in `pane`.
        case detailSearch(pane: Pane, tab: DetailState.Tab)
        /// The comparison or latency mode open over the panes.
        case overlay
        /// A chain run step by step in Compose.
        case stepper
        /// The group editor open in Compose.
        case groupEditor
        /// Compose's variables panel, or the answer panel shown in the editor's place.
        case variablesPanel, responsePanel
    }

    let subject: Subject
    /// The status line as set; once another message replaces it, this one no longer owns it.
    let text: String
}

extension AppModel {
    /// Shows `text` on the status line until it is replaced or `subject`'s view closes.
    func say(_ text: String, about subject: ViewMessage.Subject) {
        message = text
        viewMessage = ViewMessage(subject: subject, text: text)
    }

    /// Whether the view a status line speaks of is still on screen.
    func isShowing(_ subject: ViewMessage.Subject) -> Bool {
        switch subject {
        case .history: history != nil && pane == .compose
        case .logFilter(let path): pane == .logs && logs.opened?.path == path
        case .detailSearch(let pane, let tab): self.pane == pane && detail?.pane == pane && detail?.state.tab == tab
        case .overlay: comparison != nil || latency != nil
        case .stepper: pane == .compose && compose.stepping != nil
        case .groupEditor: pane == .compose && compose.focus == .editor && compose.groupEditor != nil
        case .variablesPanel: pane == .compose && compose.showsVariables
        case .responsePanel: pane == .compose && compose.showsResponse
        }
    }

    /// Clears the status line when the view it speaks of has closed (run after every key).
    func dropMessageOfClosedView() {
        guard let owned = viewMessage else { return }
        if message != owned.text {
            viewMessage = nil
        } else if !isShowing(owned.subject) {
            message = ""
            viewMessage = nil
        }
    }
}
