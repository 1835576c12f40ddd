import CurlewAgent
import CurlewTestSupport
@testable import CurlewTUI
import CurlewWorkspace
import Foundation
import Testing

/// Groups defined and edited in Compose, saved to the workspace file and run against the demo
/// server.
extension WorkbenchTests {
    @Test("in the demo, whose workspace is never saved, leaving a new group does not offer w (found by a new user's trial)")
    func newGroupInDemo() throws {
        let directory = NSTemporaryDirectory() + "curlew-demo-group-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try "requests:\n  one: {url: \"http://127.0.0.1:9/get\"}\n".write(toFile: directory + "/curlew.yaml", atomically: true, encoding: .utf8)
        let workspace = try ComposeWorkspace(path: directory + "/curlew.yaml", isReadOnly: true)
        let model = AppModel(environment: AppEnvironment(agent: Agent(config: workspace.session.config), name: "demo", sessionLogPath: nil,
                                                         sessionsDirectory: directory + "/S", workspace: workspace))
        model.handle(.character("N"))
        #expect(model.compose.groupEditor != nil)
        model.handle(.escape)
        #expect(model.message.hasSuffix("is not saved: the demo workspace is not saved; the same key again drops it"), "\(model.message)")
        #expect(!model.statusHints.contains { $0.contains("save") }, "\(model.statusHints)")
        #expect(!model.groupKeysHint.contains("save"), "\(model.groupKeysHint)")
        #expect(!render(model).contains("w writes it"), "\(render(model))")
        model.handle(.escape)
        #expect(model.compose.groupEditor == nil)
        #expect(model.message.hasPrefix("dropped ") && model.message.hasSuffix(", never saved"), "\(model.message)")
        // A request of the file is not offered for deleting; a new one can be dropped.
        model.compose.focus = .list
        model.compose.selectedItem = 0
        #expect(!model.statusHints.contains { $0.contains("delete") }, "\(model.statusHints)")
        model.handle(.character("n"))
        model.compose.focus = .list
        #expect(model.statusHints.contains { $0.contains("delete") }, "\(model.statusHints)")
        model.handle(.character("d"))
        model.handle(.character("y"))
        #expect(model.message == "dropped new request, never saved")
        #expect(model.compose.items.count == 1)
    }

    @Test("Enter on a group opens it for editing; s runs it as edited; w saves it; a member added and moved is written")
    func editRunSaveGroup() async throws {
        let bench = try await bench()
        let model = bench.model
        model.handle(.down)
        model.handle(.enter)
        #expect(model.compose.groupEditor?.name == "both")
        let screen = render(model)
        #expect(screen.contains("Kind") && screen.contains("[batch] chain window") && screen.contains("1. ◂ request get one ▸"), "\(screen)")
        #expect(screen.contains("both (as saved)"), "the group as saved shows beside the editor")
        // Policy: all → any.
        for _ in 0..<3 { model.handle(.down) }
        model.handle(.right)
        #expect(model.compose.groupEditor?.definition.policy == .any)
        #expect(model.compose.unsavedCount == 1)
        #expect(render(model).contains("● ▶ batch both"))

        model.handle(.character("s"))
        #expect(model.message.contains("as edited"), "\(model.message)")
        try await pump(bench) { model.groups.groups.contains { $0.info.name == "both" && $0.verdict != nil } }
        #expect(model.pane == .compose && model.compose.groupEditor != nil, "running never leaves the editor")
        #expect(!(try String(contentsOfFile: bench.path, encoding: .utf8)).contains("policy"), "running does not save")

        // A second member, moved to the front, then saved.
        model.handle(.character("G"))
        model.handle(.character("a"))
        model.handle(.right)
        #expect(model.compose.groupEditor?.definition.members.map(\.name) == ["get one", "alone"])
        model.handle(.character("<"))
        #expect(model.compose.groupEditor?.definition.members.map(\.name) == ["alone", "get one"])
        model.handle(.character("w"))
        #expect(model.message.hasPrefix("saved both"), "\(model.message)")
        #expect(model.compose.unsavedCount == 0)
        let text = try String(contentsOfFile: bench.path, encoding: .utf8)
        #expect(text.contains("  both:\n    batch:\n    - alone\n    - get one\n    policy: any"), "\(text)")
        #expect(text.hasPrefix("# my workspace: comments stay"))
        guard case .group(_, let built) = model.compose.items[1] else { Issue.record("not a group"); return }
        #expect(built.memberLabels == ["alone", "get one"])
    }

    @Test("N defines a new chain with a capture; a capture that does not read is refused in place; Esc twice drops an unsaved one")
    func newChain() async throws {
        let bench = try await bench()
        let model = bench.model
        model.handle(.character("N"))
        #expect(model.compose.groupEditor?.entryName == nil)
        #expect(model.compose.unsavedCount == 1)
        model.handle(.enter)
        model.handle(.control("u"))
        type("flow", into: model)
        model.handle(.enter)
        model.handle(.down)
        model.handle(.down)
        model.handle(.right)
        #expect(model.compose.groupEditor?.definition.kind == .chain)
        // Name, folder, kind, on failure, priority, members, the first member, its captures.
        for _ in 0..<5 { model.handle(.down) }
        #expect(model.compose.groupEditor?.field == .captures(0))
        model.handle(.enter)
        type("token", into: model)
        model.handle(.enter)
        #expect(model.compose.groupEditor?.editing != nil, "a capture without a source stays open")
        #expect(model.message.contains("name=source"), "\(model.message)")
        model.handle(.control("u"))
        type("title=$.slideshow.title, code=status", into: model)
        model.handle(.enter)
        #expect(model.compose.groupEditor?.definition.members.first?.captures == [.json("title", "$.slideshow.title"), Capture("code", from: .status)])
        model.handle(.character("w"))
        #expect(model.message.hasPrefix("saved flow"), "\(model.message)")
        let text = try String(contentsOfFile: bench.path, encoding: .utf8)
        #expect(text.contains("  flow:\n    chain:\n    - request: get one\n      capture:\n        title: \"$.slideshow.title\"\n        code: status"), "\(text)")
        #expect(model.compose.items.last?.title == "▶ chain flow")

        // Deleting it from the list asks, then removes its entry.
        model.handle(.escape)
        #expect(model.compose.focus == .list)
        model.handle(.character("d"))
        model.handle(.character("y"))
        #expect(!(try String(contentsOfFile: bench.path, encoding: .utf8)).contains("flow"))
        #expect(!model.compose.items.contains { $0.title == "▶ chain flow" })

        // A new group not saved: Esc warns once, quitting asks.
        model.handle(.character("N"))
        model.handle(.escape)
        #expect(model.compose.groupEditor != nil && model.message.contains("the same key again drops it"))
        model.handle(.character("q"))
        #expect(model.prompt == .confirmDiscard(1))
        model.handle(.character("n"))
        model.handle(.escape)
        model.handle(.escape)
        #expect(model.compose.groupEditor == nil && model.compose.unsavedCount == 0)
    }

    @Test("a group's unsaved edits are kept when the list is visited, and a name a request has is refused on save")
    func keptEditsAndRefusals() async throws {
        let bench = try await bench()
        let model = bench.model
        model.handle(.down)
        model.handle(.enter)
        model.handle(.down)
        model.handle(.down)
        model.handle(.right)
        model.handle(.escape)
        model.handle(.up)
        model.handle(.down)
        model.handle(.enter)
        #expect(model.compose.groupEditor?.definition.kind == .chain, "the edit was kept")
        model.handle(.character("g"))
        model.handle(.enter)
        model.handle(.control("u"))
        type("alone", into: model)
        model.handle(.enter)
        model.handle(.character("w"))
        #expect(model.message.contains("name of a request"), "\(model.message)")
        #expect(try String(contentsOfFile: bench.path, encoding: .utf8).contains("both: {batch: [get one]}"))
    }
}

@Suite("the group editor's fields")
struct GroupEditorFieldTests {
    private func editor(members: [String] = ["a", "b", "c"], policy: BatchPolicy = .required([0, 2])) -> GroupEditor {
        GroupEditor(name: "g", entryName: "g", definition: GroupDefinition(kind: .batch, members: members.map { .init(.request($0)) }, policy: policy),
                    item: 0, choices: members.map { .request($0) } + [.group("other")])
    }

    @Test("required positions follow a member moved or removed")
    func requiredFollows() {
        var group = editor()
        group.fieldIndex = group.fields.firstIndex(of: .member(0))!
        group.moveMember(by: 1)
        #expect(group.definition.members.map(\.name) == ["b", "a", "c"])
        #expect(group.definition.policy == .required([1, 2]))
        group.fieldIndex = group.fields.firstIndex(of: .member(2))!
        group.removeMember()
        #expect(group.definition.policy == .required([1]))
        group.fieldIndex = group.fields.firstIndex(of: .member(1))!
        group.removeMember()
        #expect(group.definition.policy == .all, "no required member left")
    }

    @Test("captures read commas inside a bracketed path as part of it, and refuse what would not run")
    func capturesText() throws {
        let parsed = try GroupEditor.captures(parsing: "a=$['x,y'], b=header Set-Cookie , c=status").get()
        #expect(parsed == [.json("a", "$['x,y']"), Capture("b", from: .header("Set-Cookie")), Capture("c", from: .status)])
        #expect(GroupEditor.capturesText(parsed) == "a=$['x,y'], b=header Set-Cookie, c=status")
        for bad in ["token", "=$.a", "a b=$.a", "$x=$.a", "{{a}}=$.a", "a=$.[", "a=header ", "a=$.x, a=$.y"] {
            #expect(throws: WorkspaceGroup.CaptureProblem.self, "\(bad)") { try GroupEditor.captures(parsing: bad).get() }
        }
        #expect(try GroupEditor.captures(parsing: "").get().isEmpty)
    }

    @Test("typed fields are checked: required positions, limits, an empty name")
    func typedFields() {
        var group = editor()
        #expect(group.commit("4", to: .required) != nil)
        #expect(group.commit("", to: .required) != nil)
        #expect(group.commit("1, 3", to: .required) == nil && group.definition.policy == .required([0, 2]))
        #expect(group.commit("0", to: .maxConcurrency) != nil)
        #expect(group.commit("", to: .maxConcurrency) == nil && group.definition.maxConcurrency == nil)
        #expect(group.commit("  ", to: .name) != nil)
        #expect(group.commit("1001", to: .maxInFlight) != nil)
    }

    @Test("a member cycles through the requests and groups; a nested group drops its captures")
    func memberChoices() {
        var group = editor(members: ["c"], policy: .all)
        group.definition.kind = .chain
        group.definition.members[0].captures = [.json("t", "$.t")]
        group.fieldIndex = group.fields.firstIndex(of: .member(0))!
        group.cycle(by: 1)
        #expect(group.definition.members[0].reference == .group("other"))
        #expect(group.definition.members[0].captures.isEmpty)
        group.cycle(by: 1)
        #expect(group.definition.members[0].reference == .request("c"), "after the last choice comes the first")
    }
}

extension WorkbenchTests {
    @Test("latency mode on a group runs it N times one after another: run percentiles, its requests' phases, a histogram of run times; once ended, x is no longer offered (found by a new user's trial)")
    func groupLatency() async throws {
        let bench = try await bench()
        let model = bench.model
        model.handle(.down)
        model.handle(.character(":"))
        type("latency 6", into: model)
        model.handle(.enter)
        #expect(model.latency?.runsGroup == true && model.latency?.total == 6, "\(model.message)")
        try await pump(bench) { (model.latency?.done ?? 0) == 6 && (model.latency?.messages.count ?? 0) == 6 && model.latency?.ended == true }
        let screen = render(model)
        for text in ["Latency  both · 6/6 runs · 0 failed · 6 requests, 0 errors · Esc closes", "run ", "total", "run time"] {
            #expect(screen.contains(text), "\(text): \(screen)")
        }
        // Ended: nothing is left for x to stop, and neither line offers it.
        #expect(!screen.contains("x stops"), "\(screen)")
        model.handle(.character("x"))
        #expect(model.message == "the latency run has ended; Esc closes it")
        #expect(model.latency?.runHistogram.reduce(0, +) == 6)
        #expect(model.latency?.runPercentiles.p99 != nil)
        model.handle(.escape)
        // From the group editor, the group runs as edited: two members a run.
        model.handle(.enter)
        model.handle(.character("G"))
        model.handle(.character("a"))
        model.handle(.character("L"))
        try await pump(bench) { (model.latency?.done ?? 0) == LatencyState.defaultCount }
        #expect(model.latency?.messages.count == 2 * LatencyState.defaultCount)
    }
}

extension WorkbenchTests {
    @Test("review fixes: a group's list item follows a delete; required needs members; a detail open in Live does not send keys past the group editor")
    func groupEditorState() async throws {
        let bench = try await bench()
        let model = bench.model
        // Edit "both" (item 1), leave it unsaved, delete item 0, then save it.
        model.handle(.down)
        model.handle(.enter)
        for _ in 0..<3 { model.handle(.down) }
        model.handle(.right)
        model.handle(.escape)
        model.handle(.up)
        model.handle(.character("d"))
        model.handle(.character("y"))
        #expect(model.compose.items.map(\.title) == ["▶ batch both", "GET get one"])
        model.handle(.enter)
        #expect(model.compose.groupEditor?.item == 0 && model.compose.groupEditor?.definition.policy == .any)
        model.handle(.character("w"))
        #expect(model.message.hasPrefix("saved both"), "\(model.message)")
        #expect(model.compose.items.map(\.title) == ["▶ batch both", "GET get one"], "the save replaced its own item")
        #expect(model.compose.unsavedCount == 0)

        // No members: the policy offers no required members, and typing some is refused.
        model.handle(.character("G"))
        model.handle(.character("d"))
        #expect(model.compose.groupEditor?.definition.members.isEmpty == true)
        var editor = try #require(model.compose.groupEditor)
        editor.fieldIndex = editor.fields.firstIndex(of: .policy)!
        for _ in 0..<4 { editor.cycle(by: 1); #expect(editor.definition.policy != .required([0])) }
        #expect(editor.commit("1", to: .required) != nil)

        // A detail open in another pane leaves Compose's keys to the group editor.
        model.handle(.character("2"))
        model.detail = (.live, DetailState(message: DebugMessage(requestID: 9, name: "x", state: .succeeded, startedAt: Date(), original: nil, sent: nil,
                                                                 response: nil, error: nil, timings: nil, connection: nil, callbackQueue: "t")))
        model.handle(.character("1"))
        model.handle(.character("a"))
        #expect(model.compose.groupEditor?.definition.members.count == 1, "a added a member, not a header row to the hidden request")
        #expect(model.compose.draft.headers.isEmpty)
    }

    @Test("a new group never saved is dropped only on a second try: ←, n and N ask first")
    func newGroupKept() async throws {
        let bench = try await bench()
        let model = bench.model
        model.handle(.character("N"))
        model.handle(.character("n"))
        #expect(model.compose.groupEditor != nil && model.message.contains("the same key again drops it"))
        // A second leaving key drops it: here N, which starts another.
        model.handle(.character("N"))
        #expect(model.compose.groupEditor?.confirmingDiscard == false && model.compose.groupEditor?.entryName == nil)
        model.handle(.left)
        #expect(model.compose.focus == .editor)
        model.handle(.left)
        #expect(model.compose.focus == .list && model.compose.groupEditor == nil)
    }
}

extension WorkbenchTests {
    @Test("latency mode on a chain of pipelined requests leaves nothing counted in flight once every run ended (found by a new user's trial: the status bar kept `2 in flight`)")
    func chainLatencyLeavesNothingInFlight() async throws {
        let server = try await TestServer.shared()
        let bench = try bench(workspace: """
        config:
          baseURL: \(server.baseURL)
          retry: {maxRetries: 1, backoff: fixed, delay: 100ms}
        requests:
          log in:
            method: POST
            url: /login
            json: {username: ada, password: lovelace}
            expect:
              status: 200
              json: {$.token: {exists: true}}
          profile:
            url: /me
            headers: {Authorization: "Bearer {{token}}"}
            expect: {status: 200}
        groups:
          sign in:
            chain:
              - request: log in
                capture: {token: $.token}
              - profile
        """)
        let model = bench.model
        let row = try #require(model.compose.items.firstIndex { $0.title.contains("sign in") })
        for _ in 0..<row { model.handle(.down) }
        model.handle(.character(":"))
        type("latency 20", into: model)
        model.handle(.enter)
        #expect(model.latency?.runsGroup == true, "\(model.message)")
        try await pump(bench) { (model.latency?.done ?? 0) == 20 }
        try await pump(bench) { bench.observer.pendingCount == 0 && model.inFlightCount == 0 }
        #expect(model.inFlightCount == 0, "\(model.live.rows.filter { !$0.state.isTerminal }.map { "\($0.info.id) \($0.info.url) \($0.state)" })")
        model.handle(.escape)
        // Again, closed while it runs: what it still had to send is cancelled, and ends.
        model.handle(.character(":"))
        type("latency 20", into: model)
        model.handle(.enter)
        try await pump(bench) { (model.latency?.done ?? 0) >= 3 }
        model.handle(.escape)
        try await Task.sleep(for: .milliseconds(500))
        try await pump(bench) { bench.observer.pendingCount == 0 && model.inFlightCount == 0 }
        #expect(model.inFlightCount == 0, "\(model.live.rows.filter { !$0.state.isTerminal }.map { "\($0.info.id) \($0.info.url) \($0.state)" })")
    }

    @Test("latency on a group whose policy lets a member fail counts the member's 500 as a request error, though no run failed (found by a new user's trial)")
    func groupLatencyCountsMemberErrors() async throws {
        let server = try await TestServer.shared()
        let bench = try bench(workspace: """
        config:
          baseURL: \(server.baseURL)
        requests:
          fine: {url: /get}
          broken: {url: /status/500}
        groups:
          mixed: {batch: [fine, broken], policy: any}
        """)
        let model = bench.model
        #expect(model.compose.items.first?.title == "▶ batch mixed")
        model.handle(.character(":"))
        type("latency 3", into: model)
        model.handle(.enter)
        try await pump(bench) { (model.latency?.done ?? 0) == 3 && (model.latency?.messages.count ?? 0) == 6 }
        #expect(render(model).contains("Latency  mixed · 3/3 runs · 0 failed · 6 requests, 3 errors"), "\(render(model))")
    }
}

extension WorkbenchTests {
    @Test("latency mode on a group whose request the agent refuses says so once, before any run; a step that uses a captured value is left to the run")
    func groupLatencyRefused() async throws {
        let bench = try await bench(onServer: """
            requests:
              log in:
                url: /login
                json: {username: demo, password: curlew}
              profile:
                url: /me
                headers: {Authorization: "Bearer {{token}}"}
              elsewhere:
                url: "gopher://127.0.0.1:9/x"
            groups:
              flow:
                chain:
                  - request: log in
                    capture: {token: $.token}
                  - profile
                  - elsewhere
              signed in:
                chain:
                  - request: log in
                    capture: {token: $.token}
                  - profile
            """)
        let model = bench.model
        func select(_ title: String) throws {
            model.compose.selectedItem = try #require(model.compose.items.firstIndex { $0.title.hasSuffix(title) }, "\(model.compose.items.map(\.title))")
        }
        try select("chain flow")
        model.handle(.character(":"))
        type("latency 5", into: model)
        model.handle(.enter)
        #expect(model.latency == nil, "\(model.message)")
        #expect(model.message.hasPrefix("not run: elsewhere: "), "\(model.message)")
        try await Task.sleep(for: .milliseconds(100))
        model.ingest(bench.observer.drain())
        #expect(model.live.rows.isEmpty, "nothing was sent")
        // The chain whose second step needs the token runs: its step is composed once the token is there.
        try select("chain signed in")
        model.handle(.character(":"))
        type("latency 3", into: model)
        model.handle(.enter)
        #expect(model.latency?.runsGroup == true, "\(model.message)")
        try await pump(bench) { (model.latency?.done ?? 0) == 3 }
        #expect(model.latency?.messages.count == 6)
        #expect(render(model).contains("3/3 runs · 0 failed"), "\(render(model))")
    }
}

extension WorkbenchTests {
    @Test("latency mode: a copy stopped with x is counted as cancelled, not as an answer, and help over latency mode takes its keys; the bar shows what ran to its end (found by a new user's trial: x under help stopped the run, a cancelled copy's time showed as its total, and a stopped run's bar was full)")
    func latencyCancelAndHelp() async throws {
        let bench = try await bench(onServer: """
            requests:
              slow:
                url: /delay/5
            """)
        let model = bench.model
        model.handle(.character(":"))
        type("latency 5", into: model)
        model.handle(.enter)
        #expect(model.latency?.total == 5, "\(model.message)")
        // Its batch of copies is not a group the user made: the quit question names the mode.
        try await pump(bench) { model.groups.groups.contains { $0.info.id == model.latencyRun?.id } }
        #expect(model.runningGroupCount == 0 && model.runningWork?.hasPrefix("latency slow running") == true, "\(String(describing: model.runningWork))")
        model.handle(.character("?"))
        #expect(model.showHelp)
        model.handle(.character("x"))
        #expect(!model.showHelp && model.message != "latency run stopped", "x closed help and nothing else")
        try await Task.sleep(for: .milliseconds(200))
        model.handle(.character("x"))
        #expect(model.message == "latency run stopped")
        try await pump(bench) { (model.latency?.done ?? 0) == 5 && model.latency?.ended == true }
        #expect(model.latency?.cancelled == 5 && model.latency?.messages.isEmpty == true)
        // Nothing ran to its end, so the bar stays empty (found by a new user's trial: it was full).
        let bar = render(model).split(separator: "\n").first { $0.contains("░") }
        #expect(bar != nil && bar?.contains("█") == false, "\(render(model))")
        var state = try #require(model.latency)
        #expect(state.stats().total.phases.first { $0.name == "total" }?.p50 == nil, "no answer, so no total time")
        #expect(render(model).contains("0/5 answered · 0 errors · 5 cancelled"), "\(render(model))")
    }
}

extension WorkbenchTests {
    @Test("an item run by a group shows that answer in Compose's panel, and v names the item the panel shows (found by a new user's trial: the panel said nothing was sent, and v named the loaded request)")
    func groupAnswerInPanel() async throws {
        let bench = try await bench()
        let model = bench.model
        func select(_ title: String) throws {
            model.compose.selectedItem = try #require(model.compose.items.firstIndex { $0.title.hasSuffix(title) }, "\(model.compose.items.map(\.title))")
        }
        try select("batch both")
        model.handle(.character("s"))
        try await pump(bench) { model.live.rows.first?.message != nil }
        let sent = try #require(model.live.rows.first?.message)
        #expect(sent.name == "get one")
        try select("get one")
        model.refreshComposeResponse()
        #expect(model.compose.response?.message.requestID == sent.requestID, "the run's answer, not 'nothing sent'")
        // Loaded another item, the panel and v follow the cursor.
        try select("alone")
        model.handle(.enter)
        model.handle(.left)
        try select("get one")
        model.handle(.character("v"))
        #expect(model.message.hasPrefix("the response of get one;"), "\(model.message)")
        // On a group, v names the group.
        model.handle(.character("v"))
        try select("batch both")
        model.handle(.character("v"))
        #expect(model.message.hasPrefix("the response of batch both;"), "\(model.message)")
    }
}

extension WorkbenchTests {
    @Test("x cancels every request the editor sent that still runs, not only the last (found by a new user's trial: after three sends, two kept running)")
    func cancelEverySent() async throws {
        let bench = try await bench(onServer: """
            requests:
              slow:
                url: /delay/5
            """)
        let model = bench.model
        for _ in 0..<3 { model.handle(.character("s")) }
        try await pump(bench) { model.live.rows.count == 3 }
        model.handle(.character("x"))
        #expect(model.message.hasPrefix("cancelling #") && model.message.components(separatedBy: "#").count == 4, "\(model.message)")
        try await pump(bench) { model.live.rows.allSatisfy { $0.message?.state == .cancelled } }
        model.handle(.character("x"))
        #expect(model.message == "nothing in flight from this editor")
    }
}

extension WorkbenchTests {
    @Test("the editor sends a workspace's literal {{ (an escaped \\{{, a secret's) as text, and a config's JSON Content-Type fills a text body's strings whole (found by a new user's trial)")
    func literalBracesAndConfigType() async throws {
        let bench = try await bench(onServer: #"""
              headers: {Content-Type: application/json}
            variables: {v: 'a"b'}
            requests:
              literal:
                method: POST
                url: /anything
                body: 'literal \{{x}} here'
                contentType: text/plain
              typed:
                method: POST
                url: /anything
                body: '{"note": "{{v}}"}'
            """#)
        let model = bench.model
        let workspace = try #require(model.workspace)
        let literal = try workspace.request(for: try workspace.draft(named: "literal"), captured: [])
        #expect(literal.requestSerializer == .raw(Data("literal {{x}} here".utf8), contentType: "text/plain"))
        let typed = try workspace.request(for: try workspace.draft(named: "typed"), captured: [])
        guard case .raw(let body, _) = typed.requestSerializer else { Issue.record("no body"); return }
        #expect(try JSONValue.parse(body)["note"] == .string(#"a"b"#), "\(String(decoding: body, as: UTF8.self))")
        guard case .raw(let fromFile, _) = try workspace.session.request(named: "typed").0.requestSerializer else { Issue.record("no body"); return }
        #expect(fromFile == body)
    }
}
