import CurlewAgent
import CurlewSessions
import CurlewTestSupport
@testable import CurlewTUI
import Foundation
import Testing

/// What a user types or pastes is input: a paste is text, never commands, and a value that does
/// not fit its field is named while it is typed.
@Suite("Keys and pastes as input")
struct InputSafetyTests {
    private func model() -> AppModel {
        AppModel(environment: AppEnvironment(
            agent: Agent(config: NetworkConfig(baseURL: "http://127.0.0.1:9")), name: "test", sessionLogPath: nil, sessionsDirectory: NSTemporaryDirectory() + "none-" + UUID().uuidString,
            composeItems: [.request(RequestDraft(Request(.post, "/post", name: "post"), baseURL: "http://127.0.0.1:9"))],
            timeZone: TimeZone(identifier: "UTC")!, processEnvironment: [:]
        ))
    }

    @Test("d on an editor field that is no row says what it removes and changes nothing (found by a new user's trial: it said nothing)")
    func deleteOnAFieldThatIsNoRow() throws {
        let model = model()
        model.handle(.enter)
        #expect(model.compose.focus == .editor)
        model.compose.fieldIndex = try #require(model.compose.fields.firstIndex(of: .name))
        model.handle(.character("d"))
        #expect(model.message == "d removes a parameter or header row; edit this field to change or empty it", "\(model.message)")
        #expect(model.compose.draft.name == "post")
    }

    @Test("Groups hides a captured value named like a credential, as the Variables view does; other captures show (found by review)")
    func capturedSecretsHidden() throws {
        let model = try TUIFixtures.model()
        TUIFixtures.populate(model)
        model.groups.apply(.captured(GroupInfo(id: 20, name: "login -> profile", kind: .chain, parentID: nil, indexInParent: nil, isPriorityGate: false),
                                     step: 1, name: "userID", value: "u-42", source: .jsonPath("$.id")))
        model.handle(.character("3"))
        let screen = VirtualScreen(rows: 50, columns: 160)
        screen.present(model.render(rows: 50, columns: 160))
        #expect(screen.text.contains("{{token}} = \(RedactionPolicy.marker)"))
        #expect(!screen.text.contains("demo-1234"))
        #expect(screen.text.contains("{{userID}} = u-42"))

        // Captured from a member a log hides, under a name that says nothing: hidden too, and in
        // the exchanges after it, as the session log hides it.
        let chain = GroupInfo(id: 20, name: "login -> profile", kind: .chain, parentID: nil, indexInParent: nil, isPriorityGate: false)
        model.ingest([.group(.captured(chain, step: 1, name: "at", value: "sessionsecret-99", source: .jsonPath("$.auth.token")))])
        screen.present(model.render(rows: 50, columns: 160))
        #expect(screen.text.contains("{{at}} = \(RedactionPolicy.marker)"), "\(screen.text)")
        #expect(!screen.text.contains("sessionsecret-99"))
        #expect(model.exchangeRedaction.secretValues.contains("sessionsecret-99"))
    }

    @Test("a group with no members is not run, whichever way it is started: it would succeed having run nothing (found by a new user's trial: the list ran batch: [] as a success)")
    func emptyGroupNotRun() {
        let model = model()
        model.run(RequestGroup.batch([Request]()), named: "nothing")
        #expect(model.message.contains("not run: nothing has no members: nothing would run"), "\(model.message)")
        #expect(model.compose.lastGroup == nil)
        // Nested at any depth, the same.
        model.run(RequestGroup.batch([.request(Request(.get, "/get")), .group(RequestGroup.batch([Request](), name: "inner"))]), named: "outer")
        #expect(model.message.contains("not run: outer holds inner, which has no members: nothing would run for it"), "\(model.message)")
    }

    @Test("the status bar offers ? help and q quit only where those keys do that: not while a field, the palette or a prompt takes typed keys (found by a new user's trial)")
    func closingHintsOnlyWhereTheyAct() {
        let model = model()
        func bar() -> String {
            let screen = VirtualScreen(rows: 24, columns: 120)
            screen.present(model.render(rows: 24, columns: 120))
            return screen.text.split(separator: "\n").last.map(String.init) ?? ""
        }
        #expect(bar().contains("? help · q quit"))
        model.compose.focus = .editor
        model.compose.editing = (.body, LineEditor())
        #expect(!bar().contains("q quit"), "q types a q in the field")
        model.handle(.character("q"))
        #expect(!model.shouldQuit)
        model.handle(.escape)
        model.handle(.character(":"))
        #expect(!bar().contains("q quit"), "q types a q at the command line")
        model.handle(.escape)
        model.handle(.character("?"))
        #expect(bar().contains("any other key closes") && !bar().contains("q quit"), "over the help, q only closes it")
    }

    @Test("exchanges show their secrets hidden until R reveals them: Live's URL, the Request and Wire tabs, and R hides them again (found by a new user's trial: the logs hid what the screen showed)")
    func secretsHiddenUntilRevealed() throws {
        let model = try TUIFixtures.model()
        model.ingest([.message(Fixtures.message(id: 9, url: "http://api.example.test/items?api_key=k-123456&page=2",
                                                requestHeaders: [HeaderField(name: "Authorization", value: "Basic dXNlcjpzM2NyZXQ=")]))])
        func screen() -> String { TUIFixtures.screenText(of: model, rows: 40, columns: 160) }
        model.handle(.character("2"))
        var text = screen()
        #expect(text.contains("page=2") && !text.contains("k-123456"), "\(text)")
        model.live.selected = model.live.rows.prefix(model.live.visibleCount).firstIndex { $0.info.id == 9 } ?? 0
        model.handle(.enter)
        for tab in [DetailState.Tab.request, .wire] {
            model.detail?.state.tab = tab
            text = screen()
            #expect(text.contains("Authorization") && text.contains(RedactionPolicy.marker), "\(tab): \(text)")
            #expect(!text.contains("dXNlcjpzM2NyZXQ=") && !text.contains("k-123456"), "\(tab): \(text)")
        }
        model.handle(.character("R"))
        text = screen()
        #expect(text.contains("Basic dXNlcjpzM2NyZXQ=") && text.contains("SECRETS SHOWN"), "revealed on the open tab: \(text)")
        model.handle(.character("R"))
        text = screen()
        #expect(!text.contains("dXNlcjpzM2NyZXQ=") && !text.contains("SECRETS SHOWN"), "hidden again: \(text)")
    }

    @Test("the screen hides what the session log hides: a declared secret of another environment, in the comparison too, where R reveals it (found by review)")
    func screenHidesWhatTheLogHides() throws {
        var policy = RedactionPolicy()
        policy.secretValues = ["other-env-s3cret"]
        let model = AppModel(environment: AppEnvironment(
            agent: nil, name: "test", sessionLogPath: nil, sessionsDirectory: NSTemporaryDirectory() + "none-" + UUID().uuidString,
            timeZone: TimeZone(identifier: "UTC")!, processEnvironment: [:], exchangeRedaction: policy
        ))
        model.ingest([.message(Fixtures.message(id: 1, url: "http://api.example.test/a", requestHeaders: [HeaderField(name: "X-Key", value: "other-env-s3cret")])),
                      .message(Fixtures.message(id: 2, url: "http://api.example.test/b"))])
        func screen() -> String { TUIFixtures.screenText(of: model, rows: 40, columns: 160) }
        model.handle(.character("2"))
        model.live.selected = 0
        model.handle(.character("m"))
        model.live.selected = 1
        model.handle(.character("m"))
        model.handle(.character("="))
        #expect(model.comparison != nil)
        model.comparison?.showsAll = true
        var text = screen()
        #expect(text.contains("X-Key") && !text.contains("other-env-s3cret"), "\(text)")
        model.handle(.character("R"))
        #expect(model.comparison != nil, "R leaves the comparison open")
        text = screen()
        #expect(text.contains("other-env-s3cret"), "revealed in the comparison: \(text)")
    }

    @Test("a paste outside a field is ignored, however many command keys it holds")
    func pasteIsNotCommands() {
        let model = model()
        model.handle(.paste("s2s3q{\"s\": 1}"))
        #expect(model.live.rows.isEmpty)
        #expect(model.pane == .compose)
        #expect(!model.shouldQuit)
        #expect(model.message.hasPrefix("paste ignored"))
    }

    @Test("a curl command pasted twice, or two commands whose names come out alike, become requests of their own names (found by a new user's trial: they shared one name, so w refused the second and H mixed their histories)")
    func pastedNamesAreNumbered() {
        let model = model()
        model.handle(.paste("curl http://127.0.0.1:9/fault/close"))
        model.handle(.paste("curl http://127.0.0.1:9/fault/close"))
        model.handle(.paste("curl 'http://u:Sekr3tPw@127.0.0.1:9/basic-auth/u/Sekr3tPw'"))
        model.handle(.paste("curl 'http://u:0.0.1@127.0.0.1:9/basic-auth/u/0.0.1'"))
        let names = model.compose.items.compactMap { item -> String? in
            if case .request(let draft) = item { return draft.name }
            return nil
        }
        #expect(names.suffix(4) == ["GET /fault/close", "GET /fault/close 2", "GET /basic-auth/u/[REDACTED]", "GET /basic-auth/u/[REDACTED] 2"], "\(names)")
    }

    @Test("a multi-line paste into the body keeps its newlines and sends nothing")
    func multiLinePasteIntoBody() {
        let model = model()
        model.compose.focus = .editor
        model.compose.editing = (.body, LineEditor())
        model.handle(.paste("{\n  \"s\": \"send\"\n}"))
        model.handle(.enter)
        #expect(model.compose.draft.body == "{\n  \"s\": \"send\"\n}")
        #expect(model.live.rows.isEmpty)
    }

    @Test("a method that is not a token, and a timeout of inf, are refused with the field's name")
    func fieldValidation() {
        var compose = model().compose
        #expect(compose.commit("GET /x HTTP/1.1", to: .method)?.contains("not an HTTP token") == true)
        #expect(compose.commit("inf", to: .timeout)?.hasPrefix("timeout ") == true)
        #expect(compose.commit("nan", to: .timeout) != nil)
        #expect(compose.commit("2.5", to: .timeout) == nil)
        #expect(compose.draft.timeoutSeconds == 2.5)
        #expect(compose.commit("purge", to: .method) == nil)
        #expect(compose.draft.method == "PURGE")
    }

    @Test("errors show while the user types: the URL in Compose, the filter with a caret")
    func errorsWhileTyping() {
        let model = model()
        let screen = VirtualScreen(rows: 24, columns: 100)
        model.compose.focus = .editor
        model.compose.editing = (.url, LineEditor("ftp://x"))
        screen.present(model.render(rows: 24, columns: 100))
        #expect(screen.text.contains("must start with http:// or https://"))
        model.handle(.escape)

        model.prompt = .filter(LineEditor("~c 9xx"))
        screen.present(model.render(rows: 24, columns: 100))
        let lines = screen.text.split(separator: "\n", omittingEmptySubsequences: false)
        let caretLine = try? #require(lines.first { $0.contains("^ status must be") })
        #expect(caretLine?.firstIndex(of: "^").map { caretLine!.distance(from: caretLine!.startIndex, to: $0) } == 8 + 3)
    }
}

@Suite("What the panes report, as a user reads it")
struct PaneReportTests {
    private func model() -> AppModel {
        AppModel(environment: AppEnvironment(
            agent: Agent(config: NetworkConfig(baseURL: "http://127.0.0.1:9")), name: "test", sessionLogPath: nil,
            sessionsDirectory: NSTemporaryDirectory() + "none-" + UUID().uuidString, composeItems: [],
            timeZone: TimeZone(identifier: "UTC")!, processEnvironment: [:]
        ))
    }

    private let batch = GroupInfo(id: 50, name: "three", kind: .batch, parentID: nil, indexInParent: nil, isPriorityGate: false)

    @Test("a cancelled batch does not show 100 %: cancelled members are counted apart, and one that never started is not run, as curlew run says (found by a new user's trial: it read cancelled)")
    func cancelledBatchProgress() {
        let model = model()
        model.ingest([
            .group(.created(batch, memberLabels: ["a", "b", "c"])), .group(.started(batch, at: .now)),
            .group(.memberChanged(batch, MemberUpdate(index: 0, label: "a", state: .succeeded, statusCode: 200))),
            .group(.memberChanged(batch, MemberUpdate(index: 1, label: "b", state: .pending))),
            .group(.memberChanged(batch, MemberUpdate(index: 1, label: "b", state: .cancelled))),
            .group(.memberChanged(batch, MemberUpdate(index: 2, label: "c", state: .cancelled))),
            .group(.finished(batch, verdict: .cancelled, duration: 1_000, failedMembers: [])),
        ])
        model.handle(.character("3"))
        let screen = VirtualScreen(rows: 24, columns: 100)
        screen.present(model.render(rows: 24, columns: 100))
        #expect(screen.text.contains("33 % (1/3, 1 cancelled, 1 not run)"), "\(screen.text)")
        #expect(!screen.text.contains("100 %"))
        let rows = screen.text.split(separator: "\n")
        #expect(rows.contains { $0.contains(" b ") && $0.contains("cancelled") }, "\(screen.text)")
        #expect(rows.contains { $0.contains(" c ") && $0.contains("not run") }, "\(screen.text)")
    }

    @Test("a member's time and place in Groups are by the agent's clock, however late or together its events arrive (a trial saw nested runs of a few ms shown as 0.04 ms)")
    func memberTimesByAgentClock() {
        let model = model()
        let start = ContinuousClock.now - .seconds(5)
        func at(_ milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }
        // All arrive in one batch, long after they happened, as a lane delivers them.
        model.ingest([
            .group(.created(batch, memberLabels: ["a", "b"])), .group(.started(batch, at: at(0))),
            .group(.memberChanged(batch, MemberUpdate(index: 0, label: "a", state: .pending, at: at(0)))),
            .group(.memberChanged(batch, MemberUpdate(index: 0, label: "a", state: .succeeded, at: at(7)))),
            .group(.memberChanged(batch, MemberUpdate(index: 1, label: "b", state: .pending, at: at(7)))),
            .group(.memberChanged(batch, MemberUpdate(index: 1, label: "b", state: .succeeded, at: at(12)))),
            .group(.finished(batch, verdict: .succeeded, duration: 12_000, failedMembers: [])),
        ])
        let members = model.groups.groups.last?.members ?? []
        #expect(members.map(\.startedAt) == [0, 7_000] && members.map(\.finishedAt) == [7_000, 12_000], "\(members)")
        model.handle(.character("3"))
        let screen = VirtualScreen(rows: 24, columns: 120)
        screen.present(model.render(rows: 24, columns: 120))
        #expect(screen.text.contains("7.000 ms") && screen.text.contains("5.000 ms"), "\(screen.text)")
    }

    @Test("a long run keeps its own row while its oldest nested runs go, and the list scrolls to the selected group (found by a new user's trial: after 500 latency runs the batch's row was gone and the selection went off screen)")
    func longRunKeepsItsRowAndListScrolls() {
        var state = GroupsState(capacity: 20)
        let now = ContinuousClock.now
        state.apply(.created(batch, memberLabels: (0..<100).map { "run \($0)" }))
        state.apply(.started(batch, at: now))
        for index in 0..<100 {
            let run = GroupInfo(id: 1_000 + UInt64(index), name: "run \(index)", kind: .chain, parentID: batch.id, indexInParent: index, isPriorityGate: false)
            state.apply(.created(run, memberLabels: ["a"]))
            state.apply(.started(run, at: now))
            state.apply(.finished(run, verdict: .succeeded, duration: 1_000, failedMembers: []))
        }
        #expect(state.groups.count == 20)
        #expect(state.groups.first?.info.id == batch.id, "\(state.groups.map(\.info.id))")
        #expect(state.groups.last?.info.id == 1_099)
        let model = model()
        model.ingest([.group(.created(batch, memberLabels: ["a"]))] + (0..<60).map { index in
            .group(.created(GroupInfo(id: 2_000 + UInt64(index), name: "g\(index)", kind: .batch, parentID: nil, indexInParent: nil, isPriorityGate: false),
                            memberLabels: ["a"]))
        })
        model.handle(.character("3"))
        let screen = VirtualScreen(rows: 24, columns: 120)
        screen.present(model.render(rows: 24, columns: 120))
        #expect(model.groups.selected == model.groups.groups.count - 1)
        #expect(screen.text.contains("batch g59"), "\(screen.text)")
    }

    @Test("a nested run shows no status of its own: a cancelled one read \"cancelled 200\" from its last request (found by a new user's trial)")
    func nestedRunHasNoStatus() {
        let model = model()
        model.ingest([
            .group(.created(batch, memberLabels: ["run 1", "plain"])), .group(.started(batch, at: .now)),
            .group(.memberChanged(batch, MemberUpdate(index: 0, label: "run 1", state: .cancelled, childGroupID: 900, statusCode: 200))),
            .group(.memberChanged(batch, MemberUpdate(index: 1, label: "plain", state: .cancelled, requestID: 5, statusCode: 200))),
        ])
        model.handle(.character("3"))
        let screen = VirtualScreen(rows: 24, columns: 100)
        screen.present(model.render(rows: 24, columns: 100))
        let rows = screen.text.split(separator: "\n")
        let nested = rows.first { $0.contains("run 1") }.map(String.init) ?? ""
        #expect(nested.contains("cancelled") && !nested.contains("200"), "\(screen.text)")
        #expect(rows.first { $0.contains("plain") }?.contains("cancelled 200") == true, "a request cancelled after its head keeps the status it got")
    }

    @Test("a member's time in Groups is its request's elapsed time, as Live shows it")
    func memberTimeMatchesLive() {
        let model = model()
        let message = Fixtures.message(id: 77, elapsedMicros: 123_400)
        model.ingest([
            .group(.created(batch, memberLabels: ["a"])), .group(.started(batch, at: .now)),
            .group(.memberChanged(batch, MemberUpdate(index: 0, label: "a", state: .pending, requestID: 77))),
            .message(message),
            .group(.memberChanged(batch, MemberUpdate(index: 0, label: "a", state: .succeeded, requestID: 77, statusCode: 200))),
        ])
        model.handle(.character("3"))
        let screen = VirtualScreen(rows: 24, columns: 100)
        screen.present(model.render(rows: 24, columns: 100))
        #expect(screen.text.contains(TimingBreakdown.format(message.timings!.elapsed)))
    }

    @Test("re-sending leaves the agent's automatic headers automatic")
    func resendKeepsAutomaticHeaders() {
        var message = Fixtures.message(requestHeaders: [HeaderField(name: "X-Custom", value: "1"), HeaderField(name: "Content-Type", value: "application/json")])
        message.original?.automaticHeaders = ["User-Agent", "Content-Type"]
        let draft = RequestDraft(message)
        #expect(draft.headers.map(\.name) == ["X-Custom"])
    }

    @Test("re-sending an entry from a redacted log switches the hidden rows off and names them, so [REDACTED] is never sent")
    func resendRedactedEntry() throws {
        let logged = RedactionPolicy().redact(Fixtures.message(
            url: "http://api.example.test/users/7?token=abc&page=2",
            requestHeaders: [HeaderField(name: "Authorization", value: "Bearer abc"), HeaderField(name: "X-Trace", value: "t1")]))
        let draft = RequestDraft(logged)
        #expect(draft.headers.first { $0.name == "Authorization" }?.enabled == false)
        #expect(draft.headers.first { $0.name == "X-Trace" }?.enabled == true)
        #expect(draft.params.map(\.name) == ["token", "page"])
        #expect(draft.params.map(\.enabled) == [false, true])
        #expect(RequestDraft.hiddenSummary(of: logged) == "the record hid Authorization, token (switched off): fill in before sending")
        let request = try draft.makeRequest(variables: ChainVariables())
        #expect(request.headers["Authorization"] == nil)
        let sent = request.customURL ?? request.path
        #expect(sent.contains("page=2") && !sent.contains("token") && !sent.contains(RedactionPolicy.marker), "\(sent)")
        #expect(draft.rowsHoldingHiddenValues.isEmpty)
        var switchedOn = draft
        switchedOn.headers = switchedOn.headers.map { var row = $0; row.enabled = true; return row }
        #expect(switchedOn.rowsHoldingHiddenValues == ["Authorization"], "a row switched back on is caught before sending")
        // Every sending path goes through one check (s and latency mode alike); a copy as a
        // command keeps the marker in sight.
        let model = model()
        model.compose.draft = switchedOn
        #expect(throws: RequestError.self) { try model.requestToSend() }
        #expect(try model.requestToSend(forSending: false).headers["Authorization"] == RedactionPolicy.marker)
        #expect(RequestDraft.hiddenSummary(of: Fixtures.message()) == nil)
        // A URL password hidden in the record is dropped, the user name kept.
        let withPassword = RedactionPolicy().redact(Fixtures.message(url: "http://alice:pw1@api.example.test/me"))
        #expect(RequestDraft(withPassword).url == "http://alice@api.example.test/me")
        #expect(RequestDraft.hiddenSummary(of: withPassword) == "the record hid the URL's password (dropped): fill in before sending")
        // A password and a hidden query parameter together: both are named.
        let both = RedactionPolicy().redact(Fixtures.message(url: "http://alice:pw1@api.example.test/me?token=abc&page=2"))
        #expect(RequestDraft(both).params.map(\.enabled) == [false, true])
        #expect(RequestDraft.hiddenSummary(of: both) == "the record hid token (switched off), the URL's password (dropped): fill in before sending")
        // A path the record hid a repeated password in is refused by `s` until filled in
        // (found by a new user's trial: it went out, and the server answered 401).
        let inPath = RedactionPolicy().redact(Fixtures.message(url: "http://alice:Sekr3tPw@api.example.test/basic-auth/alice/Sekr3tPw"))
        #expect(RequestDraft.hiddenSummary(of: inPath) == "the record hid the URL's password (dropped), part of the URL (holds [REDACTED]): fill in before sending")
        model.compose.draft = RequestDraft(inPath)
        #expect(throws: RequestError.self) { try model.requestToSend() }
        #expect(try model.requestToSend(forSending: false).customURL?.hasSuffix("/basic-auth/alice/[REDACTED]") == true)
        model.compose.draft.url = "http://alice@api.example.test/basic-auth/alice/%5BREDACTED%5D"
        #expect(try model.requestToSend().customURL?.hasSuffix("/%5BREDACTED%5D") == true)
    }

    @Test("while the terminal is too small only q is taken: no key acts unseen")
    func tooSmallTakesOnlyQuit() {
        let model = model()
        _ = model.render(rows: 15, columns: 60)
        model.handle(.character("2"))
        model.handle(.character("s"))
        #expect(model.pane == .compose, "a pane key did nothing")
        _ = model.render(rows: 24, columns: 80)
        model.handle(.character("2"))
        #expect(model.pane == .live, "keys act again once the interface is drawn")

        // A command line opened before the terminal shrank is dropped, not typed into unseen.
        model.handle(.character(":"))
        #expect(model.prompt != nil)
        _ = model.render(rows: 15, columns: 60)
        for key: Key in [.character("s"), .character("e"), .character("n"), .character("d"), .enter] { model.handle(key) }
        #expect(model.prompt == nil)
        #expect(model.live.rows.isEmpty, "nothing was sent")

        // A quit question is drawn on the small screen and answered there.
        model.prompt = .confirmDiscard(2)
        let screen = VirtualScreen(rows: 15, columns: 60)
        screen.present(model.render(rows: 15, columns: 60))
        #expect(screen.text.contains("2 unsaved: quit? (y/n)"), "\(screen.text)")
        model.handle(.character("n"))
        #expect(model.prompt == nil && !model.shouldQuit)
        model.prompt = .confirmDiscard(2)
        model.handle(.character("y"))
        #expect(model.shouldQuit)
    }

    @Test("an unknown variable's message suggests close names, never the whole environment")
    func unknownVariable() {
        let environment = (0..<200).map { ("ENV_VARIABLE_\($0)", "secret-\($0)") }
        let variables = ChainVariables(environment + [("token", "t"), ("tokens", "u")])
        do {
            _ = try variables.expand("/x/{{tokn}}")
            Issue.record("an unknown variable expanded")
        } catch {
            #expect(error.message.contains("did you mean {{token}}, {{tokens}}?"))
            #expect(error.message.contains("202 defined"))
            #expect(!error.message.contains("ENV_VARIABLE"))
        }
    }
}

@Suite("Filters as typed")
struct FilterInputTests {
    @Test("a rejected filter is not shown as the one in effect")
    func rejectedFilter() throws {
        let model = try TUIFixtures.model()
        model.handle(.character("4"))
        model.handle(.enter)
        model.applyFilter("~c 5xx")
        let matching = model.logs.opened?.visible
        model.applyFilter("~c 9xx")
        model.handle(.escape)
        #expect(model.logs.opened?.filterText == "~c 5xx")
        #expect(model.logs.opened?.visible == matching)
    }

    @Test("/ outside the log browser opens this session's log for filtering, so the typed text is never read as commands")
    func slashInLive() throws {
        let directory = NSTemporaryDirectory() + "curlew-slash-" + UUID().uuidString
        let log = try TUIFixtures.writeLog(in: directory)
        let model = AppModel(environment: AppEnvironment(
            agent: Agent(config: NetworkConfig(baseURL: "http://127.0.0.1:9")), name: "test", sessionLogPath: log,
            sessionsDirectory: directory, composeItems: [], timeZone: TimeZone(identifier: "UTC")!, processEnvironment: [:]))
        model.handle(.character("2"))
        for key in "/~u q".map(Key.character) { model.handle(key) }
        #expect(!model.shouldQuit)
        #expect(model.pane == .logs)
        model.handle(.enter)
        #expect(model.logs.opened?.filterText == "~u q")
    }

    @Test(":filter outside the log browser filters this session's log, as / does (found by a new user's trial: it said to open a log first)")
    func filterCommandInCompose() throws {
        let directory = NSTemporaryDirectory() + "curlew-filter-command-" + UUID().uuidString
        let log = try TUIFixtures.writeLog(in: directory)
        let model = AppModel(environment: AppEnvironment(
            agent: Agent(config: NetworkConfig(baseURL: "http://127.0.0.1:9")), name: "test", sessionLogPath: log,
            sessionsDirectory: directory, composeItems: [], timeZone: TimeZone(identifier: "UTC")!, processEnvironment: [:]))
        #expect(model.pane == .compose)
        model.handle(.character(":"))
        for key in "filter ~u q".map(Key.character) { model.handle(key) }
        model.handle(.enter)
        #expect(model.pane == .logs)
        #expect(model.logs.opened?.path == log)
        #expect(model.logs.opened?.filterText == "~u q", "\(String(describing: model.message))")
    }
}

@Suite("The detail of a request refused before sending")
struct RefusedRequestDetailTests {
    @Test("the Request tab says a refused request is shown as typed, without the parameters and timeout it never had (a trial showed `null` and `timeout 0 ms`)")
    func refusedRequestTab() async throws {
        let agent = Agent()
        let recorder = EventRecorder()
        agent.addObserver(recorder)
        let handle = agent.start(Request.url("http://exa mple.test/get"))
        while !handle.state.isTerminal { try await Task.sleep(for: .milliseconds(5)) }
        await agent.waitForObservers()
        let message = try #require(recorder.messages.first)
        #expect(message.sent == nil && message.error != nil)
        let text = DetailContent.lines(for: .request, of: message).map(\.text)
        #expect(text.first == "GET http://exa mple.test/get")
        #expect(text.contains("Refused before it was composed: shown as typed. The Error tab says why."))
        #expect(!text.contains("Parameters") && !text.contains("null") && !text.contains { $0.hasPrefix("timeout") }, "\(text)")
        // Read back from a session log, it still says so.
        let path = NSTemporaryDirectory() + "curlew-as-typed-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try ExchangeFile.writeSessionLog(of: [message], to: path)
        let logged = try #require(try ExchangeFile.messages(path: path).first)
        #expect(logged.original?.isAsTyped == true)
        #expect(DetailContent.lines(for: .request, of: logged).map(\.text).contains("Refused before it was composed: shown as typed. The Error tab says why."))
        // A request a HAR file recorded, failed and with no parameters of its own, was sent as recorded (found by review).
        var recorded = logged
        recorded.original = ComposedRequest(method: "GET", url: "http://a.test/", headers: [HeaderField(name: "Accept", value: "*/*")],
                                            params: .null, body: nil, timeoutMilliseconds: 0)
        recorded.error = RequestError(.couldNotConnect, "net::ERR_CONNECTION_REFUSED")
        #expect(!DetailContent.lines(for: .request, of: recorded).map(\.text).contains { $0.contains("before it was composed") || $0 == "null" })
        // One that went out while nothing listened, and failed, was not refused (found by review).
        var missed = logged
        missed.response = recorded.response ?? ResponseSnapshot(statusCode: 500, statusLine: "HTTP/1.1 500 Oops", httpVersion: "1.1", headers: [],
                                                                body: BodySnapshot(data: Data(), contentType: nil, limit: 0))
        missed.error = RequestError(.unacceptableStatus, "server answered 500", code: 500)
        #expect(DetailContent.lines(for: .request, of: missed).map(\.text).contains("Shown as typed: nothing was listening when it was composed."))
    }
}

@Suite("A paste read in pieces")
struct PastePieceTests {
    @Test("a finished exchange's Live row hides a Basic password its URL's path repeats, as the exchange's record does (found by a new user's trial)")
    func rowsHideCredentialsTheMessageCarries() {
        let basic = "Basic " + Data("admin:Hunter2Pass".utf8).base64EncodedString()
        let message = Fixtures.message(url: "http://api.example.test/basic-auth/admin/Hunter2Pass",
                                       requestHeaders: [HeaderField(name: "Authorization", value: basic)])
        let info = RequestInfo(id: message.requestID, name: message.name, method: "GET", url: message.original?.url ?? "", startedAt: message.startedAt)
        let clock = Calendar(identifier: .gregorian)
        let (hidden, _) = MessageRows.row(info: info, state: .succeeded, progress: nil, message: message, hiding: RedactionPolicy(), clock: clock, width: 200)
        #expect(!hidden.contains("Hunter2Pass") && hidden.contains("/basic-auth/admin/[REDACTED]"), "\(hidden)")
        let (shown, _) = MessageRows.row(info: info, state: .succeeded, progress: nil, message: message, hiding: nil, clock: clock, width: 200)
        #expect(shown.contains("/basic-auth/admin/Hunter2Pass"), "revealed, the row shows it")
    }

    @Test("a character cut at the end of a piece is carried to the next; whole text and bytes that are not UTF-8 are not")
    func incompleteTail() {
        let euro = Array("€".utf8), smile = Array("😀".utf8)
        #expect(UTF8Tail.incompleteCount(Array("abc".utf8)) == 0 && UTF8Tail.incompleteCount([]) == 0)
        #expect(UTF8Tail.incompleteCount(Array("a".utf8) + euro) == 0 && UTF8Tail.incompleteCount(smile) == 0)
        #expect(UTF8Tail.incompleteCount(Array("a".utf8) + euro.prefix(2)) == 2)
        #expect(UTF8Tail.incompleteCount(Array(smile.prefix(1))) == 1 && UTF8Tail.incompleteCount(Array(smile.prefix(3))) == 3)
        #expect(UTF8Tail.incompleteCount([0x61, 0xC3]) == 1 && UTF8Tail.incompleteCount([0x61, 0xFF]) == 0 && UTF8Tail.incompleteCount([0x80, 0x80, 0x80]) == 0)
        let cut = Array("a".utf8) + smile.prefix(2)
        #expect(String(decoding: Array(cut.dropLast(UTF8Tail.incompleteCount(cut))), as: UTF8.self) == "a")
    }

    @Test("a draft made literal is sent as it was whatever its body mode and Content-Type row: escaping and filling in read a body as JSON by one rule (a multipart body under a JSON Content-Type row was escaped as JSON and filled in as text, so its quoted {{u}} was filled)")
    func literalDraftsAreSentAsTheyWere() throws {
        let variables = ChainVariables([(name: "u", value: "LEAK")])
        let json = KeyValueRow("Content-Type", "application/json"), text = KeyValueRow("Content-Type", "text/plain")
        for (mode, headers, body) in [(RequestDraft.BodyMode.multipart, [json], #"a="{{u}}""#), (.multipart, [], #"a="{{u}}""#),
                                      (.json, [text], #"{"a":"{{u}}"}"#), (.json, [], #"{"a":"{{u}}"}"#), (.raw, [json], #"{"a":"{{u}}"}"#),
                                      (.raw, [text], #"{"a":"{{u}}"}"#), (.raw, [KeyValueRow(enabled: false, "Content-Type", "application/json")], #"x "{{u}}""#),
                                      (.raw, [KeyValueRow("content-TYPE", "application/json")], #"{"a":"{{u}}"}"#), (.form, [json], "a={{u}}")] {
            var draft = RequestDraft(method: "POST", url: "http://h/x", headers: headers, bodyMode: mode, body: body)
            draft.escapeTemplates()
            // A config's default JSON type for a guessed one, which escaping does not know, reads it back alike.
            for defaultType in [nil, "application/json"] {
            let request = try draft.makeRequest(variables: variables, defaultContentType: defaultType)
            let sent: String
            if let form = request.form {
                sent = form.parts.map { part in
                    guard case .data(let data) = part.content else { return "" }
                    return String(decoding: data, as: UTF8.self)
                }.joined()
            } else if case .raw(let data, _) = request.requestSerializer {
                sent = String(decoding: data, as: UTF8.self)
            } else if request.requestSerializer == .urlEncodedForm {
                sent = request.params.map { $0.value.textValue }.joined()
            } else {
                sent = ""
            }
            #expect(sent.contains("{{u}}") && !sent.contains("LEAK") && !sent.contains("\\"), "\(mode) \(headers.map(\.value)) \(defaultType ?? ""): \(sent)")
            }
        }
    }

    @Test("a form value's escaped template shows as written, not as %5C{{ (the chain stepper showed it so), and reads back and sends as it did")
    func escapedTemplateInAForm() throws {
        // Inside a template, what would split or decode the field otherwise is encoded (found by review).
        for (value, shown) in [(#"x\{{u}}"#, #"a=x\{{u}}"#), (#"\\{{u}}"#, #"a=%5C\{{u}}"#), (#"{{u}}\"#, #"a={{u}}%5C"#), ("a b", "a=a%20b"),
                               (#"\{{a+b&c=d%41}}"#, #"a=\{{a%2Bb%26c%3Dd%2541}}"#), ("{{a b}}", "a={{a b}}")] {
            let params = Parameters([JSONMember("a", .string(value))])
            #expect(FormText.text(of: params) == shown)
            #expect(FormText.fields(of: shown).map(\.value) == [value])
        }
        var draft = RequestDraft(method: "POST", url: "http://h/x", bodyMode: .form, body: FormText.text(of: Parameters([JSONMember("a", .string(#"\{{u}}"#))])))
        #expect(draft.body == #"a=\{{u}}"#)
        draft.name = "form"
        let request = try draft.makeRequest(variables: ChainVariables([(name: "u", value: "LEAK")]))
        #expect(request.params == ["a": "{{u}}"])
        // A text body under the form type with an escaped template reads as a form now (its text
        // is the form's), and sends the same value.
        var entry = Request.url("http://h/x", method: .post)
        entry.requestSerializer = .raw(Data(#"a=\{{u}}"#.utf8), contentType: "application/x-www-form-urlencoded")
        let read = RequestDraft(entry, baseURL: nil)
        #expect(read.bodyMode == .form && read.body == #"a=\{{u}}"#)
        #expect(try read.makeRequest(variables: ChainVariables([(name: "u", value: "LEAK")])).params == ["a": "{{u}}"])
    }

    @Test("a combining mark or an emoji modifier typed as a key of its own joins the character before it, and editing goes on (found by a new user's trial: the interface stopped on an index out of bounds)")
    func combiningKeysInAField() {
        var editor = LineEditor("caf")
        for key in ["e", "\u{301}", " ", "👍", "\u{1F3FD}", "!"] { _ = editor.handle(.character(Character(key))) }
        #expect(editor.text == "caf\u{E9} 👍🏽!" && editor.cursor == editor.text.count)
        _ = editor.handle(.home)
        _ = editor.handle(.character(Character("\u{301}")))
        _ = editor.handle(.end)
        _ = editor.handle(.backspace)
        _ = editor.handle(.paste("e\u{301}"))
        #expect(editor.cursor == editor.text.count && editor.text.hasSuffix("\u{E9}"))
        _ = editor.display(width: 10)
        // A character typed before a joiner that stood alone makes the two sides one character (found by review: the cursor went below zero).
        var joined = LineEditor("\u{200D}👩")
        _ = joined.handle(.home)
        _ = joined.handle(.character("👨"))
        #expect(joined.text == "👨\u{200D}👩" && joined.cursor == 1)
        _ = joined.handle(.delete)
        _ = joined.handle(.control("k"))
        _ = joined.display(width: 10)
    }

    @Test("a form re-sent or pasted keeps a %7B%7B in its fields literal: escaped where the fields are filled in (found by a new user's trial: r filled a form's {{base}} that went out as text); one stray % no longer leaves a value undecoded")
    func formFieldsStayLiteral() throws {
        var draft = RequestDraft(method: "POST", url: "http://h/x", bodyMode: .form, body: "d=%7B%7Bbase%7D%7D&e=plain")
        draft.escapeTemplates()
        #expect(draft.body == #"d=\{{base}}&e=plain"#)
        let request = try draft.makeRequest(variables: ChainVariables([(name: "base", value: "LEAK")]))
        #expect(request.params == ["d": "{{base}}", "e": "plain"])
        #expect(FormText.fields(of: "g=50% off %41&i=a%zz+%26&j=%FF").map(\.value) == ["50% off A", "a%zz &", "%FF"])
    }

    @Test("a recorded form that is edited as text keeps the form's type as a row, so it is re-sent as it went out (found by review: it went out as text/plain)")
    func resentFormKeepsItsType() {
        var message = Fixtures.message(method: "POST", url: "http://h/login", requestBody: "user=a&password=x%40y")
        message.original = message.original.map { original in
            var edited = original
            edited.body = BodySnapshot(kept: Data("email=a@b.c&q=a+b".utf8), size: 17, contentType: "application/x-www-form-urlencoded")
            edited.automaticHeaders = ["Content-Type"]
            return edited
        }
        let draft = RequestDraft(message)
        #expect(draft.bodyMode == .raw && draft.body == "email=a@b.c&q=a+b")
        #expect(draft.headers.contains { $0.name == "Content-Type" && $0.value == "application/x-www-form-urlencoded" && $0.enabled }, "\(draft.headers)")
    }

    @Test("a row drawn from the index shortens the URL at its path's first segment, a scheme read only before the path (found by review)")
    func indexRowShortening() {
        let row = { (url: String) in
            MessageRows.row(summary: SessionRecordSummary(requestID: 0, statusCode: 200, elapsedMicros: nil, responseSize: nil, failed: false, method: "GET", url: url),
                            hiding: RedactionPolicy(), width: 200)
        }
        #expect(row("http://h/basic-auth/alice/pw").contains("http://h/basic-auth/…"))
        #expect(row("/cb?next=https://x/a/b").contains("/cb…") && !row("/cb?next=https://x/a/b").contains("x/a"))
        #expect(row("http://h/get").contains("http://h/get") && row("http://h?q=1").contains("http://h…"))
    }

    @Test("a form body says how many fields it sends, or that it is no form of name=value pairs, as JSON and multipart bodies say what they are (found by a new user's trial: JSON left in form mode went out as one field with no word)")
    func formBodyCheckLine() {
        #expect(BodyCheck.formSummary("a=1&b={{u}}") == ("✓ 2 fields · name=value&…, percent-encoded", .good))
        for (body, why) in [(#"{"name":"curlew"}"#, "it reads like JSON"), ("a=1&loose", "\"loose\" has no ="), ("a=1\nb=2", "it has a line break")] {
            let (text, style) = BodyCheck.formSummary(body)
            #expect(style == .bad && text.contains(why) && text.contains("raw sends it as it is"), "\(body): \(text)")
        }
        let rows = ComposeView.bodyRows(RequestDraft(method: "POST", url: "http://h/x", bodyMode: .form, body: #"{"a":1}"#), width: 80, limit: 5)
        #expect(rows.last?.text.hasPrefix("✗ not name=value pairs") == true)
    }
}
