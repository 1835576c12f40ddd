import CurlewAgent
import CurlewSessions
import CurlewWorkspace
import Foundation

/// The four panes.
public enum Pane: Int, CaseIterable, Sendable {
    case compose, live, groups, logs

    public var title: String {
        switch self {
        case .compose: "Compose"
        case .live: "Live"
        case .groups: "Groups"
        case .logs: "Logs"
        }
    }

    var context: KeyContext {
        switch self {
        case .compose: .compose
        case .live: .live
        case .groups: .groups
        case .logs: .logs
        }
    }
}

/// What the app runs against: an agent (absent when only browsing logs) and where logs live.
public struct AppEnvironment: Sendable {
    public var agent: Agent?
    /// Shown in the status bar: "demo http://127.0.0.1:4321" or "logs".
    public var name: String
    public var sessionLogPath: String?
    public var sessionsDirectory: String
    public var extraLogFiles: [String]
    public var composeItems: [ComposeItem]
    public var timeZone: TimeZone
    /// For `{{NAME}}` in Compose, after captured chain values, when no workspace is open.
    public var processEnvironment: [String: String]
    /// The workspace Compose lists and saves to; it replaces `composeItems`.
    public var workspace: ComposeWorkspace?
    /// Reads a file of another tool's format (curl, HAR, .http, Postman, OpenAPI) for `:import`.
    public var importer: (@Sendable (String) throws -> ImportedCollection)?
    /// The key bindings: the standard ones, or a user's key map file over them.
    public var keyMap: KeyMap
    /// Colours for a dark or a light terminal background.
    public var theme: Theme
    /// Told the workspace's secret values, and the headers made from secrets
    /// (`WorkspaceSession.headersCarryingSecrets`), whenever it is read again (a secret saved or
    /// imported while the interface runs), so the session log hides them too.
    public var secretsChanged: (@Sendable (_ values: [String], _ headers: Set<String>) -> Void)?
    /// What exchanges on screen and copied from it hide: the session log's policy (for a
    /// workspace, the secrets of every environment), so the screen hides what the log does.
    public var exchangeRedaction: RedactionPolicy

    public init(agent: Agent?, name: String, sessionLogPath: String?, sessionsDirectory: String = "Sessions",
                extraLogFiles: [String] = [], composeItems: [ComposeItem] = [], timeZone: TimeZone = .current,
                processEnvironment: [String: String] = ProcessInfo.processInfo.environment, workspace: ComposeWorkspace? = nil,
                importer: (@Sendable (String) throws -> ImportedCollection)? = nil, keyMap: KeyMap = .standard, theme: Theme = .dark,
                secretsChanged: (@Sendable (_ values: [String], _ headers: Set<String>) -> Void)? = nil, exchangeRedaction: RedactionPolicy = RedactionPolicy()) {
        self.agent = agent
        self.name = name
        self.sessionLogPath = sessionLogPath
        self.sessionsDirectory = sessionsDirectory
        self.extraLogFiles = extraLogFiles
        self.composeItems = composeItems
        self.timeZone = timeZone
        self.processEnvironment = processEnvironment
        self.workspace = workspace
        self.importer = importer
        self.keyMap = keyMap
        self.theme = theme
        self.secretsChanged = secretsChanged
        self.exchangeRedaction = exchangeRedaction
    }
}

/// The TUI's state and behaviour, independent of curses: keys in, agent events in, frames out.
public final class AppModel {
    public enum Prompt: Equatable {
        case filter(LineEditor)
        case command(LineEditor)
        case search(LineEditor)
        case confirmQuit
        /// Quitting would lose this many unsaved requests.
        case confirmDiscard(Int)
        /// Deleting the list item at this index from the workspace.
        case confirmDelete(Int)
    }

    public let environment: AppEnvironment
    var keyMap: KeyMap { environment.keyMap }
    /// Whether requests can be sent: false in a window that only browses session logs.
    var canSend: Bool { environment.agent != nil }
    /// What a key that would send says in a window that only browses session logs.
    static let noAgentMessage = "this window browses session logs: open curlew on the demo or a workspace to send, run or cancel"
    /// The commands that need an agent (sending, running, cancelling): a window without one
    /// names none of them (hints, help, palette). `r` only loads an exchange into Compose.
    private static let agentCommands: Set<Command> = [.send, .latency, .stepChain, .cancel, .cancelMember]
    /// The command-line commands that need an agent, likewise.
    private static let agentCommandLines: Set<String> = ["send", "run", "latency", "cancel"]
    /// What a key that reads the selected exchange says when it is a log entry whose line cannot
    /// be read; nil otherwise.
    var unreadableSelectionMessage: String? {
        guard pane == .logs, detail?.pane != .logs, let entry = logs.selectedUnreadableEntry else { return nil }
        let why = logs.opened?.index.linesReadable == false
            ? "the log is no longer read (\(logs.opened?.index.followingEnded ?? "it was truncated")); Esc, then Enter on its name, opens it as it now is"
            : "its line in the log is damaged"
        return "entry \(entry) cannot be read: \(why)"
    }
    /// A binding's help as this window shows it: without an agent, `r` loads into Compose and
    /// sends nothing, and says so.
    func help(for command: Command, _ help: String) -> String {
        canSend || command != .resend ? help : "load into Compose (this window sends nothing)"
    }
    /// What a key or `:` command that needs a workspace says in a window without one.
    static let noWorkspaceMessage = "no workspace open: start curlew in a directory with a curlew.yaml, or curlew tui --workspace FILE"
    /// The commands that need a workspace (saving, new groups, environments): a window without
    /// one (a log browser, `curlew tui` on a plain URL) names none of them either.
    private static let workspaceCommands: Set<Command> = [.save, .newGroup, .switchEnvironment]
    /// The command-line commands that need a workspace, likewise.
    private static let workspaceCommandLines: Set<String> = ["save", "reload", "env", "import"]
    /// Whether this window offers `command`: without an agent, none that needs one; without a
    /// workspace, none that needs one.
    func offers(_ command: Command) -> Bool {
        (canSend || !Self.agentCommands.contains(command)) && (workspace != nil || !Self.workspaceCommands.contains(command))
    }
    /// Whether this window offers the `:` command `name`, likewise.
    func offers(commandLine name: String) -> Bool {
        refusal(ofCommandLine: name) == nil
    }
    /// Why this window does not offer the `:` command `name`; nil when it does.
    func refusal(ofCommandLine name: String) -> String? {
        if let folded = foldedHeadingRefusal, Self.itemCommandLines.contains(name) { return folded }
        if !canSend, Self.agentCommandLines.contains(name) { return Self.noAgentMessage }
        if workspace == nil, Self.workspaceCommandLines.contains(name) { return Self.noWorkspaceMessage }
        return nil
    }
    /// The `:` commands that act on the item under Compose's cursor.
    private static let itemCommandLines: Set<String> = ["send", "cancel", "copy", "write", "write!", "latency", "save"]
    /// The `:` commands this window offers.
    var commandLineCommands: [String] {
        CommandLine.commands.filter { offers(commandLine: $0) }
    }
    public var pane: Pane = .compose
    public var compose: ComposeState
    /// The open workspace, as last read or saved.
    public var workspace: ComposeWorkspace? {
        didSet {
            guard let workspace else { return }
            let session = workspace.session
            if session.secretValues != oldValue?.session.secretValues || session.headersCarryingSecrets != oldValue?.session.headersCarryingSecrets {
                environment.secretsChanged?(session.secretValues, session.headersCarryingSecrets)
                // The session log hides them from now on (`NetworkLogger.hide`): so does the screen.
                exchangeRedaction.hideAlso(session.secretValues)
                exchangeRedaction.hideAlso(headers: session.headersCarryingSecrets)
            }
        }
    }
    /// What the screen hides of values shown apart from an exchange (variables, captures): the
    /// workspace's rules, or the defaults without one.
    var redactionPolicy: RedactionPolicy { workspace?.session.redactionPolicy ?? RedactionPolicy() }
    /// What exchanges on screen, and copied from it, hide: the session log's policy, with the
    /// secrets the workspace gained since it opened.
    private(set) lazy var exchangeRedaction = environment.exchangeRedaction
    /// Secrets in exchanges (Authorization, cookies, URL passwords, declared secrets) show only
    /// after the user reveals them (R), as the logs and exports hide them.
    public var revealsSecrets = false
    /// How a chain's captured value is shown apart from an exchange: hidden when named like a
    /// credential, or when the session log hides it (`RedactionPolicy.hideCaptured`: taken from
    /// a member or header a log hides).
    func shownCapture(named name: String, value: String) -> String {
        exchangeRedaction.secretValues.contains(value) ? RedactionPolicy.marker : redactionPolicy.shown(variable: name, value: value)
    }

    /// Hides a chain's captured value from now on, on screen as in the session log, when a log
    /// hides the capture (the chain stepper's, which no group event announces).
    func hideCaptured(_ value: String, named name: String, from source: Capture.Source) {
        guard exchangeRedaction.hideCaptured(value, named: name, from: source) else { return }
        environment.secretsChanged?([value], [])
    }

    /// The policy whose secrets the views of exchanges hide; nil while they are revealed.
    var secretsHiding: RedactionPolicy? { revealsSecrets ? nil : exchangeRedaction }
    public var live = LiveState()
    public var groups = GroupsState()
    public var logs = LogBrowserState()
    /// The open detail view and the pane it belongs to (Live or Logs).
    public var detail: (pane: Pane, state: DetailState)?
    public var prompt: Prompt?
    /// What a click selects, as the last frame drew it.
    var hitRegions: [HitRegion] = []
    public var showHelp = false
    public var helpScroll = 0
    public var message = ""
    /// The view the status line speaks of, when it speaks of one (`say(_:about:)`).
    var viewMessage: ViewMessage?
    /// The filter whose pattern's giving up the status line has told (see `TextPattern`).
    var gaveUpReportedFor: String?
    /// What a "cancelling ..." status line waits for: when it ends, the line says how.
    var cancelling: (target: CancelTarget, text: String)?
    /// The request a "sent … as #N" status line announced: if the agent refuses it before
    /// sending (at once, or later in its pipeline), the line says so instead, unless something
    /// else has taken the status line since.
    var announcedSend: (id: UInt64, text: String)?
    /// Failed `expect:` assertions of the members of groups not yet finished, by group and
    /// member place: a retried request's later answer replaces its earlier one's count. Only
    /// groups still open are judged, so an answer arriving after its group ended leaves nothing.
    private var memberFailures: [UInt64: [Int: Int]] = [:]
    private var openGroups: Set<UInt64> = []
    /// Failed assertions of finished nested groups, added to their parent's when it ends.
    private var nestedFailures: [UInt64: Int] = [:]

    /// A request, or a member of a group, the user asked to cancel.
    enum CancelTarget: Equatable {
        case request(UInt64)
        case member(group: UInt64, index: Int)
    }
    public var mouseEnabled = true
    /// The open command palette (Ctrl-P).
    public var palette: Palette?
    /// Each workspace request's exchanges in earlier sessions, newest first, by name.
    var recentAnswers: [String: [DebugMessage]] = [:]
    /// This session's newest answer to each request name, however it was sent (a group's run
    /// too), for Compose's panel on an item not sent from the editor since.
    private var lastAnswerByName: [String: UInt64] = [:]
    /// The open history of a request (`H`).
    public var history: HistoryState?
    /// Exchanges marked for comparison (`m`), oldest first, at most two.
    public var marked: [MarkedExchange] = []
    /// The open comparison of two exchanges.
    public var comparison: ComparisonState?
    /// The open latency run, and the batch that sends it.
    public var latency: LatencyState?
    var latencyRun: GroupHandle?
    /// Clipboard writes and editor runs for the curses loop to carry out.
    var terminalRequests: [TerminalRequest] = []
    /// The width of the last frame drawn, for messages that depend on the layout.
    var lastColumns = 0
    /// The last frame said the terminal is too small: only `q` is taken until it grows, since
    /// nothing a key does could be seen.
    var screenTooSmall = false
    public private(set) var shouldQuit = false
    /// Groups pane: focus on the member list of the selected group.
    public var groupMembersFocused = false
    /// The calendar rows read their times on (`Date.clockText(using:)`, the log tools' rule:
    /// the nearest millisecond), in the environment's time zone.
    let clock: Calendar
    /// Modification times in the log browser's file list.
    let fileTimeFormatter: DateFormatter

    public init(environment: AppEnvironment) {
        self.environment = environment
        workspace = environment.workspace
        var startMessage: String?
        if let workspace = environment.workspace {
            do {
                let (items, problems) = try workspace.itemsAndProblems()
                compose = ComposeState(items: items, tracksSaves: !workspace.isReadOnly)
                startMessage = problems.first.map { $0 + (problems.count > 1 ? " (and \(problems.count - 1) more)" : "") }
                recentAnswers = RecentAnswers.load(from: environment.sessionsDirectory, names: Set(workspace.session.workspace.requests.map(\.name)))
            } catch {
                compose = ComposeState(items: [])
                startMessage = "\(error)"
            }
        } else {
            compose = ComposeState(items: environment.composeItems)
        }
        var clock = Calendar(identifier: .gregorian)
        clock.timeZone = environment.timeZone
        self.clock = clock
        fileTimeFormatter = DateFormatter()
        fileTimeFormatter.locale = Locale(identifier: "en_US_POSIX")
        fileTimeFormatter.timeZone = environment.timeZone
        fileTimeFormatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        logs.refresh(directory: environment.sessionsDirectory, extraFiles: environment.extraLogFiles)
        if environment.agent == nil { pane = .logs }
        message = startMessage ?? (canSend ? "Ready. s sends, ? for help, q quits." : "Browsing session logs. ? for help.")
    }

    public var inFlightCount: Int { live.inFlightCount }

    /// Top-level groups still running, also between their requests (a chain between steps),
    /// and one just started whose first event is still on its way. Latency mode's batch of copies
    /// is not one the user made: `runningWork` names it apart.
    public var runningGroupCount: Int {
        groups.groups.reduce(groups.awaitedID == nil ? 0 : 1) {
            $0 + ($1.verdict == nil && $1.info.parentID == nil && $1.info.id != latencyRun?.id ? 1 : 0)
        }
    }

    /// `1 group running`, `2 groups running`; nil when none runs.
    public var runningGroupsText: String? {
        let count = runningGroupCount
        return count > 0 ? Chrome.counted(count, "group", "groups") + " running" : nil
    }

    /// What quitting now would cancel or end (`stepping through flow, 2 requests in flight, 1
    /// group running`); nil for nothing.
    public var runningWork: String? {
        let requests = inFlightCount
        let stepping = compose.stepping.flatMap { $0.outcome == nil ? "stepping through \($0.name)" : nil }
        let measuring = latency.flatMap { $0.ended ? nil : "latency \($0.name) running" }
        let parts = [stepping, measuring].compactMap { $0 } + (requests > 0 ? [Chrome.counted(requests, "request", "requests") + " in flight"] : [])
            + [runningGroupsText].compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }

    // MARK: Events

    public func ingest(_ events: [UIEvent]) {
        // A running request's open detail is rebuilt once per batch, however many items arrived.
        var streamedIDs = Set<UInt64>()
        defer { for id in streamedIDs { refreshRunningDetail(id) } }
        for event in events {
            switch event {
            case .willSend(let info):
                live.upsert(info) { $0.state = .pending }
            case .waiting(let info):
                live.upsert(info) { $0.state = .pending }
            case .didSend(let info):
                live.upsert(info) { $0.state = .inFlight }
            case .progress(let info, let progress):
                live.upsert(info) { $0.progress = progress }
            case .streamedBytes(let info, let bytes, _):
                live.upsert(info) { $0.addStreamed(bytes: bytes) }
                streamedIDs.insert(info.id)
            case .streamedEvent(let info, let event, let dropped):
                live.upsert(info) { $0.addStreamed(event, dropped: dropped) }
                streamedIDs.insert(info.id)
            case .message(let message):
                // A latency run's copies, and an exchange stopped before its answer, are no
                // request's latest answer; ids grow, so the largest is the newest.
                let ofLatencyRun = latency?.take(message) ?? false
                if !ofLatencyRun, message.state != .cancelled, let name = message.name {
                    lastAnswerByName[name] = max(lastAnswerByName[name] ?? 0, message.requestID)
                }
                if !ofLatencyRun { judgeGroupMember(message) }
                compose.follow(message)
                if let stepID = compose.stepping?.sentID, message.answeredRequestIDs.contains(stepID) {
                    // An attempt the agent retries is not the step's answer.
                    if message.endsRequest { takeStepAnswer(message) }
                } else {
                    settleAnnouncedSend(message)
                }
                let info = RequestInfo(id: message.requestID, name: message.name, method: message.original?.method ?? "?",
                                       url: message.original?.url ?? "", groupID: message.groupID, step: message.step, startedAt: message.startedAt)
                live.upsert(info) { row in
                    row.message = message
                    row.state = message.state
                }
                streamedIDs.insert(info.id)
                settleCancelling(.request(message.requestID), state: message.state)
            case .finished(let info, let state):
                live.upsert(info) { $0.state = state }
            case .group(let groupEvent):
                // A capture the session log hides from now on is hidden on screen too.
                if case .captured = groupEvent { _ = exchangeRedaction.hideCaptured(groupEvent) }
                groups.apply(groupEvent)
                judge(groupEvent)
                if case .memberChanged(let info, let update) = groupEvent, update.state.isTerminal {
                    settleCancelling(.member(group: info.id, index: update.index), state: update.state)
                }
                latency?.take(groupEvent)
                if case .finished(let info, let verdict, _, _) = groupEvent {
                    // Taken always, so nothing is left behind; latency mode's runs are measured, not judged.
                    let counted = takeFailedAssertions(of: info)
                    let failed = isLatencyWork(info) ? 0 : counted
                    groups.noteFailedAssertions(failed, inGroup: info.id)
                    guard info.parentID == nil else { break }
                    // Latency mode's copies run as a batch the user never made: the line names the mode.
                    message = info.id == latencyRun?.id
                        ? "\(info.name ?? "latency") \(verdict == .cancelled ? "stopped" : "finished")"
                        : "\(info.kind.label) \(info.name ?? "#\(info.id)") \(verdict.rawValue)" + ExpectationFailure.countText(failed)
                }
            }
        }
    }

    /// Checks a group member's answer against its workspace request's `expect:` assertions, as
    /// `curlew run` does, as it arrives (a member's answer always comes before its group's end).
    private func judgeGroupMember(_ answer: DebugMessage) {
        guard let workspace, let group = answer.groupID, openGroups.contains(group), let place = answer.step, let name = answer.name,
              workspace.session.workspace.request(named: name)?.expectations.isEmpty == false else { return }
        let expectations = workspace.session.expectations(of: name, captured: groups.capturedValues(inGroup: group))
        let failed = ExpectationReport(expectations, against: answer).failures.count
        memberFailures[group, default: [:]][place] = failed
        groups.setFailedAssertions(failed, group: group, member: place)
    }

    /// Opens a group for judging when it is created; a member that ended without any exchange
    /// (a chain step whose template could not be filled) fails its assertions as one, as in
    /// `curlew run`.
    private func judge(_ event: GroupEvent) {
        switch event {
        case .created(let info, _):
            if workspace != nil { openGroups.insert(info.id) }
        case .memberChanged(let info, let update):
            guard let workspace, openGroups.contains(info.id), update.state == .failed, update.requestID == nil, update.childGroupID == nil,
                  let expectations = workspace.session.workspace.request(named: update.label)?.expectations else { return }
            let failures = Expectation.unansweredFailures(of: expectations, error: update.error)
            if !failures.isEmpty {
                memberFailures[info.id, default: [:]][update.index] = failures.count
                groups.setFailedAssertions(failures.count, group: info.id, member: update.index)
            }
        default:
            break
        }
    }

    /// How many assertions failed in the group that just ended, its nested groups' included;
    /// added to its parent's at once, so a nested group's record dropped from the pane loses nothing.
    private func takeFailedAssertions(of info: GroupInfo) -> Int {
        openGroups.remove(info.id)
        let failed = (memberFailures.removeValue(forKey: info.id)?.values.reduce(0, +) ?? 0) + (nestedFailures.removeValue(forKey: info.id) ?? 0)
        if let parent = info.parentID, failed > 0 { nestedFailures[parent, default: 0] += failed }
        return failed
    }

    /// Whether the group is latency mode's batch or nested in it.
    private func isLatencyWork(_ info: GroupInfo) -> Bool {
        guard let run = latencyRun?.id else { return false }
        if info.id == run { return true }
        var parent = info.parentID
        // Nesting is shallow; the bound keeps a broken chain of records from looping.
        for _ in 0..<64 {
            guard let id = parent else { return false }
            if id == run { return true }
            parent = groups.group(id: id)?.info.parentID
        }
        return false
    }

    /// Replaces "sent … as #N" with "#N not sent: reason" when the agent refused #N before
    /// sending it, unless something else has taken the status line since.
    private func settleAnnouncedSend(_ answer: DebugMessage) {
        guard let (id, text) = announcedSend, answer.endsRequest, answer.answeredRequestIDs.contains(id) else { return }
        announcedSend = nil
        guard message == text, answer.sent == nil, let error = answer.error, error.cameBeforeSending else { return }
        message = "#\(id) not sent: \(error.message)"
    }

    /// Says how a request or member the status line is cancelling ended ("#2 cancelled"),
    /// unless something else has taken the status line since.
    private func settleCancelling(_ target: CancelTarget, state: RequestState) {
        guard let (awaited, text) = cancelling, awaited == target else { return }
        if message == text { message = "\(text.dropFirst("cancelling ".count)) \(state.rawValue)" }
        cancelling = nil
    }

    /// Compose's response panel follows the selected item's last request: its stream while it
    /// runs, then its debug message, on the tab the user chose.
    func refreshComposeResponse() {
        defer { refreshComposeChecks() }
        // The newest of what the item sent from the editor and what any run sent under its name.
        let byName = compose.stepping == nil ? compose.currentDraft(at: compose.responseItem).flatMap { lastAnswerByName[$0.entryName ?? $0.name] } : nil
        let newest = [compose.sentIDs[compose.responseItem], byName].compactMap { $0 }.max()
        guard let id = compose.stepping?.lastSentID ?? newest, let row = live.row(id: id) else {
            // Not sent in this session: the answer it got last time, if a log has one.
            let draft = compose.stepping == nil ? compose.currentDraft(at: compose.responseItem) : nil
            if let earlier = draft.flatMap({ recentAnswers[$0.entryName ?? $0.name]?.first }) {
                if compose.response?.message.startedAt != earlier.startedAt || compose.response?.message.requestID != earlier.requestID {
                    compose.response = DetailState(message: earlier)
                }
                compose.answeredEarlier = true
            } else {
                compose.response = nil
            }
            return
        }
        // An earlier session's answer is never this session's request, whatever its id (ids
        // start again at 1 in every session).
        let showedEarlier = compose.answeredEarlier
        compose.answeredEarlier = false
        let running = row.message == nil
        if !showedEarlier, let current = compose.response, current.message.requestID == id {
            guard current.isRunning else { return }
            // A finished answer that was not an event stream opens on its response (or error).
            let streamed = (row.message?.stream?.eventCount ?? 0) > 0
            compose.response = !running && current.tab == .stream && !streamed
                ? DetailState(message: row.detailMessage) : current.following(row.detailMessage, running: running)
        } else {
            compose.response = DetailState(message: row.detailMessage, running: running)
        }
    }

    /// The `expect:` assertions of the workspace request whose answer Compose shows, checked
    /// once per answer, when it has finished. An earlier session's answer is not checked: its
    /// log hid secrets, which assertions on them would read as failures.
    private func refreshComposeChecks() {
        guard let state = compose.response, !state.isRunning, !compose.answeredEarlier, compose.stepping == nil,
              let name = compose.currentDraft(at: compose.responseItem)?.sourceEntry,
              let session = workspace?.session, let expectations = session.workspace.request(named: name)?.expectations, !expectations.isEmpty else {
            compose.checks = nil
            return
        }
        if let checks = compose.checks, checks.describes(state.message, checking: expectations) { return }
        // Filled in as the request was: with what the chains captured so far.
        compose.checks = ExpectationReport(session.expectations(of: name, captured: groups.capturedVariables), against: state.message,
                                           hiding: { [secretsHiding] in secretsHiding?.redactText($0) ?? $0 })
    }

    /// A running request's open detail follows it: the stream so far, then the debug message
    /// once it arrives, on the same tab.
    private func refreshRunningDetail(_ id: UInt64) {
        guard let (pane, state) = detail, state.isRunning, state.message.requestID == id, let row = live.row(id: id) else { return }
        detail = (pane, state.following(row.detailMessage, running: row.message == nil))
    }

    // MARK: Keys

    public func handle(_ key: Key) {
        dispatch(key)
        dropMessageOfClosedView()
    }

    private func dispatch(_ key: Key) {
        if case .resize = key { return }
        if screenTooSmall {
            // Nothing acts unseen: a quit question (drawn on the small screen) is answered; any
            // other prompt is dropped, and only q is taken.
            switch prompt {
            case .confirmQuit, .confirmDiscard:
                handlePrompt(key)
            default:
                prompt = nil
                if case .character("q") = key { requestQuit() }
            }
            return
        }
        if prompt != nil { handlePrompt(key); return }
        if palette != nil { handlePalette(key); return }
        // Help is drawn over everything, latency mode and comparisons too: its keys are its own
        // (found by a new user's trial: x under it stopped a latency run unseen).
        if showHelp {
            switch key {
            case .down, .character("j"): helpScroll += 1
            case .up, .character("k"): helpScroll = max(0, helpScroll - 1)
            case .pageDown: helpScroll += 10
            case .pageUp: helpScroll = max(0, helpScroll - 10)
            default: showHelp = false
            }
            return
        }
        if comparison != nil || latency != nil, handleOverlay(key) { return }
        if history != nil, detail?.pane != pane, handleHistory(key) { return }
        if compose.editing != nil, pane == .compose { handleEditing(key); return }
        if compose.groupEditor?.editing != nil, pane == .compose { handleGroupEditing(key); return }
        if case .mouse(let event) = key { handleMouse(event); return }
        if case .paste(let text) = key {
            // A curl command pasted into Compose becomes a new request.
            if pane == .compose, ComposeState.isCurlCommand(text) {
                do {
                    compose.addNumbered(try ComposeState.draft(fromCurl: text))
                    let keys = [canSend ? "s sends it" : nil, compose.tracksSaves ? "w saves it" : nil].compactMap { $0 }
                    message = "the curl command is now \(compose.draft.name)" + (keys.isEmpty ? "" : "; " + keys.joined(separator: ", "))
                } catch {
                    message = "not a curl command this can read: \(error)"
                }
                return
            }
            message = "paste ignored: open a field (Enter) or a prompt first, then paste (a curl command pasted in Compose becomes a request)"
            return
        }
        if case .control(Key.quitCharacter) = key {
            environment.agent?.cancelAll()
            shouldQuit = true
            return
        }
        guard let command = keyMap.command(for: key, in: context) else { return }
        perform(command)
    }

    var context: KeyContext {
        if let detail, detail.pane == pane { return .detail }
        return pane.context
    }

    func requestQuit() {
        // A chain being stepped through is asked about first, and left as it is on no.
        if let stepper = compose.stepping, stepper.outcome == nil {
            prompt = .confirmQuit
            return
        }
        if compose.stepping != nil { stopStepping() }
        compose.keepDraft()
        if compose.unsavedCount > 0 {
            prompt = .confirmDiscard(compose.unsavedCount)
        } else if runningWork != nil {
            prompt = .confirmQuit
        } else {
            shouldQuit = true
        }
    }

    private func handlePrompt(_ key: Key) {
        switch prompt {
        case .confirmQuit, .confirmDiscard:
            prompt = nil
            guard key == .character("y") || key == .character("Y") else { return }
            if compose.stepping != nil {
                // The step-through ends and gives the editor back; unsaved edits are asked about next.
                stopStepping()
                compose.keepDraft()
                if compose.unsavedCount > 0 {
                    prompt = .confirmDiscard(compose.unsavedCount)
                    return
                }
            }
            environment.agent?.cancelAll()
            shouldQuit = true
        case .confirmDelete(let index):
            prompt = nil
            if key == .character("y") || key == .character("Y"), compose.items.indices.contains(index) { deleteItem(at: index) }
        case .filter(var editor):
            switch editor.handle(key) {
            case .committed:
                prompt = nil
                applyFilter(editor.text)
            case .cancelled: prompt = nil
            case .editing: prompt = .filter(editor)
            }
        case .search(var editor):
            switch editor.handle(key) {
            case .committed:
                prompt = nil
                detail?.state.setSearch(editor.text)
                let count = detail?.state.matches.count ?? 0
                say(count == 0 ? "no match for \(editor.text.debugDescription)" : "\(count) matching lines; n for next", about: .detailSearch(pane: pane, tab: detail?.state.tab ?? .response))
            case .cancelled: prompt = nil
            case .editing: prompt = .search(editor)
            }
        case .command(var editor):
            if key == .tab {
                editor.replace(with: CommandLine.complete(editor.text, items: compose.items, commands: commandLineCommands))
                prompt = .command(editor)
                return
            }
            switch editor.handle(key) {
            case .committed:
                prompt = nil
                runCommandLine(editor.text)
            case .cancelled: prompt = nil
            case .editing: prompt = .command(editor)
            }
        case nil:
            break
        }
    }

    func applyFilter(_ text: String) {
        guard pane == .logs, logs.opened != nil else {
            message = "open a session log in the Log browser (4) to filter it"
            return
        }
        logs.applyFilter(text)
        // The next frame reports a pattern that gave up (`render`), in this batch or a later one.
        gaveUpReportedFor = nil
        if let error = logs.opened?.filterError {
            // Said of the log it filters, so it goes when another view comes up.
            say("filter error " + error.description, about: .logFilter(path: logs.opened?.path ?? ""))
            prompt = .filter(LineEditor(text))
        } else {
            let matched = logs.opened?.visible.count ?? 0
            // While indexing or a decoding filter goes on, the count grows in the title.
            let sofar = logs.isCatchingUp ? " so far" : ""
            say(text.isEmpty ? "filter cleared" : Chrome.counted(matched, "entry matches", "entries match") + sofar,
                about: .logFilter(path: logs.opened?.path ?? ""))
        }
    }
}

/// The `:` command line: its commands and Tab completion.
enum CommandLine {
    static let commands = ["send", "cancel", "run", "filter", "open", "pane", "mouse", "follow", "pause", "save", "reload", "env", "copy", "write", "import", "latency", "compare", "help", "quit"]

    /// Completes the command name (one of `commands`, those the window offers), or for `run`,
    /// the name of a group in the Compose list.
    static func complete(_ text: String, items: [ComposeItem], commands: [String] = commands) -> String {
        let parts = text.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        if parts.count <= 1 {
            let matches = commands.filter { $0.hasPrefix(parts.first ?? "") }
            return matches.count == 1 ? matches[0] + " " : commonPrefix(matches) ?? text
        }
        let candidates: [String] = switch parts[0] {
        case "run": items.compactMap { if case .group(let name, _) = $0 { name } else { nil } }
        case "pane": Pane.allCases.map { $0.title.lowercased() }
        case "mouse": ["on", "off"]
        default: []
        }
        let matches = candidates.filter { $0.lowercased().hasPrefix(parts[1].lowercased()) }
        if matches.count == 1 { return parts[0] + " " + matches[0] }
        return commonPrefix(matches).map { parts[0] + " " + $0 } ?? text
    }

    private static func commonPrefix(_ words: [String]) -> String? {
        guard var prefix = words.first else { return nil }
        for word in words.dropFirst() {
            while !word.hasPrefix(prefix) { prefix.removeLast() }
        }
        return prefix.isEmpty ? nil : prefix
    }
}
