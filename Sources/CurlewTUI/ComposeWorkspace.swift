import CurlewAgent
import CurlewSessions
import CurlewWorkspace
import Foundation

/// The workspace Compose lists and saves to: its file, the session built from it for the chosen
/// environment, and whether the interface may write it.
public struct ComposeWorkspace: Sendable {
    public let path: String
    public private(set) var session: WorkspaceSession
    /// The demo's workspace ships with the program; it is listed and sent, never written.
    public let isReadOnly: Bool
    /// Variables given on the command line (`--var`), kept across reloads.
    let overrides: [(name: String, value: String)]
    /// The file's modification time when it was last read or written here.
    private(set) var readAt: Date?
    /// The environment the agent's config was built for, when the interface started, and that
    /// config.
    let startEnvironment: String?
    private let startConfig: NetworkConfig

    public init(path: String, environment: String? = nil, overrides: [(name: String, value: String)] = [], isReadOnly: Bool = false) throws(WorkspaceError) {
        self.path = path
        self.overrides = overrides
        self.isReadOnly = isReadOnly
        readAt = Self.modificationDate(of: path)
        session = try WorkspaceSession(try Workspace.load(path: path), environment: environment, overrides: overrides)
        startEnvironment = session.environment
        startConfig = session.config
    }

    /// `request` with the chosen environment's config wherever the agent's would apply. The
    /// agent was made with the config of the environment the interface started in; after a switch (`E`) the base URL, default headers and parameters, user
    /// agent, TLS settings, timeout and redirects come from the chosen one. What a request cannot
    /// override (a default header or parameter, a base URL, a client certificate or CA file the
    /// start environment has and the chosen one lacks; other signers, API version or CDN) is
    /// refused with the way out, so nothing of one environment goes to another's server.
    /// In the start environment the request is unchanged.
    public func inEnvironment(_ request: Request) throws(RequestError) -> Request {
        guard let startConfig = configAtStart() else { return request }
        if let problem = environmentMismatch(startConfig) { throw RequestError(.unresolvedVariable, problem) }
        return applyingConfig(to: request)
    }

    /// `request` with the chosen environment's config where a request can carry it.
    private func applyingConfig(to request: Request) -> Request {
        let config = session.config
        var request = request
        if request.baseURL == nil, request.customURL == nil, !config.baseURL.isEmpty { request.baseURL = config.baseURL }
        request.headers = request.headers.merged(over: config.defaultHeaders)
        if request.headers["User-Agent"] == nil, !config.userAgent.isEmpty { request.headers.set("User-Agent", config.userAgent) }
        if request.usesDefaultParams { request.params = request.params.merged(over: config.defaultParams) }
        let tls = config.tls.applying(request.tls ?? TLSOverrides())
        request.tls = TLSOverrides(allowInvalidCertificates: tls.allowInvalidCertificates, validatesDomainName: tls.validatesDomainName,
                                   certificateAuthorityFile: tls.certificateAuthorityFile, pinning: tls.pinning,
                                   clientCertificate: tls.clientCertificate, clientKey: tls.clientKey)
        if request.timeout == nil { request.timeout = config.requestTimeout }
        if request.followRedirects == nil { request.followRedirects = config.followRedirects }
        return request
    }

    /// A group with each of its requests in the chosen environment, as `inEnvironment(_:)`.
    public func inEnvironment(_ group: RequestGroup) throws(RequestError) -> RequestGroup {
        guard let startConfig = configAtStart() else { return group }
        if let problem = environmentMismatch(startConfig) { throw RequestError(.unresolvedVariable, problem) }
        return group.mappingRequests(applyingConfig)
    }

    /// The agent's config (the start environment's, as the interface started); nil while that
    /// environment is the chosen one (nothing to apply).
    private func configAtStart() -> NetworkConfig? {
        session.environment == startEnvironment ? nil : startConfig
    }

    /// What of the start environment's config would still reach a request sent in the chosen
    /// one, said with the way out; nil when nothing would.
    private func environmentMismatch(_ start: NetworkConfig) -> String? {
        let config = session.config
        var kept: [String] = []
        let headers = Set(config.defaultHeaders.map { $0.name.lowercased() })
        kept += start.defaultHeaders.filter { !headers.contains($0.name.lowercased()) }.map { "the default header \($0.name)" }
        let params = Set(config.defaultParams.entries.map(\.key))
        kept += start.defaultParams.entries.filter { !params.contains($0.key) }.map { "the default parameter \($0.key)" }
        if !start.baseURL.isEmpty, config.baseURL.isEmpty { kept.append("the base URL") }
        if start.tls.clientCertificate != nil, config.tls.clientCertificate == nil { kept.append("the client certificate") }
        if start.tls.clientKey != nil, config.tls.clientKey == nil { kept.append("the client key") }
        if start.tls.certificateAuthorityFile != nil, config.tls.certificateAuthorityFile == nil { kept.append("the CA file") }
        if start.apiVersion != config.apiVersion { kept.append("the API version") }
        if start.cdnURL != config.cdnURL { kept.append("the CDN URL") }
        // Signing keys cannot be compared: the agent's are the start environment's.
        if !start.signers.isEmpty { kept.append("the signers") }
        guard !kept.isEmpty else { return nil }
        return "\(session.environment ?? "this environment") cannot be used over \(startEnvironment ?? "the one curlew started in"): "
            + "\(kept.joined(separator: ", ")) of \(startEnvironment ?? "that one") would still apply; start again with --env \(session.environment ?? "NAME")"
    }

    /// Compose's list, each request as written (templates kept, so it saves back unchanged)
    /// and each group built for the session: first what `curlew run` runs by default (requests
    /// that stand alone, then top-level groups), then the groups' own requests and nested groups.
    public func items() throws(WorkspaceError) -> [ComposeItem] {
        try itemsAndProblems().items
    }

    /// The list, and why a group is missing from it: one that cannot be built in this
    /// environment (a variable its requests use is not defined) is left out, and the rest
    /// still listed.
    public func itemsAndProblems() throws(WorkspaceError) -> (items: [ComposeItem], problems: [String]) {
        let workspace = session.workspace
        var targets = session.defaultTargets()
        let listed = Set(targets.map(\.name))
        targets += workspace.requests.map(\.name).filter { !listed.contains($0) }.map(RunTarget.request)
        targets += workspace.groups.map(\.name).filter { !listed.contains($0) }.map(RunTarget.group)
        var items: [ComposeItem] = []
        var problems: [String] = []
        for target in targets {
            switch target {
            case .request(let name): items.append(.request(try draft(named: name)))
            case .group(let name):
                do { items.append(.group(name: name, try listedGroup(named: name))) } catch { problems.append("group \(name) is not listed: \(error)") }
            }
        }
        // Each folder's items together, in the order the folders first appear; the top level first.
        var folders: [String?] = [nil]
        for item in items where !folders.contains(folder(of: item)) { folders.append(folder(of: item)) }
        return (folders.flatMap { wanted in items.filter { folder(of: $0) == wanted } }, problems)
    }

    /// The group `name` as the list holds it. One that only runs as a chain's step (it uses what
    /// the chain captures) is built with those names left as `{{name}}`, to be listed and
    /// edited; it is built again to run (`WorkspaceSession.group(named:)`), which says what it lacks.
    public func listedGroup(named name: String) throws(WorkspaceError) -> RequestGroup {
        do {
            return try session.group(named: name)
        } catch {
            guard let deferred = try? session.group(named: name, deferring: session.workspace.capturedNames) else { throw error }
            return deferred
        }
    }

    /// The request entry `name` as the editor holds it: as written, templates kept, in its folder.
    public func draft(named name: String) throws(WorkspaceError) -> RequestDraft {
        var draft = RequestDraft(entry: try session.workspace.requestAsWritten(named: name), named: name)
        draft.folder = session.workspace.request(named: name)?.folder
        return draft
    }

    /// The folder a list item is in: its request's, or its group's.
    func folder(of item: ComposeItem) -> String? {
        switch item {
        case .request(let draft): draft.folder
        case .group(let name, _): session.workspace.group(named: name)?.folder
        }
    }

    /// Reads the file again, for the same environment or `environment`.
    public mutating func reload(environment: String? = nil) throws(WorkspaceError) {
        let chosen = environment ?? session.environment
        session = try WorkspaceSession(try Workspace.load(path: path), environment: chosen, overrides: overrides)
        readAt = Self.modificationDate(of: path)
    }

    /// The file changed since it was last read or written here.
    public var changedElsewhere: Bool {
        Self.modificationDate(of: path) != readAt
    }

    /// Saves a draft as its entry (renaming it when its name changed), reads the file again,
    /// and returns the entry as it now reads (credentials typed in clear are then references to
    /// the secrets file) with what the save did.
    /// `loadedAs` is the entry as the draft was loaded from it: an entry changed on disk since
    /// then is not overwritten.
    public mutating func save(_ draft: RequestDraft, loadedAs: RequestDraft? = nil) throws(WorkspaceError) -> (draft: RequestDraft, summary: WorkspaceWriter.Summary) {
        guard !isReadOnly else {
            throw WorkspaceError(.invalid, at: nil, "the demo workspace is not saved; open your own with curlew tui --workspace FILE")
        }
        let name = draft.name.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { throw WorkspaceError(.invalid, at: nil, "a request needs a name to be saved") }
        guard !draft.url.trimmingCharacters(in: .whitespaces).isEmpty else { throw WorkspaceError(.invalid, at: nil, "\(name) has no URL yet; type one before saving") }
        try reload()
        let workspace = session.workspace
        if draft.entryName != name, workspace.request(named: name) != nil {
            throw WorkspaceError(.invalid, at: nil, keyPath: "requests", "a request named \"\(name)\" is already in \((path as NSString).lastPathComponent); give this one another name")
        }
        if let entryName = draft.entryName, let loadedAs, workspace.request(named: entryName) != nil,
           try self.draft(named: entryName) != loadedAs {
            throw WorkspaceError(.invalid, at: nil, keyPath: "requests.\(entryName)",
                                 "\(entryName) changed on disk since it was opened; :reload takes the file's version (dropping your edits), or rename yours to keep both")
        }
        if case .basic(let user, let password) = draft.auth, Template.textWithoutTemplates(in: user) == nil, !password.isEmpty,
           Template.textWithoutTemplates(in: password) != nil {
            throw WorkspaceError(.invalid, at: nil, "the basic-auth password is typed in clear beside a templated user; put it in \(Workspace.secretsFileName) and write {{name}}")
        }
        let request: Request
        let query: Parameters
        do {
            (request, query) = try draft.writtenRequest(bodyIsText: entryBodyIsText(of: draft))
        } catch {
            throw WorkspaceError(.invalid, at: nil, keyPath: "requests.\(name)", "\(name) is not saved: \(error.message)")
        }
        // A URL no run could send (a control character, a space outside a template) is never
        // written, as an import leaves one out (found by a new user's trial: saved, then every
        // run failed on it). What a template fills in is the run's to check.
        // Nor one whose port is no number, or whose password holds a `/` its URL cannot be read
        // past (found by a new user's trial: saved in clear, no run could send it).
        do throws(RequestError) {
            let url = request.customURL ?? request.path
            try URLText.checkCharacters(Template.literalCheckText(of: url))
            if !url.contains("{{") { try URLText.checkAddress(url) }
        } catch {
            throw WorkspaceError(.invalid, at: nil, keyPath: "requests.\(name)", "\(name) is not saved: \(error.message)")
        }
        let summary = try WorkspaceWriter.save(request, query: query, folder: draft.folder, named: name, replacing: draft.entryName,
                                               copying: draft.entryName == nil ? draft.copiedFrom : nil, in: path,
                                               secrets: session.redactionPolicy)
        try reload()
        return (try self.draft(named: name), summary)
    }

    /// The request a draft sends: its entry as the session builds it (retry, cache, mocks, TLS
    /// and every other field the editor does not show), with the editor's fields as the draft
    /// has them, expanded. A draft not saved yet is sent as it is. `withheld`: names that are not
    /// the workspace's variables of those names (by default every name a chain captures; a
    /// chain's step withholds those captured before it, as the chain's run does).
    public func request(for draft: RequestDraft, captured: [(name: String, value: String)],
                        withholding withheld: Set<String>? = nil) throws(RequestError) -> Request {
        // A chain's captured values are filled in with the workspace's variables, by the draft's
        // rules: in a JSON body's strings whole, escaped (`RequestDraft.expandingJSON`), so that a
        // Basic credential or `{{$base64 …}}` that uses one encodes its value.
        // Outside a JSON body's strings a captured value stands only when it is one JSON value,
        // as a chain's run requires: a server's `1,"admin":true` adds no member.
        var edited = try draft.makeRequest(bodyIsText: entryBodyIsText(of: draft), defaultContentType: session.config.defaultHeaders["Content-Type"],
                                           expanding: { text throws(RequestError) in try expand(text, captured: captured) },
                                           outsideJSONStrings: { text throws(RequestError) in
            try expand(text, captured: captured, outsideJSONString: true)
        })
        // A file part's relative path starts where the entry's file is, as when the file is run.
        if let form = edited.form {
            let directory = draft.sourceEntry.flatMap { session.workspace.request(named: $0)?.directory } ?? session.workspace.directory
            edited.form = form.resolvingFiles(against: directory)
        }
        // A relative URL goes to the base URL of the environment chosen now.
        if edited.customURL == nil, edited.baseURL == nil { edited.baseURL = session.config.baseURL.isEmpty ? nil : session.config.baseURL }
        guard let entryName = draft.sourceEntry, session.workspace.request(named: entryName) != nil else { return try inEnvironment(edited) }
        // The entry built with what was captured; a withheld name none has captured yet is not
        // read as a workspace variable of that name.
        let request = try session.request(named: entryName, captured: ChainVariables(captured), withholding: withheld ?? session.workspace.capturedNames)
        return try inEnvironment(draft.applying(edited, onto: request))
    }

    /// Whether the entry `draft` saves to writes its body as text (`body:`), as the file reads now.
    private func entryBodyIsText(of draft: RequestDraft) -> Bool {
        draft.entryName.flatMap { session.workspace.request(named: $0)?.bodyIsText } ?? false
    }

    /// Notes the file's current state as seen, so a change made elsewhere is reported once.
    public mutating func acknowledgeChange() {
        readAt = Self.modificationDate(of: path)
    }

    /// Removes a request's entry and reads the file again.
    public mutating func delete(requestNamed name: String) throws(WorkspaceError) {
        try delete { (file: String) throws(WorkspaceError) in try WorkspaceWriter.delete(requestNamed: name, in: file) }
    }

    /// What a group member may name: every request, then every group but `excluding`.
    func memberChoices(excluding group: String?) -> [WorkspaceGroup.Member.Reference] {
        session.workspace.requests.map { .request($0.name) } + session.workspace.groups.map(\.name).filter { $0 != group }.map { .group($0) }
    }

    /// The editor of the group `name` as the file defines it, for list item `item`.
    func groupEditor(named name: String, item: Int) -> GroupEditor? {
        session.workspace.group(named: name).map {
            GroupEditor(name: name, entryName: name, definition: GroupDefinition($0), item: item, choices: memberChoices(excluding: name))
        }
    }

    /// A new batch named after the groups already there, with the first request as its member.
    func newGroupEditor() -> GroupEditor {
        let name = unusedGroupName("new group")
        let choices = memberChoices(excluding: nil)
        return GroupEditor(name: name, entryName: nil, definition: GroupDefinition(kind: .batch, members: choices.prefix(1).map { GroupDefinition.Member($0) }),
                           item: nil, choices: choices)
    }

    /// `base`, numbered if a group or request of the workspace already has that name.
    func unusedGroupName(_ base: String) -> String {
        var names = UniqueNames(taken: session.workspace.groups.map(\.name) + session.workspace.requests.map(\.name))
        return names.claim(base)
    }

    /// Saves a group as its entry (renaming it when its name changed) and reads the file again.
    public mutating func save(_ group: GroupEditor) throws(WorkspaceError) {
        guard !isReadOnly else {
            throw WorkspaceError(.invalid, at: nil, "the demo workspace is not saved; open your own with curlew tui --workspace FILE")
        }
        guard !group.definition.members.isEmpty else { throw WorkspaceError(.invalid, at: nil, "\(group.name) has no members: a adds one") }
        try reload()
        if group.entryName != group.name, session.workspace.group(named: group.name) != nil {
            throw WorkspaceError(.invalid, at: nil, keyPath: "groups", "a group named \"\(group.name)\" is already in \((path as NSString).lastPathComponent); give this one another name")
        }
        if let entryName = group.entryName, let saved = group.saved, let onDisk = session.workspace.group(named: entryName), GroupDefinition(onDisk) != saved {
            throw WorkspaceError(.invalid, at: nil, keyPath: "groups.\(entryName)",
                                 "\(entryName) changed on disk since it was opened; :reload takes the file's version (dropping your edits), or rename yours to keep both")
        }
        try WorkspaceWriter.save(group: group.definition, named: group.name, replacing: group.entryName, in: path)
        try reload()
    }

    /// The group as the editor has it, built for this session as a save would write it: an
    /// edited group runs without being saved first.
    public func runnableGroup(_ group: GroupEditor) throws(WorkspaceError) -> RequestGroup {
        guard group.isUnsaved else { return try session.group(named: group.name) }
        let edited = try WorkspaceWriter.workspaceSaving(group.definition, named: group.name, replacing: group.entryName, in: path)
        return try WorkspaceSession(edited, environment: session.environment, overrides: overrides).group(named: group.name)
    }

    /// Removes a group's entry and reads the file again.
    public mutating func delete(groupNamed name: String) throws(WorkspaceError) {
        try delete { (file: String) throws(WorkspaceError) in try WorkspaceWriter.delete(groupNamed: name, in: file) }
    }

    private mutating func delete(_ write: (String) throws(WorkspaceError) -> Void) throws(WorkspaceError) {
        guard !isReadOnly else { throw WorkspaceError(.invalid, at: nil, "the demo workspace is not changed") }
        try write(path)
        try reload()
    }

    /// `text` with the session's variables and `captured` chain values filled in; in a JSON
    /// body outside its strings (`outsideJSONString`) a captured value must be one JSON value.
    public func expand(_ text: String, captured: [(name: String, value: String)], outsideJSONString: Bool = false) throws(RequestError) -> String {
        do {
            return try session.expand(text, captured: captured, outsideJSONString: outsideJSONString)
        } catch {
            if case .capturedOutsideJSONString(let message) = error { throw RequestError(.invalidBody, message) }
            throw RequestError(.unresolvedVariable, error.description)
        }
    }

    /// The modification time of the file a path names, through symbolic links.
    private static func modificationDate(of path: String) -> Date? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(status.st_mtim.tv_sec) + TimeInterval(status.st_mtim.tv_nsec) / 1e9)
    }
}
