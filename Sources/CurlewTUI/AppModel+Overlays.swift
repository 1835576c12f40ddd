import CurlewAgent
import Foundation

/// The views that take over a pane until Esc: the comparison of two exchanges and latency mode.
extension AppModel {
    /// Marks the selected exchange (Live, Logs or an open detail) for comparison; the two
    /// newest marks are kept. Marking it again unmarks it. A log entry keeps its number.
    func markForComparison() {
        guard pane != .compose || detail?.pane == .compose, let exchange = exchangeToCopy() else {
            message = unreadableSelectionMessage ?? "select a request in Live or a log entry to mark it"
            return
        }
        let mark = MarkedExchange(message: exchange, source: selectedLogEntry())
        if let index = marked.firstIndex(where: { Self.same($0.message, exchange) }) {
            marked.remove(at: index)
            message = "unmarked \(mark.label)"
            return
        }
        marked.append(mark)
        if marked.count > 2 { marked.removeFirst() }
        message = marked.count == 2 ? "2 marked: = compares them" : "marked \(mark.label); mark another (from any log) and press =, or = compares it with the selected one"
    }

    /// Opens the comparison of the two marked exchanges, or of the marked one and the selection.
    func compareMarked() {
        var pair = marked
        if pair.count == 1, let selected = exchangeToCopy(), !Self.same(selected, pair[0].message) {
            pair.append(MarkedExchange(message: selected, source: selectedLogEntry()))
        }
        guard pair.count == 2 else {
            message = "mark two exchanges with m (or one, then select another), then = compares them"
            return
        }
        comparison = ComparisonState(pair[0].message, pair[1].message, hiding: secretsHiding, sources: (pair[0].source, pair[1].source))
        // The marking's instructions are done with (found by a new user's trial: they stayed
        // after the comparison closed).
        if message.hasPrefix("marked ") || message.hasPrefix("2 marked") { message = "" }
    }

    /// The log entry selected (in Logs, or the detail opened from it): its file and its number
    /// as `LOG#N` takes it; nil for anything else.
    func selectedLogEntry() -> LogEntrySource? {
        if let detail, detail.pane == pane { return detail.state.logEntry }
        guard pane == .logs, let opened = logs.opened, let entry = logs.selectedEntry else { return nil }
        return LogEntrySource(file: (opened.source as NSString).lastPathComponent, entry: entry)
    }

    /// Sends the edited request `count` times, one after another (or runs the selected group
    /// that many times), and opens latency mode.
    func startLatency(count: Int = LatencyState.defaultCount) {
        guard let agent = environment.agent else { message = Self.noAgentMessage; return }
        guard pane == .compose else { message = "latency mode sends the request being edited in Compose (1)"; return }
        guard (1...LatencyState.maxCount).contains(count) else { message = "latency sends 1 to \(LatencyState.maxCount) copies"; return }
        let chosen: (name: String, group: RequestGroup)?
        do { chosen = try groupToRun() } catch { message = "not run: \(error)"; return }
        if let (name, chosen) = chosen {
            let group: RequestGroup
            do { group = try workspace?.inEnvironment(chosen) ?? chosen } catch { message = "not run: \(error.message)"; return }
            if let problem = group.emptyGroupProblem(named: name) { message = "not run: \(problem)"; return }
            // What the agent would refuse before sending is said once, not logged in every run: each
            // request the group holds as written. One that still holds a `{{name}}` is left to the
            // run: a chain fills in what its steps capture, and a batch sends a literal `{{` as it is.
            for request in group.requests where (try? ChainVariables().expand(request)) != nil {
                do {
                    _ = try agent.config.composed(request)
                } catch {
                    let refusal = "\(ClippedText.plain(GroupMember.request(request).label, limit: 120)): \(error.message)"
                    message = "not run: " + (secretsHiding?.redactText(refusal) ?? refusal)
                    return
                }
            }
            // A group runs again and again, one run after another.
            let runs = RequestGroup.batch(Array(repeating: GroupMember.group(group), count: count), policy: .any, maxConcurrency: 1, name: "latency \(name)")
            let handle = agent.start(runs)
            latencyRun = handle
            latency = LatencyState(name: name, total: count, groupID: handle.id, runsGroup: true)
            message = "running \(name) \(count) times, one run after another"
            return
        }
        guard loadRequestUnderCursor(for: "latency mode") else { return }
        do {
            var request = try requestToSend()
            request.streamsResponse = false
            // What the agent would refuse before sending is said once, not logged for every copy.
            _ = try agent.config.composed(request)
            let group = RequestGroup.batch(Array(repeating: request, count: count), policy: .any, maxConcurrency: 1, name: "latency \(compose.draft.name)")
            let handle = agent.start(group)
            latencyRun = handle
            latency = LatencyState(name: compose.draft.name, total: count, groupID: handle.id)
            message = "sending \(compose.draft.name) \(count) times, one after another"
        } catch {
            message = "not sent: \(error.message)"
        }
    }

    /// Keys while a comparison or latency mode is open; true when the key was theirs.
    func handleOverlay(_ key: Key) -> Bool {
        switch key {
        case .escape:
            comparison = nil
            // Closing latency mode stops what it still has to send.
            if latency != nil, let run = latencyRun, !run.state.isTerminal { environment.agent?.cancel(run) }
            latency = nil
        case .down, .character("j"): scrollOverlay(by: 1)
        case .up, .character("k"): scrollOverlay(by: -1)
        case .pageDown, .control("f"): scrollOverlay(by: pageSize)
        case .pageUp, .control("b"): scrollOverlay(by: -pageSize)
        case .character("a") where comparison != nil:
            comparison?.showsAll.toggle()
            comparison?.scroll = 0
        case .character("x") where latency != nil:
            // Judged by what the screen shows (the run's end as its event told it), not by the
            // handle, which ends a moment before.
            if latency?.ended == true {
                say("the latency run has ended; Esc closes it", about: .overlay)
            } else {
                if let run = latencyRun { environment.agent?.cancel(run) }
                message = "latency run stopped"
            }
        case .character("q"), .control("c"), .character("?"), .mouse, .resize:
            return false
        case _ where keyMap.command(for: key, in: .global) == .toggleSecrets:
            return false
        default:
            say(comparison != nil ? "Esc closes the comparison" : "Esc closes latency mode" + (latency?.ended == true ? "" : " (x stops it)"), about: .overlay)
        }
        return true
    }

    private func scrollOverlay(by delta: Int) {
        if var state = comparison {
            state.scroll = max(0, state.scroll + delta)
            comparison = state
        }
    }

    /// The same exchange: one request of one log.
    private static func same(_ a: DebugMessage, _ b: DebugMessage) -> Bool {
        a.requestID == b.requestID && a.startedAt == b.startedAt && a.original?.url == b.original?.url
    }
}

/// The command palette.
extension AppModel {
    /// Command-line commands that need a word after them, offered in the palette.
    static let paletteCommandLines: [(text: String, help: String)] = [
        ("import", "import FILE: add a curl, HAR, .http, Postman or OpenAPI file to the workspace"),
        ("latency", "latency N: send the request N times in a row"),
        ("copy", "copy curl|url|body|har [raw]"),
        ("write", "write FILE: save the response body shown to a file, secrets hidden (write! replaces one; raw keeps secrets)"),
        ("env", "env NAME: switch the workspace's environment"),
        ("open", "open FILE: open a session log or HAR file"),
        ("filter", "filter EXPR: filter the open log"),
        ("run", "run GROUP: run a group"),
    ]

    /// Opens the palette on every command, every command-line command and every Compose item.
    func openPalette() {
        var entries: [Palette.Entry] = []
        var seen = Set<Command>()
        // A command bound in several contexts is offered once, as the current context has it
        // (`x` cancels the group in Groups, what the editor sent in Compose), else as the global
        // one: where it will run.
        let here = context
        let bindings = keyMap.bindings.filter { $0.context == here } + keyMap.bindings.filter { $0.context == .global && here != .global }
            + keyMap.bindings.filter { $0.context != here && $0.context != .global }
        // A window that only browses logs offers nothing that sends.
        for binding in bindings where !seen.contains(binding.command) && offers(binding.command) {
            seen.insert(binding.command)
            entries.append(.init(title: help(for: binding.command, binding.help), detail: binding.keys.map(\.label).joined(separator: " ") + " · " + binding.context.rawValue,
                                 action: .command(binding.command)))
        }
        for line in Self.paletteCommandLines where offers(commandLine: line.text) { entries.append(.init(title: ":" + line.text, detail: line.help, action: .commandLine(line.text))) }
        for (index, item) in compose.items.enumerated() {
            switch item {
            case .request(let draft): entries.append(.init(title: "\(draft.method) \(draft.name)", detail: "request · \(draft.url)", action: .item(index)))
            case .group(let name, let group): entries.append(.init(title: "\(group.kind.label) \(name)", detail: "group", action: .item(index)))
            }
        }
        palette = Palette(entries: entries)
    }

    func handlePalette(_ key: Key) {
        guard var current = palette else { return }
        switch key {
        case .escape: palette = nil; return
        // Ctrl-J cannot move it: a terminal sends it as Enter.
        case .up, .control("k"): current.selected = max(0, current.selected - 1)
        case .down, .control("n"): current.selected = min(max(0, current.matches.count - 1), current.selected + 1)
        case .enter:
            palette = nil
            let matches = current.matches
            guard matches.indices.contains(current.selected) else { return }
            runPaletteAction(matches[current.selected].action)
            return
        default:
            _ = current.query.handle(key)
            current.selected = 0
        }
        palette = current
    }

    private func runPaletteAction(_ action: Palette.Action) {
        switch action {
        case .command(let command): perform(command)
        case .commandLine(let text): prompt = .command(LineEditor(text + " "))
        case .item(let index):
            guard compose.items.indices.contains(index), leaveGroupEditor() else { return }
            detail = nil
            pane = .compose
            compose.focus = .list
            compose.selectedItem = index
            if case .request = compose.items[index] {
                _ = compose.loadSelected()
            }
        }
    }
}

/// Running a chain one step at a time.
extension AppModel {
    /// Starts stepping through the chain selected in Compose's list.
    func startStepping() {
        guard environment.agent != nil else { message = Self.noAgentMessage; return }
        let selected: (name: String, group: RequestGroup)?
        do { selected = try groupToRun() } catch { message = "not stepped: \(error)"; return }
        if let selected, ChainStepper.hasGroupStep(selected.group) {
            message = "\(selected.name) has a group among its steps, which the editor cannot hold: s runs it whole"
            return
        }
        guard pane == .compose, let selected,
              let stepper = ChainStepper(name: selected.name, group: selected.group, draftBefore: compose.draft, loadedItemBefore: compose.loadedItem,
                                         defaultHeaders: workspace?.session.config.defaultHeaders ?? environment.agent?.config.defaultHeaders ?? [:],
                                         environment: workspace?.session.environment) else {
            message = "select a chain in the list, then S steps through it"
            return
        }
        compose.closeGroupEditor()
        compose.keepDraft()
        compose.stepping = stepper
        loadStep()
    }

    /// Puts the current step's request in the editor with its templates as written (the
    /// stepper's line shows what was captured); a step that cannot be filled in stops the run.
    private func loadStep() {
        guard let stepper = compose.stepping else { return }
        do {
            _ = try stepper.resolvedRequest()
            let step = try stepper.stepRequest()
            // A workspace's step is its entry as written, as the editor holds it (variables,
            // escapes and all), and goes out as the editor sends that entry.
            var draft = step.name.flatMap { try? workspace?.draft(named: $0) } ?? RequestDraft(step, baseURL: nil)
            draft.name = "\(stepper.name) · step \(stepper.index + 1)"
            compose.draft = draft
            compose.loadedItem = nil
            compose.focus = .editor
            compose.fieldIndex = 0
            say("step \(stepper.index + 1) of \(stepper.stepCount) is in the editor: edit it if you like, s sends it, Esc stops", about: .stepper)
        } catch {
            compose.stepping?.end(error.message)
            message = "stopped: \(error.message)"
        }
    }

    /// Sends the step in the editor.
    func sendStep() {
        guard let agent = environment.agent, var stepper = compose.stepping else { return }
        guard stepper.outcome == nil else { say("the run has ended (\(stepper.outcome ?? "")); Esc goes back", about: .stepper); return }
        guard stepper.sentID == nil else { message = "step \(stepper.index + 1) is on its way"; return }
        // What earlier steps captured came from the servers of the environment the run began in.
        if let workspace, workspace.session.environment != stepper.environment {
            say("the environment changed since the run began (it began in \(stepper.environment ?? "none")): Esc ends the run, then S starts it here", about: .stepper)
            return
        }
        do {
            // The chosen environment's config is applied as the step goes, not shown in the editor.
            try compose.draft.checkURLGiven()
            try compose.draft.checkNothingHidden()
            var request: Request
            if let workspace, compose.draft.entryName != nil {
                request = try workspace.request(for: compose.draft, captured: stepper.captured, withholding: stepper.namesCapturedBefore)
            } else {
                request = try stepper.request(editedAs: compose.draft)
                if let workspace { request = try workspace.inEnvironment(request) }
            }
            request.streamsResponse = true
            // Its captures are checked as the request's own, as a chain's run checks them: a
            // missing one fails the request, and the session log says so.
            if stepper.steps.indices.contains(stepper.index) { request.validation.captures = stepper.steps[stepper.index].captures }
            let handle = agent.start(request)
            stepper.sentID = handle.id
            stepper.lastSentID = handle.id
            compose.stepping = stepper
            compose.noteSent(handle)
            // The answer takes the variables panel's place, as a request's send does.
            compose.showsVariables = false
            message = "sent step \(stepper.index + 1) of \(stepper.stepCount) as #\(handle.id)"
        } catch {
            message = "not sent: \(error.message)"
        }
    }

    /// A step's answer: its captures, then the next step in the editor.
    func takeStepAnswer(_ answer: DebugMessage) {
        guard var stepper = compose.stepping, let sentID = stepper.sentID, answer.answeredRequestIDs.contains(sentID) else { return }
        let captures = stepper.steps.indices.contains(stepper.index) ? stepper.steps[stepper.index].captures : []
        message = stepper.take(answer)
        // A capture a log hides is hidden from now on, as a chain's run hides it.
        for capture in captures {
            if let value = stepper.captured.last(where: { $0.name == capture.name })?.value { hideCaptured(value, named: capture.name, from: capture.source) }
        }
        compose.stepping = stepper
        if stepper.outcome == nil { loadStep() }
    }

    /// Ends the run and gives the editor back what it held before.
    func stopStepping() {
        guard let stepper = compose.stepping else { return }
        if let id = stepper.sentID, let handle = compose.lastSent, handle.id == id, !handle.state.isTerminal { environment.agent?.cancel(handle) }
        compose.stepping = nil
        compose.draft = stepper.draftBefore
        compose.loadedItem = stepper.loadedItemBefore
        compose.focus = .list
        message = stepper.outcome.map { "stepping ended: \($0)" } ?? "stepping stopped at step \(stepper.index + 1) of \(stepper.stepCount)"
    }
}
