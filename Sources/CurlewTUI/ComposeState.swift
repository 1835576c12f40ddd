import CurlewAgent
import CurlewSessions
import CurlewWorkspace
import Foundation

/// An entry in Compose's list: a request to edit and send, or a group to run.
public enum ComposeItem: Sendable {
    case request(RequestDraft)
    case group(name: String, RequestGroup)

    public var title: String {
        switch self {
        // A name that already starts with the method (an import's "POST /anything") is not
        // prefixed with it again.
        case .request(let draft): draft.name.hasPrefix("\(draft.method) ") ? draft.name : "\(draft.method) \(draft.name)"
        case .group(let name, let group): "▶ \(group.kind.label) \(name)"
        }
    }
}

/// The rows of the editor form, top to bottom.
public enum EditorField: Sendable, Equatable {
    case name, folder, method, url, paramsHeading, param(Int), headersHeading, header(Int)
    case bodyMode, body, auth, authUser, authPassword, authToken, timeout, redirects
}

/// The Compose pane: the list of ready and composed requests, and the editor.
public struct ComposeState: Sendable {
    public enum Focus: Sendable { case list, editor }

    public var items: [ComposeItem]
    /// The list item under the cursor. Choosing one takes the cursor off a folded folder.
    public var selectedItem = 0 {
        didSet { selectedFolder = nil }
    }
    /// Folders the list shows folded: their heading, not their items (`z`).
    public var foldedFolders: Set<String> = []
    /// The folded folder whose heading the cursor is on, if it is on one (not on an item).
    public var selectedFolder: String?
    public var focus = Focus.list
    public var draft: RequestDraft
    /// The list item the editor's draft belongs to; nil for a draft not in the list yet.
    public var loadedItem: Int?
    /// Each request item as it was last read from or saved to the workspace, when Compose is
    /// backed by one; an item that differs (or is new) is unsaved.
    public var saved: [Int: RequestDraft] = [:]
    /// Compose is backed by a workspace, so unsaved items are marked.
    public var tracksSaves = false
    /// A chain being run one step at a time; the editor holds its current step.
    public var stepping: ChainStepper?
    public var fieldIndex = 0
    /// The text field being edited, with the field it edits.
    public var editing: (field: EditorField, editor: LineEditor)?
    public var lastSent: RequestHandle?
    /// Requests sent from the editor not known to have ended (those that ended are dropped at
    /// the next send): `x` cancels all of them, not only the last.
    public private(set) var sentInFlight: [RequestHandle] = []
    public var lastGroup: GroupHandle?

    /// Notes a request the editor (or the chain stepper) sent.
    mutating func noteSent(_ handle: RequestHandle) {
        lastSent = handle
        sentInFlight.removeAll { $0.state.isTerminal }
        sentInFlight.append(handle)
    }

    /// A later exchange of a request the editor or the stepper sent (a retry, a replay, the
    /// network's answer after a cached copy) takes the place of the one before it, so the
    /// response panel shows the exchange the request went on with. (The stepper's `sentID`
    /// stays the request's own id: the one its handle, which a stop cancels, has.)
    mutating func follow(_ message: DebugMessage) {
        let answered = message.answeredRequestIDs
        for (item, id) in sentIDs where id != message.requestID && answered.contains(id) {
            sentIDs[item] = message.requestID
        }
        if let id = stepping?.lastSentID, id != message.requestID, answered.contains(id) {
            stepping?.lastSentID = message.requestID
        }
    }

    /// The requests the editor sent that still run, forgotten: the caller cancels them.
    mutating func takeRunning() -> [RequestHandle] {
        defer { sentInFlight = [] }
        return sentInFlight.filter { !$0.state.isTerminal }
    }
    /// The request each list item sent last (by position in the list), whose answer the
    /// response panel shows beside the editor.
    public var sentIDs: [Int: UInt64] = [:]
    /// The latest run of each group item started from here, by list index (its group id).
    public var groupRunIDs: [Int: UInt64] = [:]
    /// The response panel: the last answer of the selected item, with its tab and scroll.
    public var response: DetailState?
    /// The response panel shows an answer from an earlier session's log.
    public var answeredEarlier = false
    /// The workspace request's `expect:` assertions checked against the answer shown, when it
    /// has any.
    public var checks: ExpectationReport?
    /// On a narrow terminal the response panel takes the editor's place while this is on.
    public var showsResponse = false
    /// The variables panel (`V`) is shown in the response panel's place.
    public var showsVariables = false
    /// The group the editor shows in place of a request: a list item's, or a new one.
    public var groupEditor: GroupEditor?
    /// Unsaved edits of groups whose editor was closed, by list item.
    public var groupEdits: [Int: GroupEditor] = [:]

    public init(items: [ComposeItem], tracksSaves: Bool = false) {
        self.items = items
        self.tracksSaves = tracksSaves
        if case .request(let draft) = items.first {
            self.draft = draft
            loadedItem = 0
        } else {
            self.draft = RequestDraft()
        }
        if tracksSaves { markAllSaved() }
    }

    /// Every request item is as the workspace has it.
    public mutating func markAllSaved() {
        saved = [:]
        for (index, item) in items.enumerated() {
            if case .request(let draft) = item { saved[index] = draft }
        }
    }

    /// The request draft of a list item as it now is (the editor's, for the loaded one).
    public func currentDraft(at index: Int) -> RequestDraft? {
        if index == loadedItem { return draft }
        guard items.indices.contains(index), case .request(let draft) = items[index] else { return nil }
        return draft
    }

    /// The item differs from what the workspace has, or is not in it yet.
    public func isUnsaved(_ index: Int) -> Bool {
        guard tracksSaves else { return false }
        if let group = groupEditor(of: index) { return group.isUnsaved }
        guard let current = currentDraft(at: index) else { return false }
        return saved[index] != current
    }

    /// The edits of a group item: its open editor, or the ones kept when it was closed.
    func groupEditor(of index: Int) -> GroupEditor? {
        groupEditor?.item == index ? groupEditor : groupEdits[index]
    }

    /// The unsaved items by name, in list order (the editor's new draft and a new group last).
    public var unsavedNames: [String] {
        guard tracksSaves else { return [] }
        var names = items.indices.filter(isUnsaved).map { groupName(at: $0) ?? currentDraft(at: $0)?.name ?? "an item" }
        if loadedItem == nil, stepping == nil, draft != RequestDraft() { names.append(draft.name.isEmpty ? "a new request" : draft.name) }
        if let editor = groupEditor, editor.item == nil, editor.isUnsaved { names.append(editor.name.isEmpty ? "a new group" : editor.name) }
        return names
    }

    /// How many items are unsaved (the editor's draft and a new group included).
    public var unsavedCount: Int { unsavedNames.count }

    /// Closes the group editor, keeping its unsaved edits for the item.
    public mutating func closeGroupEditor() {
        guard let editor = groupEditor else { return }
        if let item = editor.item { groupEdits[item] = editor.isUnsaved ? editor : nil }
        groupEditor = nil
    }

    /// The item whose response the panel shows: the one being edited, else the list's cursor.
    var responseItem: Int {
        focus == .editor ? (loadedItem ?? selectedItem) : selectedItem
    }

    /// What the response panel answers for, as the status line names it: the stepper's step, a
    /// group item (its kind and name), else the request of `responseItem`, which need not be the
    /// loaded one.
    var responseLabel: String {
        guard stepping == nil else { return draft.name }
        if items.indices.contains(responseItem), case .group(let name, let group) = items[responseItem] { return "\(group.kind.label) \(name)" }
        return currentDraft(at: responseItem)?.name ?? draft.name
    }

    public var fields: [EditorField] {
        var fields: [EditorField] = [.name, .method, .url, .paramsHeading]
        fields += draft.params.indices.map(EditorField.param)
        fields.append(.headersHeading)
        fields += draft.headers.indices.map(EditorField.header)
        fields.append(.bodyMode)
        if draft.bodyMode != .none { fields.append(.body) }
        fields.append(.auth)
        switch draft.auth {
        case .none: break
        case .basic: fields += [.authUser, .authPassword]
        case .bearer: fields.append(.authToken)
        }
        return fields + [.timeout, .redirects, .folder]
    }

    public var field: EditorField {
        let all = fields
        return all[min(fieldIndex, all.count - 1)]
    }

    /// Loads the selected list item into the editor (requests), or returns the group under the
    /// cursor for the group editor to open (groups).
    public mutating func loadSelected() -> (name: String, group: RequestGroup)? {
        guard items.indices.contains(selectedItem) else { return nil }
        switch items[selectedItem] {
        case .request:
            // The item being edited keeps its edits; another one is loaded after they are kept.
            guard selectedItem != loadedItem else {
                focus = .editor
                return nil
            }
            let index = selectedItem
            keepDraft()
            guard case .request(let draft) = items[index] else { return nil }
            self.draft = draft
            selectedItem = index
            loadedItem = index
            fieldIndex = 0
            focus = .editor
            return nil
        case .group(let name, let group):
            return (name, group)
        }
    }

    /// Keeps the edited draft in its list item (a new draft becomes one).
    public mutating func keepDraft() {
        // A chain step's request belongs to the run, not to the list.
        guard stepping == nil else { return }
        if let loadedItem, items.indices.contains(loadedItem), case .request = items[loadedItem] {
            items[loadedItem] = .request(draft)
        } else if draft != RequestDraft() {
            // A new draft the user typed into joins the list; an untouched blank one does not.
            items.append(.request(draft))
            loadedItem = items.count - 1
            selectedItem = items.count - 1
        }
    }

    /// Adds `draft` as a new list item and edits it.
    public mutating func add(_ draft: RequestDraft) {
        keepDraft()
        self.draft = draft
        items.append(.request(draft))
        loadedItem = items.count - 1
        selectedItem = items.count - 1
        fieldIndex = 0
        focus = .editor
    }

    /// Adds a request made outside the list (pasted as a curl command, or re-sent with `r`), its
    /// name numbered when an item already has it (`GET /users 2`), as an import numbers names:
    /// requests, their history and `w` find each other by name (found by new users' trials: two
    /// pastes, and a request and its re-sent copy, shared one name and one history).
    public mutating func addNumbered(_ draft: RequestDraft) {
        // The draft being edited is stored first, so a name just typed into it counts.
        keepDraft()
        var names = UniqueNames(taken: items.flatMap { item -> [String] in
            switch item {
            case .request(let request): [request.name] + (request.entryName.map { [$0] } ?? [])
            case .group(let name, _): [name]
            }
        })
        var draft = draft
        draft.name = names.claim(draft.name)
        add(draft)
    }

    public mutating func duplicate() {
        var copy = draft
        copy.name += " (copy)"
        copy.copiedFrom = draft.sourceEntry
        copy.entryName = nil
        add(copy)
    }

    /// The name of the group at list position `index`; nil for a request or past the end.
    func groupName(at index: Int) -> String? {
        guard items.indices.contains(index), case .group(let name, _) = items[index] else { return nil }
        return name
    }

    /// Where the list holds the group `name`.
    func position(ofGroup name: String) -> Int? {
        items.indices.first { groupName(at: $0) == name }
    }

    /// Removes a list item, keeping every index-keyed record in step.
    public mutating func remove(at index: Int) {
        guard items.indices.contains(index) else { return }
        closeGroupEditor()
        items.remove(at: index)
        func shifted<Value>(_ records: [Int: Value]) -> [Int: Value] {
            Dictionary(uniqueKeysWithValues: records.compactMap { $0.key == index ? nil : ($0.key > index ? $0.key - 1 : $0.key, $0.value) })
        }
        saved = shifted(saved)
        sentIDs = shifted(sentIDs)
        groupRunIDs = shifted(groupRunIDs)
        groupEdits = shifted(groupEdits)
        for key in groupEdits.keys { groupEdits[key]?.item = key }
        if loadedItem == index {
            loadedItem = nil
            draft = RequestDraft()
        } else if let loaded = loadedItem, loaded > index {
            loadedItem = loaded - 1
        }
        selectedItem = min(selectedItem, max(0, items.count - 1))
        focus = .list
    }

    /// Text of a field for the line editor.
    func text(of field: EditorField) -> String? {
        switch field {
        case .name: draft.name
        case .folder: draft.folder ?? ""
        case .method: draft.method
        case .url: draft.url
        case .param(let index): "\(draft.params[index].name)=\(draft.params[index].value)"
        case .header(let index): "\(draft.headers[index].name): \(draft.headers[index].value)"
        case .body: draft.body
        case .authUser: if case .basic(let user, _) = draft.auth { user } else { "" }
        case .authPassword: if case .basic(_, let password) = draft.auth { password } else { "" }
        case .authToken: if case .bearer(let token) = draft.auth { token } else { "" }
        case .timeout: String(draft.timeoutSeconds)
        case .paramsHeading, .headersHeading, .bodyMode, .auth, .redirects: nil
        }
    }

    /// What is wrong with text being edited into a field, shown while the user types; nil when
    /// it would commit. Variables (`{{name}}`) are taken as they will be expanded at send time.
    func problem(_ text: String, for field: EditorField) -> String? {
        if case .url = field {
            let url = Self.urlText(text)
            if url.isEmpty || Self.isCurlCommand(url) { return nil }
            // Outside its variables (which may be written `{{ name }}`), no URL holds one, a path
            // for the base URL included.
            if Template.literalText(in: url).unicodeScalars.contains(where: URLText.cannotHold) {
                return "the URL contains a space or a control character"
            }
            // A path (`/users`) goes to the base URL of the workspace or config.
            if url.contains("{{") || url.hasPrefix("/") { return nil }
            // Without a scheme it is plain HTTP, as `curlew send` and curl read it, or a path
            // for the base URL (`users/1`); with one, it must be HTTP's.
            let lowered = url.lowercased()
            if URLText.startsWithScheme(url), !lowered.hasPrefix("http://"), !lowered.hasPrefix("https://") {
                return "the URL must start with http:// or https://"
            }
            return URLText.typingMistake(url)
        }
        var trial = self
        return trial.commit(text, to: field)
    }

    /// Stores edited text into a field; returns a message when the text does not fit the field.
    mutating func commit(_ text: String, to field: EditorField) -> String? {
        switch field {
        case .name: draft.name = text
        case .folder: draft.folder = RequestDraft.folder(typed: text)
        case .method:
            let method = text.trimmingCharacters(in: .whitespaces).uppercased()
            do { try HTTPMethod(rawValue: method).validate() } catch { return error.message }
            draft.method = method
        case .url where Self.isCurlCommand(text):
            // A curl command typed or pasted into the URL becomes the request (its name kept).
            do {
                var pasted = try Self.draft(fromCurl: text)
                pasted.name = draft.name
                pasted.entryName = draft.entryName
                pasted.copiedFrom = draft.copiedFrom
                draft = pasted
            } catch {
                return "\(error)"
            }
        case .url:
            let url = Self.urlText(text)
            if !url.contains("{{"), let mistake = URLText.typingMistake(url) { return mistake }
            draft.url = url
        case .param(let index):
            let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
            draft.params[index].name = parts.first?.trimmingCharacters(in: .whitespaces) ?? ""
            draft.params[index].value = parts.count > 1 ? parts[1] : ""
        case .header(let index):
            guard let colon = text.firstIndex(of: ":") else { return "a header is 'Name: value'" }
            draft.headers[index].name = text[..<colon].trimmingCharacters(in: .whitespaces)
            draft.headers[index].value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        case .body: draft.body = text
        case .authUser:
            if case .basic(_, let password) = draft.auth { draft.auth = .basic(user: text, password: password) }
        case .authPassword:
            if case .basic(let user, _) = draft.auth { draft.auth = .basic(user: user, password: text) }
        case .authToken: draft.auth = .bearer(token: text)
        case .timeout:
            do {
                draft.timeoutSeconds = Double(try SecondsInput.duration(parsing: text, field: "timeout").wholeMilliseconds) / 1000
                draft.hasOwnTimeout = true
            } catch {
                return error.message
            }
        case .paramsHeading, .headersHeading, .bodyMode, .auth, .redirects: break
        }
        return nil
    }

    /// A URL as typed or pasted, without the spaces and line ends around it (a URL copied with
    /// its line end is the URL, as `curlew send` reads it).
    static func urlText(_ text: String) -> String {
        text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Text that reads as a curl command rather than a URL.
    static func isCurlCommand(_ text: String) -> Bool {
        let trimmed = text.drop { $0.isWhitespace }
        return trimmed.hasPrefix("curl ") || trimmed.hasPrefix("curl\t") || trimmed.hasPrefix("curl\\\n")
    }

    /// A draft of the first request of a curl command. Files it names are not read: a pasted
    /// command never copies a local file in.
    static func draft(fromCurl text: String) throws(CurlImport.Failure) -> RequestDraft {
        let refuseFiles: (String) throws -> Data = { path in
            throw CurlImport.Failure(reason: "\(path): the command reads a local file; give the value instead")
        }
        guard let first = try CurlImport.parse(text, readFile: refuseFiles).first else {
            throw CurlImport.Failure(reason: "no curl command found")
        }
        guard first.request.uploadFile == nil else {
            throw CurlImport.Failure(reason: "the command sends a file as its body, which the editor does not hold; :import it into the workspace instead")
        }
        if let form = first.request.form, let reason = MultipartText.unwritablePart(of: form) {
            throw CurlImport.Failure(reason: "\(reason), which the editor's form lines cannot hold; :import it into the workspace instead")
        }
        var draft = RequestDraft(first.request, baseURL: nil)
        draft.name = ImportedCollection.defaultName(first.request)
        // A command is literal: its `{{` are sent as typed, as `:import` writes them.
        draft.escapeTemplates()
        draft.moveCredentialsToAuth()
        return draft
    }

    /// Cycles a choice field (method, body mode, auth, redirects) by `delta`.
    mutating func cycle(_ field: EditorField, by delta: Int) {
        func next<T: Equatable>(_ values: [T], _ current: T) -> T {
            let index = values.firstIndex(of: current) ?? 0
            return values[(index + delta + values.count) % values.count]
        }
        switch field {
        case .method: draft.method = next(RequestDraft.methods, RequestDraft.methods.contains(draft.method) ? draft.method : "GET")
        case .bodyMode: draft.bodyMode = next(RequestDraft.BodyMode.allCases, draft.bodyMode)
        case .auth:
            let choices: [RequestDraft.Auth] = [.none, .basic(user: "", password: ""), .bearer(token: "")]
            let index = choices.firstIndex { $0.label == draft.auth.label } ?? 0
            draft.auth = choices[(index + delta + choices.count) % choices.count]
        case .redirects: draft.followRedirects.toggle()
        default: break
        }
    }
}
