import CurlewAgent
import CurlewSessions
import Foundation

/// Copying what the interface shows, and editing a field in the user's editor.
extension AppModel {
    /// What `:copy` can copy.
    enum CopyKind: String, CaseIterable {
        case curl, url, body, har
    }

    /// Takes the requests for the terminal made since the last call.
    public func takeTerminalRequests() -> [TerminalRequest] {
        defer { terminalRequests.removeAll() }
        return terminalRequests
    }

    /// The exchange `y` and `:copy` act on: the open detail, the selected Live row or log
    /// entry, or in Compose the request as it would be sent now.
    func exchangeToCopy() -> DebugMessage? {
        if let detail, detail.pane == pane { return detail.state.message }
        switch pane {
        case .live:
            let visible = live.rows.prefix(live.visibleCount)
            return visible.indices.contains(live.selected) ? visible[live.selected].detailMessage : nil
        case .logs:
            return logs.selectedMessage
        case .compose:
            if let entry = history?.selectedMessage { return entry }
            guard compose.focus != .editor || compose.groupEditor == nil else {
                message = "copying works on a request; this is a group"
                return nil
            }
            guard loadRequestUnderCursor(for: "copying") else { return nil }
            do {
                return try composedDraft()
            } catch {
                message = "cannot copy: \(error.message)"
                return nil
            }
        case .groups:
            return nil
        }
    }

    /// The editor's request (or `draft`) as the agent would put it on the wire now (variables, environment,
    /// base URL and config applied), as a debug message not sent yet. A window that only browses
    /// logs has no agent: its requests are composed with no config of their own.
    func composedDraft(_ draft: RequestDraft? = nil) throws(RequestError) -> DebugMessage {
        let draft = draft ?? compose.draft
        return try unsentMessage(try requestToSend(draft, forSending: false), named: draft.name)
    }

    /// `request` as the agent would put it on the wire now, as a debug message not sent yet.
    func unsentMessage(_ request: Request, named name: String) throws(RequestError) -> DebugMessage {
        let config = environment.agent?.config ?? NetworkConfig()
        return DebugMessage(requestID: 0, name: name, state: .created, startedAt: Date(), original: try config.composed(request), sent: nil,
                            response: nil, error: nil, timings: nil, connection: nil, callbackQueue: "compose")
    }

    /// Copies the selected exchange as curl, its URL, its body (the response's when it has
    /// one) or a HAR document, redacted unless `raw`. The text goes to the clipboard by OSC 52
    /// and to `clipboard.txt` in the sessions directory (owner-only) for terminals without it.
    func copy(_ kind: CopyKind, raw: Bool = false) {
        guard let exchange = exchangeToCopy() else {
            if message.hasPrefix("cannot copy") || message.hasPrefix("copying works") { return }
            message = unreadableSelectionMessage ?? "nothing to copy here: select a request (Live, Logs) or edit one (Compose)"
            return
        }
        let shown = raw ? exchange : exchangeRedaction.redact(exchange)
        let text: String?
        switch kind {
        case .curl: text = CurlExport.command(shown)
        case .url: text = shown.original?.url
        case .body: text = (shown.response?.body ?? shown.original?.body).map { String(decoding: $0.data, as: UTF8.self) }
        case .har: text = String(decoding: HARExport.data([shown]), as: UTF8.self)
        }
        guard let text, !text.isEmpty else { message = "this exchange has no \(kind.rawValue) to copy"; return }
        terminalRequests.append(.copy(text))
        // Text with its secrets goes to the clipboard only, never to a file.
        guard !raw else {
            message = "copied \(kind.rawValue) with its secrets to the clipboard (OSC 52 only: nothing is written to a file)"
            return
        }
        let fallback = (environment.sessionsDirectory as NSString).appendingPathComponent("clipboard.txt")
        do {
            // Owner-only, as the session logger creates it: the file holds what was copied.
            try FileManager.default.createDirectory(atPath: environment.sessionsDirectory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            try OwnerOnlyFile.write(Data(text.utf8), to: fallback)
            message = "copied \(kind.rawValue) to the clipboard; also in \(fallback)"
        } catch {
            message = "copied \(kind.rawValue) to the clipboard (\(fallback): \(error))"
        }
    }

    /// Writes the body of the answer on screen (Compose's response panel, the open detail, the
    /// selected Live row or log entry) to `path`, owner-only, its secrets hidden as the panes
    /// show them unless `raw` (`:write FILE raw`). An existing file is replaced only when
    /// `replacing` (`:write!`).
    func writeResponseBody(to path: String, replacing: Bool, raw: Bool = false) {
        let file = (path.trimmingCharacters(in: .whitespaces) as NSString).expandingTildeInPath
        guard !file.isEmpty else { message = "write FILE: where to put the response body (write! FILE replaces a file)"; return }
        let answerBeside = pane == .compose && detail?.pane != pane && history == nil
        if answerBeside, compose.focus == .editor, compose.groupEditor != nil { message = "a group has no response body of its own; open a member in Groups (3)"; return }
        let exchange = answerBeside ? compose.response?.message : exchangeToCopy()
        guard let answered = exchange?.response?.body else {
            message = "no response body to write here: send the request (s), or select an answered one in Live or Logs"
            return
        }
        // A file this window works from is never what a body replaces (found by a new user's
        // trial: `:write! curlew.yaml` overwrote the workspace, and the session log with secrets).
        if let role = workingFile(at: file) { message = "\(file) is \(role); nothing written"; return }
        var status = stat()
        if lstat(file, &status) == 0 {
            guard (status.st_mode & S_IFMT) == S_IFREG else { message = "\(file) is not a regular file; nothing written"; return }
            guard replacing else { message = "\(file) exists: :write! \(path.trimmingCharacters(in: .whitespaces))\(raw ? " raw" : "") replaces it"; return }
        }
        // Hidden as the panes hide them (found by a new user's trial: an echo's Authorization,
        // cookie and token were written in clear beside a pane showing [REDACTED]).
        let body = raw ? answered : (exchange.map { exchangeRedaction.redact($0) }?.response?.body ?? answered)
        let hidden = !raw && body.data != answered.data
        do {
            // Without `!`, a file that appears meanwhile is not replaced either.
            if replacing { try OwnerOnlyFile.write(body.data, to: file) } else { try OwnerOnlyFile.create(body.data, at: file) }
            let cut = body.isTruncated ? " (the first part of a body of \(body.size) bytes: the debug message keeps no more; a download keeps all)" : ""
            let secrets = hidden ? ", its secrets hidden (:write FILE raw keeps them)" : raw ? ", secrets and all" : ""
            message = "wrote \(body.data.count) bytes to \(file)\(secrets)\(cut)"
        } catch {
            message = "not written: \(file): \(error.reason)"
        }
    }

    /// What `path` is to this window when it is a file the window works from (the workspace's
    /// files and its secrets file, the session log it writes, the log open in the browser),
    /// through links and relative paths; nil for any other path.
    func workingFile(at path: String) -> String? {
        if let role = workspace?.session.ownFile(at: path) { return role }
        if let log = environment.sessionLogPath, LocalFile.namesSameFile(path, log) { return "the session log this window writes" }
        if let open = logs.opened?.path, LocalFile.namesSameFile(path, open) { return "the log open in the log browser" }
        return nil
    }

    /// Opens the focused field in the user's editor.
    func editExternally() {
        guard pane == .compose, compose.focus == .editor, let text = compose.text(of: compose.field) else {
            message = "select a field of the editor first (Enter on a request, then j/k)"
            return
        }
        let fileExtension = compose.field == .body && compose.draft.bodyMode == .json ? "json" : "txt"
        terminalRequests.append(.edit(text, field: compose.field, fileExtension: fileExtension))
    }

    /// The editor's text for a field: a body as written (less the newline editors add at the
    /// end), other fields as one line.
    public func finishExternalEdit(_ outcome: ExternalEditor.Outcome, field: EditorField) {
        guard case .edited(var text) = outcome else {
            if case .failed(let reason) = outcome { message = reason }
            return
        }
        if text.hasSuffix("\n"), !(compose.text(of: field) ?? "").hasSuffix("\n") { text.removeLast() }
        if field != .body, text.contains(where: \.isNewline) {
            message = "\(ComposeView.label(field)) is one line; the editor's text has several, so the field is unchanged"
            return
        }
        guard compose.fields.contains(field) else { message = "the field is gone; the edit is dropped"; return }
        if text == compose.text(of: field) {
            message = "\(ComposeView.label(field)) unchanged: the editor saved no change"
        } else if let problem = compose.commit(text, to: field) {
            message = problem
        } else if field == .body, compose.draft.bodyMode == .json, let problem = BodyCheck.jsonProblem(text) {
            message = "body kept, but it is not JSON: \(problem)"
        } else {
            message = "\(ComposeView.label(field)) updated from the editor"
        }
    }

    /// Pretty-prints a JSON body in place.
    func prettyPrintBody() {
        guard compose.draft.bodyMode == .json else { message = "the body is not JSON (Body: choose JSON)"; return }
        if let pretty = BodyCheck.prettyJSON(compose.draft.body) {
            compose.draft.body = pretty
            message = "body pretty-printed"
        } else {
            message = BodyCheck.jsonProblem(compose.draft.body).map { "not JSON: \($0)" } ?? "templates outside strings keep the body as it is"
        }
    }
}
