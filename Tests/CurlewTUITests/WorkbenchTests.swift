import CurlewAgent
import CurlewSessions
import CurlewTestSupport
@testable import CurlewTUI
import CurlewWorkspace
import Foundation
import Testing

/// Compose on a workspace file against the demo server: edit, send, see the answer beside the
/// editor, save, and find it again.
@Suite("The workbench on a workspace file", .serialized)
struct WorkbenchTests {
    struct Bench {
        let model: AppModel
        let observer: TUIObserver
        let directory: String
        var path: String { directory + "/curlew.yaml" }
    }

    static func workspaceText(base: String) -> String {
        """
        # my workspace: comments stay
        config:
          baseURL: "{{base}}"
        environments:
          dev: {base: \(base)}
          down: {base: "http://127.0.0.1:9"}
        requests:
          get one:
            url: /get
            expect: {status: 200}   # kept when the editor saves
          alone:
            url: /json
        groups:
          both: {batch: [get one]}
        """
    }

    func bench() async throws -> Bench {
        let server = try await TestServer.shared()
        return try bench(workspace: Self.workspaceText(base: server.baseURL))
    }

    /// A workbench on a workspace whose requests go to the test server: its `config` names the
    /// server's URL as the base URL, and `rest` is the rest of the file.
    func bench(onServer rest: String) async throws -> Bench {
        let server = try await TestServer.shared()
        return try bench(workspace: "config:\n  baseURL: \(server.baseURL)\n" + rest)
    }

    /// A workbench on a new directory whose curlew.yaml holds `text`.
    func bench(workspace text: String) throws -> Bench {
        let directory = NSTemporaryDirectory() + "curlew-bench-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try text.write(toFile: directory + "/curlew.yaml", atomically: true, encoding: .utf8)
        return try open(directory)
    }

    func open(_ directory: String) throws -> Bench {
        let workspace = try ComposeWorkspace(path: directory + "/curlew.yaml")
        let agent = Agent(config: workspace.session.config)
        let observer = TUIObserver()
        agent.addObserver(observer)
        // `:import` reads .http files here; the executable gives every format.
        let importer: @Sendable (String) throws -> ImportedCollection = { path in
            try HTTPFileImport.parse(try String(contentsOfFile: path, encoding: .utf8))
        }
        let model = AppModel(environment: AppEnvironment(agent: agent, name: "bench", sessionLogPath: nil,
                                                         sessionsDirectory: directory + "/Sessions", timeZone: TimeZone(identifier: "UTC")!, workspace: workspace,
                                                         importer: importer))
        return Bench(model: model, observer: observer, directory: directory)
    }

    /// Pumps events into the model until the response panel holds an answer.
    private func pumpUntilAnswered(_ bench: Bench) async throws {
        try await pump(bench) {
            bench.model.refreshComposeResponse()
            return bench.model.compose.response?.message.response != nil
        }
    }

    func pump(_ bench: Bench, until condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            bench.model.ingest(bench.observer.drain())
            guard ContinuousClock.now < deadline else { Issue.record("timed out"); return }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    func type(_ text: String, into model: AppModel) {
        for character in text { model.handle(.character(character)) }
    }

    func render(_ model: AppModel, rows: Int = 40, columns: Int = 160) -> String {
        let screen = VirtualScreen(rows: rows, columns: columns)
        screen.present(model.render(rows: rows, columns: columns))
        return screen.text
    }

    @Test("edit a request, send it, see its answer beside the editor, save it, and find it in the file and in a new session")
    func editSendSaveReopen() async throws {
        let bench = try await bench()
        let model = bench.model
        #expect(model.compose.items.map(\.title) == ["GET alone", "▶ batch both", "GET get one"])
        // The group's own request is listed after it; open it and add a query row.
        model.handle(.character("G"))
        model.handle(.enter)
        #expect(model.compose.draft.url == "/get", "the URL as written, the base left to the config")
        for _ in 0..<3 { model.handle(.down) }
        model.handle(.character("a"))
        type("page=2", into: model)
        model.handle(.enter)
        #expect(model.compose.unsavedCount == 1)
        #expect(render(model).contains("● 1 unsaved"))

        model.handle(.character("s"))
        try await pumpUntilAnswered(bench)
        #expect(model.pane == .compose, "sending never leaves the editor")
        let screen = render(model)
        #expect(screen.contains("HTTP/1.1 200"), "\(screen)")

        model.handle(.character("w"))
        #expect(model.message.hasPrefix("saved get one"), "\(model.message)")
        #expect(model.compose.unsavedCount == 0)
        let text = try String(contentsOfFile: bench.path, encoding: .utf8)
        #expect(text.contains("# my workspace: comments stay"))
        #expect(text.contains("expect:"), "fields the editor does not show are kept")
        #expect(text.contains("page: \"2\"") || text.contains("page: '2'") || text.contains("page: 2"), "\(text)")
        #expect(text.contains("  alone:\n    url: /json"), "other entries are untouched")

        let reopened = try open(bench.directory)
        guard case .request(let draft) = reopened.model.compose.items[2] else { Issue.record("not a request"); return }
        #expect(draft.params == [KeyValueRow("page", "2")])
    }

    @Test("a sent request's expect: assertions are checked beside its answer: all held, or the first that failed")
    func expectationsBesideTheAnswer() async throws {
        let server = try await TestServer.shared()
        let bench = try bench(workspace: """
        config:
          baseURL: "\(server.baseURL)"
        requests:
          holds:
            url: /json
            expect: {status: 200, headers: {Content-Type: {matches: json}}}
          fails:
            url: /json
            expect: {status: 201, json: {$.missing: {exists: true}}}
          plain:
            url: /json
        """)
        let model = bench.model
        #expect(model.compose.items.map(\.title) == ["GET holds", "GET fails", "GET plain"])

        model.handle(.character("s"))
        try await pumpUntilAnswered(bench)
        #expect(model.compose.checks?.failures == [])
        #expect(render(model).contains("expect: 2 passed"), "\(render(model))")

        model.handle(.down)
        model.handle(.character("s"))
        try await pumpUntilAnswered(bench)
        let failed = try #require(model.compose.checks)
        #expect(failed.failures.map(\.assertion) == ["status", "json $.missing"])
        let screen = render(model)
        #expect(screen.contains("expect: 2 of 2 failed: status: expected 201, got 200"), "\(screen)")

        model.handle(.down)
        model.handle(.character("s"))
        try await pumpUntilAnswered(bench)
        #expect(model.compose.checks == nil, "a request without assertions shows none")
        #expect(!render(model).contains("expect:"))
    }

    @Test("at 80 columns v shows the answer in place of the editor")
    func narrowToggle() async throws {
        let bench = try await bench()
        let model = bench.model
        model.handle(.character("s"))
        try await pumpUntilAnswered(bench)
        #expect(!render(model, rows: 24, columns: 80).contains("HTTP/1.1 200"))
        model.handle(.character("v"))
        let screen = render(model, rows: 24, columns: 80)
        #expect(screen.contains("◂ Response ▸"))
        #expect(screen.contains("HTTP/1.1 200"))
        model.handle(.character("]"))
        #expect(render(model, rows: 24, columns: 80).contains("◂ Error ▸"))
    }

    @Test("a credential typed into a header is saved to the secrets file, and the entry names it")
    func typedCredential() async throws {
        let bench = try await bench()
        let model = bench.model
        model.handle(.enter)
        for _ in 0..<4 { model.handle(.down) }
        model.handle(.character("a"))
        type("Authorization: Bearer typed-secret-1", into: model)
        model.handle(.enter)
        model.handle(.character("w"))
        #expect(model.message.contains("kept in curlew.secrets.yaml"), "\(model.message)")
        #expect(!(try String(contentsOfFile: bench.path, encoding: .utf8)).contains("typed-secret-1"))
        #expect(try String(contentsOfFile: bench.directory + "/curlew.secrets.yaml", encoding: .utf8).contains("typed-secret-1"))
        #expect(model.compose.draft.headers.first?.value == "{{alone_authorization}}")
        model.handle(.character("s"))
        try await pumpUntilAnswered(bench)
        #expect(model.compose.response?.message.original?.headers.contains { $0.name == "Authorization" } == true)
    }

    @Test("E switches the environment shown in the header; a rename saves under the new name; q asks before losing edits")
    func environmentsRenameQuit() async throws {
        let bench = try await bench()
        let model = bench.model
        #expect(render(model).contains("curlew.yaml · env dev"))
        model.handle(.character("E"))
        #expect(render(model).contains("curlew.yaml · env down"))
        model.handle(.enter)
        model.handle(.enter)
        model.handle(.control("u"))
        type("renamed", into: model)
        model.handle(.enter)
        model.handle(.character("q"))
        #expect(model.prompt == .confirmDiscard(1))
        // The question names what would be lost (found by a new user's trial: only a count).
        #expect(render(model).contains("1 unsaved (renamed; ● in Compose). Quit without saving?"), "\(render(model))")
        model.handle(.character("n"))
        #expect(!model.shouldQuit)
        model.handle(.character("w"))
        let text = try String(contentsOfFile: bench.path, encoding: .utf8)
        #expect(text.contains("  renamed:\n    url: /json") && !text.contains("alone:"), "\(text)")
        model.handle(.character("q"))
        #expect(model.shouldQuit)
    }

    @Test("a change made to the file elsewhere is read when nothing is unsaved, and reported when something is")
    func externalChange() async throws {
        let bench = try await bench()
        let model = bench.model
        try await Task.sleep(for: .milliseconds(20))
        let added = Self.workspaceText(base: "http://127.0.0.1:9").replacingOccurrences(of: "requests:\n", with: "requests:\n  added: {url: /added}\n")
        try added.write(toFile: bench.path, atomically: true, encoding: .utf8)
        _ = render(model)
        #expect(model.compose.items.contains { $0.title == "GET added" })
        model.handle(.enter)
        model.handle(.character("a"))
        type("x=1", into: model)
        model.handle(.enter)
        try await Task.sleep(for: .milliseconds(20))
        try Self.workspaceText(base: "http://127.0.0.1:9").write(toFile: bench.path, atomically: true, encoding: .utf8)
        _ = render(model)
        #expect(model.message.contains("changed on disk"))
        #expect(model.compose.items.contains { $0.title == "GET added" }, "unsaved edits are not thrown away")
    }

    @Test("d in the list deletes a request from the file after y; the question names what it deletes, a group too (found by a new user's trial)")
    func deleteRequest() async throws {
        let bench = try await bench()
        let model = bench.model
        let group = try #require(model.compose.position(ofGroup: "both"))
        model.compose.selectedItem = group
        model.handle(.character("d"))
        #expect(render(model).contains("Delete group both from the workspace file? (y/n)"), "\(render(model))")
        model.handle(.character("n"))
        model.compose.selectedItem = 0
        model.handle(.character("d"))
        #expect(model.prompt == .confirmDelete(0))
        #expect(render(model).contains("Delete alone from the workspace file? (y/n)"), "\(render(model))")
        model.handle(.character("y"))
        #expect(model.compose.items.map(\.title) == ["▶ batch both", "GET get one"])
        #expect(!(try String(contentsOfFile: bench.path, encoding: .utf8)).contains("alone"))
        // A request never saved is not in the file: the question and the answer say it is dropped
        // (found by a new user's trial: it asked to delete it from the file).
        model.handle(.character("n"))
        let added = model.compose.selectedItem
        model.compose.focus = .list
        model.handle(.character("d"))
        #expect(model.prompt == .confirmDelete(added))
        #expect(render(model).contains("Drop new request, never saved? (y/n)"), "\(render(model))")
        model.handle(.character("y"))
        #expect(model.message == "dropped new request, never saved")
        #expect(model.compose.items.map(\.title) == ["▶ batch both", "GET get one"])
    }

    @Test("o hands the body to the editor; the result is numbered, checked as JSON and pretty-printed with P")
    func externalEditorAndJSON() async throws {
        let bench = try await bench()
        let model = bench.model
        model.handle(.enter)
        // Body mode JSON, then the body field.
        for _ in 0..<5 { model.handle(.down) }
        model.handle(.right)
        model.handle(.right)
        #expect(model.compose.draft.bodyMode == .json)
        model.handle(.down)
        #expect(model.compose.field == .body)
        model.handle(.character("o"))
        #expect(model.takeTerminalRequests() == [.edit("", field: .body, fileExtension: "json")])
        model.finishExternalEdit(.edited("{\"name\": \"{{user}}\", \"n\": {{count}}}\n"), field: .body)
        #expect(model.compose.draft.body == "{\"name\": \"{{user}}\", \"n\": {{count}}}", "the editor's final newline is dropped")
        #expect(render(model).contains("✓ JSON"), "templates count as values")
        model.finishExternalEdit(.edited("{\n  \"a\": 1,\n  \"b\": \n}"), field: .body)
        let screen = render(model)
        #expect(screen.contains("1 │ {") && screen.contains("3 │   \"b\":"))
        #expect(screen.contains("✗ not JSON: line 4, column 1"), "\(screen)")
        model.finishExternalEdit(.edited("{\"a\":[1,2]}"), field: .body)
        model.handle(.character("P"))
        #expect(model.compose.draft.body == "{\n  \"a\": [\n    1,\n    2\n  ]\n}")
        // Every number and string stays as typed (a double would round the first two and write
        // the others otherwise); an empty object or array stays on its line.
        model.finishExternalEdit(.edited(#"{"big":12345678901234567890123,"f":1e400,"z":-0,"p":1.50,"s":"caf\u00e9\/","e":{},"l":[ ]}"#), field: .body)
        model.handle(.character("P"))
        #expect(model.compose.draft.body == #"""
        {
          "big": 12345678901234567890123,
          "f": 1e400,
          "z": -0,
          "p": 1.50,
          "s": "caf\u00e9\/",
          "e": {},
          "l": []
        }
        """#, "\(model.compose.draft.body)")
        let before = model.compose.draft.body
        model.finishExternalEdit(.edited(before + "\n"), field: .body)
        #expect(model.compose.draft.body == before)
        #expect(model.message.hasSuffix("unchanged: the editor saved no change"), "found by a new user's trial: it said updated: \(model.message)")
        model.finishExternalEdit(.edited("two\nlines"), field: .url)
        #expect(model.message.contains("is one line"))
        model.finishExternalEdit(.failed("vi exited with status 1; the field is unchanged"), field: .body)
        #expect(model.message.contains("status 1"))
    }

    @Test("a workspace broken elsewhere is reported on reload with its file and line, once")
    func brokenOnReload() async throws {
        let bench = try await bench()
        let path = bench.directory + "/curlew.yaml"
        try "requests:\n  a: {url: /x\n".write(toFile: path, atomically: true, encoding: .utf8)
        bench.model.reloadWorkspace()
        let message = bench.model.message
        #expect(message.hasPrefix(path + ":3:") && message.components(separatedBy: path).count == 2, "\(message)")
    }

    @Test("a group's last run stays beside it when the file is read again, and when an item above it is deleted (found by a new user's trial: a reload dropped it)")
    func groupRunSurvivesReload() async throws {
        let bench = try await bench()
        let model = bench.model
        let index = try #require(model.compose.position(ofGroup: "both"))
        model.compose.selectedItem = index
        model.handle(.character("s"))
        try await pump(bench) { model.groups.groups.first?.verdict != nil }
        // The panel beside the editor: the group's kind and name, then its verdict.
        let panel = "batch both · succeeded"
        #expect(render(model).contains(panel), "\(render(model))")
        model.reloadWorkspace()
        #expect(model.message.hasPrefix("read "), "\(model.message)")
        #expect(model.compose.selectedItem == index, "the group stays selected")
        #expect(render(model).contains(panel), "\(render(model))")
        model.compose.remove(at: 0)
        model.compose.selectedItem = index - 1
        #expect(model.compose.groupRunIDs[index - 1] != nil && model.compose.groupRunIDs[index] == nil)
        #expect(render(model).contains(panel), "\(render(model))")
    }

    @Test("a group whose policy let a member fail its expect: says how many assertions failed, in the status line and beside its verdict, nested groups' included, a retried member judged on its last answer, as curlew run does (found by a new user's trial: it read only 'succeeded')")
    func groupAssertionsJudged() async throws {
        // `flaky` answers 503 once, then 200 to its retry: only the last answer is judged.
        let bench = try await bench(onServer: """
            requests:
              health: {url: /get, expect: {status: 200}}
              broken: {url: /status/500, expect: {status: 200}}
              flaky: {url: "/flaky/1?key=\(UUID().uuidString)", retry: {maxRetries: 2, backoff: fixed, delay: 10ms}, expect: {status: 200}}
            groups:
              inner: {batch: [health, broken, flaky], policy: any}
              outer: {batch: [health, {group: inner}], policy: any}
            """)
        let model = bench.model
        let index = try #require(model.compose.position(ofGroup: "outer"))
        model.compose.selectedItem = index
        model.handle(.character("s"))
        try await pump(bench) { model.groups.groups.contains { $0.info.name == "outer" && $0.verdict != nil } }
        #expect(model.message == "batch outer succeeded, 1 assertion failed", "\(model.message)")
        #expect(model.groups.groups.first { $0.info.name == "inner" }?.failedAssertions == 1)
        // The verdict beside the group says it too, not only the status line.
        model.message = ""
        let verdictLine = render(model).split(separator: "\n").first { $0.contains("batch outer · succeeded in") }
        #expect(verdictLine?.contains(", 1 assertion failed") == true, "\(render(model))")
        // The member whose assertion failed is marked in its row, as curlew run marks it ✗
        // (found by a new user's trial: its row read "succeeded 500" with no mark).
        let inner = try #require(model.groups.groups.first { $0.info.name == "inner" })
        #expect(inner.members.map(\.failedAssertions) == [0, 1, 0], "\(inner.members.map(\.failedAssertions))")
        model.groups.selected = try #require(model.groups.groups.firstIndex { $0.info.name == "inner" })
        model.handle(.character("3"))
        let brokenRow = render(model).split(separator: "\n").first { $0.contains("broken") && $0.contains("500") }
        #expect(brokenRow?.contains("500 ✗") == true, "\(render(model))")
    }

    @Test("a chain step that could not be filled in (its capture found nothing) sends nothing and fails its assertions as one, as curlew run counts it (found by review)")
    func unfilledStepJudged() async throws {
        let bench = try await bench(onServer: """
            requests:
              log in: {url: /login, json: {username: demo, password: curlew}}
              me: {url: /me, headers: {Authorization: "Bearer {{token}}"}, expect: {status: 200}}
            groups:
              flow:
                chain:
                  - {request: log in, capture: {token: $.missing}}
                  - me
                onFailure: continue
            """)
        let model = bench.model
        model.compose.selectedItem = try #require(model.compose.position(ofGroup: "flow"))
        model.handle(.character("s"))
        try await pump(bench) { model.groups.groups.contains { $0.info.name == "flow" && $0.verdict != nil } }
        let step = try #require(model.groups.groups.first { $0.info.name == "flow" }?.members.last)
        // Refused before sending: a request of the agent (so the log has it), with nothing sent.
        #expect(step.state == .failed && step.statusCode == nil && step.error?.kind == .unresolvedVariable, "the step sent nothing: \(step)")
        #expect(model.message.hasSuffix(", 1 assertion failed"), "\(model.message)")
    }

    @Test("a chain member's assertions are filled in with what the steps before it captured, as curlew run fills them")
    func groupAssertionTemplates() async throws {
        let bench = try await bench(onServer: """
            requests:
              log in: {url: /login, json: {username: tpl-user, password: curlew}}
              me: {url: /me, headers: {Authorization: "Bearer {{token}}"}, expect: {json: {$.user: "{{user}}"}}}
              wrong: {url: /me, headers: {Authorization: "Bearer {{token}}"}, expect: {json: {$.user: "not-{{user}}"}}}
            groups:
              flow:
                chain:
                  - {request: log in, capture: {token: $.token, user: $.user}}
                  - me
                  - wrong
            """)
        let model = bench.model
        model.compose.selectedItem = try #require(model.compose.position(ofGroup: "flow"))
        // `w` on a group in the list says where a group is saved (found by a new user's trial).
        model.handle(.character("w"))
        #expect(model.message == "flow is a group: Enter opens it in the group editor, where w saves it", "\(model.message)")
        model.handle(.character("s"))
        try await pump(bench) { model.groups.groups.contains { $0.info.name == "flow" && $0.verdict != nil } }
        let flow = try #require(model.groups.groups.first { $0.info.name == "flow" })
        #expect(flow.members.map(\.failedAssertions) == [0, 0, 1], "\(flow.members.map(\.failedAssertions))")
        #expect(model.message.hasSuffix(", 1 assertion failed"), "\(model.message)")
    }

    @Test("y copies the request as curl with secrets hidden (raw keeps them), to the clipboard and an owner-only file")
    func copyAsCurl() async throws {
        let bench = try await bench()
        let model = bench.model
        model.handle(.enter)
        for _ in 0..<4 { model.handle(.down) }
        model.handle(.character("a"))
        type("Authorization: Bearer copy-secret-7", into: model)
        model.handle(.enter)
        model.handle(.character("y"))
        guard case .copy(let text)? = model.takeTerminalRequests().first else { Issue.record("nothing copied: \(model.message)"); return }
        #expect(text.hasPrefix("curl ") && text.contains("/json") && text.contains("[REDACTED]") && !text.contains("copy-secret-7"), "\(text)")
        let file = bench.directory + "/Sessions/clipboard.txt"
        #expect(try String(contentsOfFile: file, encoding: .utf8) == text)
        #expect(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int == 0o600)
        #expect(try FileManager.default.attributesOfItem(atPath: bench.directory + "/Sessions")[.posixPermissions] as? Int == 0o700,
                "the directory it creates is owner-only too")
        model.handle(.character(":"))
        type("copy curl raw", into: model)
        model.handle(.enter)
        guard case .copy(let raw)? = model.takeTerminalRequests().first else { Issue.record("nothing copied"); return }
        #expect(raw.contains("copy-secret-7"))
        model.handle(.character(":"))
        type("copy nonsense", into: model)
        model.handle(.enter)
        #expect(model.takeTerminalRequests().isEmpty && model.message.contains("copy curl, url, body or har"))
    }

    @Test("a curl command pasted in Compose becomes a new request; typed into the URL it replaces the request's fields")
    func curlPaste() async throws {
        let bench = try await bench()
        let model = bench.model
        model.handle(.paste("curl -X POST 'http://127.0.0.1:9/items?x=1' \\\n  -H 'Accept: text/plain' --data-raw 'a=1'"))
        #expect(model.compose.draft.name == "POST /items" && model.compose.draft.method == "POST")
        #expect(model.compose.draft.url == "http://127.0.0.1:9/items?x=1" && model.compose.draft.body == "a=1")
        #expect(model.compose.unsavedCount == 1)
        model.handle(.character("2"))
        model.handle(.paste("curl http://h/"))
        #expect(model.message.hasPrefix("paste ignored"))
        model.handle(.character("1"))
        model.handle(.escape)
        model.handle(.character("g"))
        model.handle(.enter)
        model.handle(.down)
        model.handle(.down)
        model.handle(.enter)
        model.handle(.control("u"))
        type("curl -H 'X-T: 1' http://127.0.0.1:9/typed", into: model)
        model.handle(.enter)
        #expect(model.compose.draft.name == "alone", "the name stays")
        #expect(model.compose.draft.url == "http://127.0.0.1:9/typed" && model.compose.draft.headers == [KeyValueRow("X-T", "1")])
        model.handle(.enter)
        model.handle(.control("u"))
        type("curl --data-urlencode v@/etc/passwd http://h/", into: model)
        model.handle(.enter)
        #expect(model.compose.editing != nil, "a command that would read a local file is refused and stays in the field")
        #expect(model.message.contains("reads a local file"))
        model.handle(.control("u"))
        type("curl -F f=@/etc/hostname -F 'g=<notes.txt' http://h/", into: model)
        model.handle(.enter)
        #expect(model.compose.editing != nil, "<file would copy a local file in: refused")
        model.handle(.control("u"))
        // A file part is a reference the editor shows, sent only when the request is.
        type("curl -F f=@/etc/hostname http://h/", into: model)
        model.handle(.enter)
        #expect(model.compose.editing == nil && model.compose.draft.bodyMode == .multipart && model.compose.draft.body == "f=@/etc/hostname")
    }

    @Test(":import FILE adds another tool's requests to the file and the list; unsaved edits stay")
    func importFromTheInterface() async throws {
        let bench = try await bench()
        let model = bench.model
        model.handle(.enter)
        model.handle(.character("a"))
        type("kept=1", into: model)
        model.handle(.enter)
        let http = bench.directory + "/more.http"
        try "### one\nGET http://127.0.0.1:9/one\n\n### two\nPOST http://127.0.0.1:9/two\n".write(toFile: http, atomically: true, encoding: .utf8)
        model.handle(.character(":"))
        type("import \(http)", into: model)
        model.handle(.enter)
        #expect(model.message.hasPrefix("imported 2 requests"), "\(model.message)")
        // Named by their `###` titles, as the JetBrains client names them.
        #expect(model.compose.items.suffix(2).map(\.title) == ["GET one", "POST two"])
        #expect(model.compose.draft.params == [KeyValueRow("kept", "1")] && model.compose.unsavedCount == 1)
        #expect(try Workspace.load(path: bench.path).request(named: "two") != nil)
        model.handle(.character(":"))
        type("import \(bench.directory)/missing.http", into: model)
        model.handle(.enter)
        #expect(model.message.hasPrefix("not imported"))
    }

    @Test("latency mode sends the request N times in a row and fills in percentiles per phase and a histogram")
    func latencyMode() async throws {
        let bench = try await bench()
        let model = bench.model
        model.handle(.character(":"))
        type("latency 0", into: model)
        model.handle(.enter)
        #expect(model.latency == nil && model.message.contains("1 to 10000"))
        model.handle(.character(":"))
        type("latency 20", into: model)
        model.handle(.enter)
        #expect(model.latency?.total == 20)
        try await pump(bench) { (model.latency?.messages.count ?? 0) == 20 }
        let screen = render(model)
        for text in ["Latency  alone · 20/20 answered · 0 errors", "phase", "p50", "p99", "total", "wait", "total time", "< 1 ms"] {
            #expect(screen.contains(text), "\(text)")
        }
        var figures = try #require(model.latency)
        #expect(figures.stats().histogram.reduce(0, +) == 20, "every answer is in the histogram")
        // The status line names the mode, not the batch it runs on (found by a new user's trial:
        // "batch latency alone succeeded").
        try await pump(bench) { model.message.hasPrefix("latency alone") }
        #expect(model.message == "latency alone finished", "\(model.message)")
        #expect(figures.stats().total.phases.first { $0.name == "total" }?.p99 != nil)
        model.handle(.escape)
        #expect(model.latency == nil)
        #expect(!render(model).contains("Latency  alone"))
        // A request the agent refuses before sending (a head over the limit) is refused once,
        // not sent and logged 20 times with its megabyte of URL each.
        let entries = model.live.rows.count
        model.compose.draft.url += "?q=" + String(repeating: "a", count: 1_100_000)
        model.handle(.character(":"))
        type("latency 20", into: model)
        model.handle(.enter)
        #expect(model.latency == nil && model.message.hasPrefix("not sent:"), "\(model.message.prefix(300))")
        #expect(model.message.count < 1_000, "the message quotes the URL clipped: \(model.message.prefix(300))")
        #expect(model.live.rows.count == entries)
    }

    @Test("latency mode counts requests that got no answer apart, by kind, and keeps them out of the percentiles and the histogram (found by review: a refused connection's microseconds passed for the fastest answers)")
    func latencyWithoutAnswers() async throws {
        let bench = try await bench()
        let model = bench.model
        let refused = try Listeners.closedPort()
        model.compose.draft.url = "http://127.0.0.1:\(refused)/get"
        model.handle(.character(":"))
        type("latency 5", into: model)
        model.handle(.enter)
        try await pump(bench) { (model.latency?.done ?? 0) == 5 }
        var figures = try #require(model.latency)
        #expect(figures.messages.isEmpty)
        #expect(figures.unanswered == [.couldNotConnect: 5])
        #expect(figures.cancelled == 0)
        #expect(figures.stats().histogram.reduce(0, +) == 0)
        let screen = render(model)
        #expect(screen.contains("Latency  alone · 0/5 answered · 0 errors · 5 unanswered (couldNotConnect)"), "\(screen)")
    }

    @Test("latency mode counts each copy once, by its last message: a retried copy's earlier attempts and a failure before a cancel are replaced (found by review: retries counted as more copies than were sent)")
    func latencyCountsEachCopyOnce() {
        var state = LatencyState(name: "r", total: 3, groupID: 9)
        let refused = RequestError(.couldNotConnect, "refused")
        // Copy 0: refused, retried, answered. Copy 1: answered 503, retried, refused. Copy 2: refused, then cancelled.
        state.take(Fixtures.message(id: 1, status: nil, error: refused, groupID: 9, step: 0))
        state.take(Fixtures.message(id: 2, status: 503, groupID: 9, step: 1))
        state.take(Fixtures.message(id: 3, status: nil, error: refused, groupID: 9, step: 2))
        state.take(Fixtures.message(id: 4, groupID: 9, step: 0))
        state.take(Fixtures.message(id: 5, status: nil, error: refused, groupID: 9, step: 1))
        state.take(Fixtures.message(id: 6, status: nil, error: RequestError(.cancelled, "stopped"), groupID: 9, step: 2))
        #expect(state.answeredCount == 1 && state.messages.map(\.requestID) == [4])
        #expect(state.unanswered == [.couldNotConnect: 1])
        #expect(state.cancelled == 1)
        #expect(state.done == 3)
        #expect(state.stats().total.count == 1)
        state.take(GroupEvent.finished(GroupInfo(id: 9, name: nil, kind: .batch, parentID: nil, indexInParent: nil, isPriorityGate: false), verdict: .cancelled, duration: 1_000, failedMembers: []))
        #expect(state.cancelled == 1 && state.done == 3)
    }

    @Test("m marks two exchanges and = shows them side by side with what differs")
    func compareTwo() async throws {
        let bench = try await bench()
        let model = bench.model
        model.handle(.character("s"))
        try await pumpUntilAnswered(bench)
        model.handle(.character("G"))
        model.handle(.enter)
        model.handle(.character("s"))
        try await pump(bench) { model.live.rows.count == 2 && model.live.rows.allSatisfy { $0.message != nil } }
        model.handle(.character("2"))
        model.handle(.character("g"))
        model.handle(.character("="))
        #expect(model.comparison == nil && model.message.contains("mark two"))
        model.handle(.character("m"))
        model.handle(.character("j"))
        model.handle(.character("m"))
        model.handle(.character("="))
        let screen = render(model)
        #expect(screen.contains("Compare"), "\(screen)")
        #expect(screen.contains("request url"))
        #expect(screen.contains("#1 GET alone") && screen.contains("#2 GET get one"))
        model.handle(.character("a"))
        #expect(model.comparison?.showsAll == true)
        #expect(render(model).contains("request method"), "every row, the same ones too")
        model.handle(.escape)
        #expect(model.comparison == nil)
    }

    @Test("a stepped workspace chain holds each step as its entry is written and sends it as the editor sends that entry: the workspace's variables filled, an escaped \\{{ as text, an unknown name refused; a chain with a group step is run whole, not stepped (found by a new user's trial)")
    func stepThroughWorkspaceEntries() async throws {
        let server = try await TestServer.shared()
        let bench = try bench(workspace: """
        config: {baseURL: "{{base}}"}
        variables: {base: "\(server.baseURL)", user: demo}
        requests:
          log in: {url: /login, json: {username: "{{user}}", password: curlew}}
          echo: {method: POST, url: /post, body: 'keep \\{{literal}} {{token}}', contentType: text/plain}
          me: {url: /me, headers: {Authorization: "Bearer {{token}}"}}
        groups:
          flow:
            chain:
              - {request: log in, capture: {token: $.token}}
              - echo
          nested: {batch: [me]}
          outer:
            chain:
              - {request: log in, capture: {token: $.token}}
              - group: nested
        """)
        let model = bench.model
        model.handle(.character("S"))
        #expect(model.compose.draft.body.contains("{{user}}"), "the entry as written: \(model.compose.draft.body)")
        model.handle(.character("s"))
        try await pump(bench) { model.compose.stepping?.index == 1 }
        #expect(model.compose.draft.body == #"keep \{{literal}} {{token}}"#)
        // A step is not saved over its entry (found by review: w said nothing and did nothing).
        model.handle(.character("w"))
        #expect(model.message.contains("not saved from the stepper"), "\(model.message)")
        model.compose.draft.body += " {{nosuch}}"
        model.handle(.character("s"))
        #expect(model.message.hasPrefix("not sent:"), "\(model.message)")
        model.compose.draft.body = #"keep \{{literal}} {{token}} {{user}}"#
        model.handle(.character("s"))
        try await pump(bench) { model.compose.stepping?.outcome != nil }
        let token = try #require(model.compose.stepping?.captured.first?.value)
        let echoed = model.compose.stepping?.lastSentID.flatMap { model.live.row(id: $0)?.message?.response?.body.text } ?? ""
        #expect(echoed.contains("keep {{literal}} \(token) demo"), "\(echoed)")
        model.handle(.escape)
        // A batch that only runs as a chain's step is listed, and run alone says what it lacks
        // (found by a new user's trial: it was left out of the list).
        let nested = try #require(model.compose.items.firstIndex { $0.title == "▶ batch nested" }, "\(model.compose.items.map(\.title))")
        while model.compose.selectedItem < nested { model.handle(.character("j")) }
        model.handle(.character("s"))
        #expect(model.message.hasPrefix("not run:") && model.message.contains("{{token}}"), "\(model.message)")
        // :run NAME builds it again too (found by review: it ran the listed group, {{token}} and all).
        model.handle(.character(":"))
        type("run nested", into: model)
        model.handle(.enter)
        #expect(model.message.hasPrefix("not run:") && model.message.contains("{{token}}"), "\(model.message)")
        let outer = try #require(model.compose.items.firstIndex { $0.title == "▶ chain outer" }, "\(model.compose.items.map(\.title))")
        while model.compose.selectedItem < outer { model.handle(.character("j")) }
        while model.compose.selectedItem > outer { model.handle(.character("k")) }
        model.handle(.character("S"))
        #expect(model.compose.stepping == nil && model.message.contains("has a group among its steps"), "\(model.message)")
    }

    @Test("a stepped step reads a name only a later step captures as the workspace's variable, as the chain's run does (found by review: the editor's send refused it as not captured yet)")
    func stepperReadsLaterCapturesAsVariables() async throws {
        let server = try await TestServer.shared()
        let bench = try bench(workspace: """
        config: {baseURL: "\(server.baseURL)"}
        variables: {token: early-value}
        requests:
          first: {url: /headers, headers: {X-Early: "{{token}}"}}
          log in: {url: /login, json: {username: demo, password: curlew}}
        groups:
          flow:
            chain:
              - first
              - {request: log in, capture: {token: $.token}}
        """)
        let model = bench.model
        model.handle(.character("S"))
        #expect(model.compose.stepping?.index == 0, "\(model.message)")
        model.handle(.character("s"))
        try await pump(bench) { model.compose.stepping?.index == 1 }
        let sent = model.compose.stepping?.lastSentID.flatMap { model.live.row(id: $0)?.message?.original?.headers.first { $0.name == "X-Early" }?.value }
        #expect(sent == "early-value", "\(model.message)")
    }

    @Test("V while a chain is stepped through shows the step's request's variables, with what earlier steps captured (found by a new user's trial: it named the chain's group)")
    func stepperVariablesPanel() async throws {
        let server = try await TestServer.shared()
        let bench = try bench(workspace: """
        config: {baseURL: "\(server.baseURL)"}
        requests:
          log in: {url: /login, json: {username: demo, password: curlew}}
          who: {url: "/anything/{{userName}}"}
        groups:
          flow:
            chain:
              - {request: log in, capture: {userName: $.user}}
              - who
        """)
        let model = bench.model
        model.handle(.character("S"))
        #expect(model.compose.stepping?.index == 0, "\(model.message)")
        model.handle(.character("s"))
        try await pump(bench) { model.compose.stepping?.index == 1 }
        model.handle(.character("V"))
        #expect(model.compose.showsVariables, "\(model.message)")
        let screen = render(model)
        #expect(screen.contains("Variables of flow · step 2") && !screen.contains("is a group"))
        #expect(model.variableRows(for: model.compose.draft) == [VariableRow(name: "userName", value: "demo", origin: .captured)])
        // Sending the step from the panel shows its answer in the panel's place, as a request's send does.
        model.handle(.character("s"))
        #expect(!model.compose.showsVariables, "\(model.message)")
    }

    @Test("the variables panel's `sends` line hides a value a chain captured under a secret name, as its rows do (found by a new user's trial: the URL showed it in clear)")
    func variablesPanelHidesCapturedSecrets() async throws {
        let server = try await TestServer.shared()
        let bench = try bench(workspace: """
        config: {baseURL: "\(server.baseURL)"}
        requests:
          log in: {url: /login, json: {username: demo, password: curlew}}
          who: {url: "/anything?s={{session_token}}"}
        groups:
          flow:
            chain:
              - {request: log in, capture: {session_token: $.token}}
              - who
        """)
        let model = bench.model
        model.handle(.character("S"))
        model.handle(.character("s"))
        try await pump(bench) { model.compose.stepping?.index == 1 }
        let token = try #require(model.compose.stepping?.captured.first { $0.name == "session_token" }?.value)
        #expect(token.count >= 8)
        model.handle(.character("V"))
        let screen = render(model, rows: 30, columns: 200)
        #expect(screen.contains("sends GET") && !screen.contains(token), "\(screen)")
    }

    /// A workspace that retries after `delay`, whose first request, `flaky`, fails `failures`
    /// times (under the key `key`) and then answers; `rest` goes on from its `requests:`.
    private func retryingBench(failures: Int = 1, delay: String = "50ms", key: String = uniqueTag(), then rest: String = "") async throws -> Bench {
        let server = try await TestServer.shared()
        return try bench(workspace: """
        config:
          baseURL: "\(server.baseURL)"
          retry: {maxRetries: 2, backoff: fixed, delay: \(delay)}
        requests:
          flaky: {url: "/flaky/\(failures)?key=\(key)"}

        """ + rest)
    }

    @Test("a stepped request the workspace retries moves the chain on with its last attempt's answer, not its first attempt's failure (found by a review: the first attempt stopped the step-through as failed while the retry went on)")
    func steppedRetryMovesOn() async throws {
        let bench = try await retryingBench(then: """
          after: {url: /get}
        groups:
          flow:
            chain:
              - {request: flaky, capture: {attempt: $.attempt}}
              - after
        """)
        let model = bench.model
        model.handle(.character("S"))
        #expect(model.compose.stepping?.index == 0, "\(model.message)")
        model.handle(.character("s"))
        try await pump(bench) { model.compose.stepping?.index == 1 || model.compose.stepping?.outcome != nil }
        #expect(model.compose.stepping?.outcome == nil, "\(model.message)")
        #expect(model.compose.stepping?.captured.first { $0.name == "attempt" }?.value == "2", "\(model.message)")
        let shown = model.compose.stepping?.lastSentID.flatMap { model.live.row(id: $0)?.message?.response?.statusCode }
        #expect(shown == 200, "the answer panel shows the attempt that answered")
    }

    @Test("Esc while a stepped request waits to be retried a second time cancels it (found by a review: the step's id had moved on to the second attempt's, so the stop no longer found the request to cancel)")
    func stopCancelsARetryingStep() async throws {
        let key = uniqueTag()
        let bench = try await retryingBench(failures: 2, delay: "600ms", key: key, then: """
        groups:
          flow:
            chain: [flaky]
        """)
        let model = bench.model
        let server = try await TestServer.shared()
        func sent() -> Int { server.receivedRequests.filter { $0.uri.contains(key) }.count }
        model.handle(.character("S"))
        model.handle(.character("s"))
        // The second attempt's answer (a 503, retried in 600 ms) has come in.
        try await pump(bench) { sent() == 2 && model.live.rows.filter { $0.message?.original?.url.contains(key) == true }.count == 2 }
        model.handle(.escape)
        #expect(model.compose.stepping == nil)
        try await Task.sleep(for: .milliseconds(900))
        #expect(sent() == 2, "the third attempt was not sent")
    }

    @Test("the answer beside the editor of a request the workspace retries is its last attempt's (found by a review: it showed the first attempt's 503)")
    func sentRetryShowsLastAttempt() async throws {
        let bench = try await retryingBench()
        let model = bench.model
        model.handle(.character("s"))
        try await pump(bench) {
            model.refreshComposeResponse()
            return model.compose.response?.message.response?.statusCode == 200
        }
        let answer = try #require(model.compose.response?.message)
        #expect(answer.pipeline?.attempts.count == 2 && answer.endsRequest, "\(String(describing: answer.pipeline))")
        // The item's sent request is followed to that attempt, as an unnamed draft's answer is
        // found only so.
        #expect(model.compose.sentIDs.values.contains(answer.requestID), "\(model.compose.sentIDs)")
    }

    @Test("a stepped chain is not sent on in another environment than it began in: its captures came from the first one's servers (found by review)")
    func stepperKeepsItsEnvironment() async throws {
        let server = try await TestServer.shared()
        let bench = try bench(workspace: """
        config: {baseURL: "{{base}}"}
        variables: {base: "\(server.baseURL)"}
        environments:
          dev: {who: dev}
          prod: {who: prod}
        requests:
          log in: {url: /login, json: {username: demo, password: curlew}}
          me: {url: /me, headers: {Authorization: "Bearer {{token}}"}}
        groups:
          flow:
            chain:
              - {request: log in, capture: {token: $.token}}
              - me
        """)
        let model = bench.model
        model.handle(.character("S"))
        model.handle(.character("s"))
        try await pump(bench) { model.compose.stepping?.index == 1 }
        let began = model.workspace?.session.environment
        model.handle(.character(":"))
        type("env \(began == "prod" ? "dev" : "prod")", into: model)
        model.handle(.enter)
        model.handle(.character("s"))
        #expect(model.message.contains("the environment changed since the run began"), "\(model.message)")
        #expect(model.compose.stepping?.sentID == nil)
    }

    @Test("the stepper's, the group editor's and Compose's panels' status lines go when the view closes or Compose is left (found by a review: they stayed in other panes)")
    func composeViewMessagesGoWithTheirView() async throws {
        let server = try await TestServer.shared()
        let bench = try bench(workspace: """
        config: {baseURL: "\(server.baseURL)"}
        requests:
          one: {url: /get}
        groups:
          flow:
            chain:
              - one
              - one
        """)
        let model = bench.model
        #expect(model.compose.items.first?.title == "▶ chain flow")
        model.handle(.character("S"))
        #expect(model.message.hasPrefix("step 1 of 2 is in the editor"), "\(model.message)")
        model.handle(.character("2"))
        #expect(model.message.isEmpty, "Esc does something else in Live: \(model.message)")
        model.handle(.character("1"))
        model.handle(.escape)
        #expect(model.compose.stepping == nil)

        model.compose.focus = .list
        model.compose.selectedItem = 0
        model.handle(.enter)
        #expect(model.compose.groupEditor != nil && model.message == model.groupKeysHint, "\(model.message)")
        model.handle(.escape)
        #expect(model.compose.focus == .list && model.message.isEmpty, "\(model.message)")

        model.compose.selectedItem = 1
        model.handle(.enter)
        model.handle(.character("V"))
        #expect(model.message.hasSuffix("V goes back"), "\(model.message)")
        model.handle(.character("4"))
        #expect(model.message.isEmpty, "\(model.message)")
    }

    @Test("S steps through a chain: each step waits in the editor with its templates, can be edited, and is sent with s, filled in with the captures so far")
    func stepThroughChain() async throws {
        let server = try await TestServer.shared()
        let bench = try bench(workspace: """
        config: {baseURL: "{{base}}"}
        variables: {base: "\(server.baseURL)"}
        requests:
          log in: {url: /login, json: {username: demo, password: curlew}}
          profile: {url: /me, headers: {Authorization: "Bearer {{token}}"}}
        groups:
          flow:
            chain:
              - {request: log in, capture: {token: $.token}}
              - profile
          broken:
            chain:
              - {request: log in, capture: {token: $.nothing}}
              - profile
        """)
        let model = bench.model
        #expect(model.compose.items.map(\.title).prefix(2) == ["▶ chain flow", "▶ chain broken"])
        let before = model.compose.draft
        model.handle(.character("S"))
        #expect(model.compose.draft.name == "flow · step 1" && model.compose.draft.url == "/login")
        #expect(render(model).contains("flow · step 1/2 · s sends · Esc stops"))
        model.handle(.character("s"))
        try await pump(bench) { model.compose.stepping?.index == 1 }
        // The step waits with its template; it is filled in once, when sent.
        #expect(model.compose.draft.headers.first { $0.name == "Authorization" }?.value == "Bearer {{token}}")
        #expect(model.compose.stepping?.captured.map(\.name) == ["token"])
        // The stepper's line names the capture and hides a value named like a credential.
        let token = try #require(model.compose.stepping?.captured.first?.value)
        let wide = render(model, columns: 240)
        #expect(wide.contains("token=\(RedactionPolicy.marker)") && !wide.contains("token=\(token.prefix(6))"))
        #expect(model.compose.unsavedCount == 0, "a step is not an unsaved request")
        // q mid-way asks first, and no leaves the step-through as it was (found by a new user's
        // trial: it quit at once).
        model.handle(.character("q"))
        #expect(model.prompt == .confirmQuit && render(model).contains("stepping through flow. Quit and cancel? (y/n)"), "\(render(model))")
        model.handle(.character("n"))
        #expect(!model.shouldQuit && model.compose.stepping?.index == 1)
        model.handle(.character("s"))
        try await pump(bench) { model.compose.stepping?.outcome != nil }
        #expect(model.message == "flow: all 2 steps done")
        // Once the run has ended, the hints offer going back, not sending (found by a new user's trial).
        #expect(!model.statusHints.contains { $0.contains("send step") } && model.statusHints.contains { $0.contains("go back") }, "\(model.statusHints)")
        // /me answers 200 only to the captured token.
        #expect(model.compose.stepping?.lastSentID.flatMap { model.live.row(id: $0)?.message?.response?.statusCode } == 200)
        model.handle(.escape)
        #expect(model.compose.stepping == nil && model.compose.draft == before)

        model.handle(.character("j"))
        model.handle(.character("S"))
        model.handle(.character("s"))
        try await pump(bench) { model.compose.stepping?.outcome != nil }
        #expect(model.message.contains("stopped: capture token: nothing at $.nothing"), "\(model.message)")
        // The step's own request failed with it, so the session log does not call it a success.
        let stopped = model.compose.stepping?.lastSentID.flatMap { model.live.row(id: $0)?.message }
        #expect(stopped?.state == .failed && stopped?.error?.kind == .captureFailed, "\(String(describing: stopped?.error))")
        model.handle(.escape)
        #expect(model.compose.stepping == nil)
    }

    @Test("a workspace opened again shows each request's last answer from its session logs until it is sent anew")
    func earlierAnswers() async throws {
        let first = try await bench()
        let agent = Agent(config: first.model.workspace!.session.config)
        let logger = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: first.directory + "/Sessions/earlier.jsonl"))
        agent.addObserver(logger)
        _ = try await agent.send(try first.model.workspace!.request(for: first.model.compose.draft, captured: []))
        await agent.waitForObservers()
        try logger.close()

        let again = try open(first.directory)
        let screen = render(again.model)
        #expect(screen.contains("an earlier session's answer"), "\(screen)")
        #expect(screen.contains("HTTP/1.1 200"))
        let earlier = try #require(again.model.compose.response?.message)
        // A narrow panel wraps the line rather than cut its time (found by a new user's trial).
        let narrow = render(again.model, rows: 30, columns: 120)
        let when = earlier.startedAt.dayAndClockText(using: again.model.clock)
        let parts = when.split(separator: " ")
        #expect(parts.count == 2 && parts.allSatisfy { narrow.contains($0) } && narrow.contains("s sends it now"), "\(narrow)")
        again.model.handle(.character("s"))
        try await pump(again) { again.model.live.rows.first?.message != nil }
        #expect(!render(again.model).contains("an earlier session's answer"))
        // The panel shows this session's answer, though its request has the earlier one's id
        // (found by a trial: the earlier body stayed until a second send).
        let shown = try #require(again.model.compose.response?.message)
        #expect(shown.requestID == earlier.requestID, "ids start again at 1 in every session")
        #expect(shown.startedAt != earlier.startedAt && shown.startedAt == again.model.live.rows.first?.message?.startedAt)
    }
}

@Suite("the user's editor")
struct ExternalEditorTests {
    /// An editor command running `body`. The shell reads the script rather than executing it: a
    /// file just written cannot be executed while a child another test forked meanwhile still
    /// holds it open for writing (ETXTBSY, status 126).
    private func script(_ body: String) throws -> String {
        let path = NSTemporaryDirectory() + "curlew-editor-\(UUID().uuidString).sh"
        try ("#!/bin/sh\n" + body + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o700)
        return "/bin/sh " + path
    }

    @Test("runs $VISUAL before $EDITOR on a file holding the text, and reads back what it wrote")
    func editsAFile() throws {
        let visual = try script(#"test "$(cat "$1")" = "before" && printf 'after' > "$1""#)
        let outcome = ExternalEditor.edit("before", fileExtension: "json", environment: ["VISUAL": visual, "EDITOR": "/bin/false", "PATH": "/usr/bin:/bin"])
        #expect(outcome == .edited("after"))
    }

    @Test("an editor that fails, or is missing, leaves the field as it was, with the reason")
    func failures() throws {
        let failing = ExternalEditor.edit("x", fileExtension: "txt", environment: ["EDITOR": "/bin/false", "PATH": "/usr/bin:/bin"])
        #expect(failing == .failed("/bin/false exited with status 1; the field is unchanged"))
        // An editor that removes its file ran: the file is what is missing (found by a new user's
        // trial: it was reported as an editor that could not run).
        let removing = try script(#"rm "$1""#)
        #expect(ExternalEditor.edit("x", fileExtension: "txt", environment: ["EDITOR": removing, "PATH": "/usr/bin:/bin"])
                == .failed("the editor left no file (it was removed or renamed); the field is unchanged"))
        let missing = ExternalEditor.edit("x", fileExtension: "txt", environment: ["EDITOR": "/nonexistent/editor", "PATH": "/usr/bin:/bin"])
        guard case .failed = missing else { Issue.record("\(missing)"); return }
        #expect(ExternalEditor.command(environment: [:]) == "vi")
    }

    @Test("a plain editor command is exec'd after its NAME=value words, so a stop reaches the editor; one with shell syntax runs as written (found by review: FOO=1 vim failed)")
    func editorShellLine() {
        #expect(ExternalEditor.shellLine(for: "vim") == #"exec vim "$1""#)
        #expect(ExternalEditor.shellLine(for: "code --wait") == #"exec code --wait "$1""#)
        #expect(ExternalEditor.shellLine(for: "FOO=1 vim -u NONE") == #"FOO=1 exec vim -u NONE "$1""#)
        #expect(ExternalEditor.shellLine(for: "make-backup && vim") == #"make-backup && vim "$1""#)
        #expect(ExternalEditor.shellLine(for: "a=b=c") == #"a=b=c "$1""#)
    }

    /// A socket of this process that a child would inherit (no close-on-exec), and how a
    /// listing of a process's descriptors (`readlink /proc/PID/fd/*`) names it.
    private func inheritableSocket() throws -> (descriptor: Int32, name: String) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        try #require(fcntl(descriptor, F_GETFD) & FD_CLOEXEC == 0, "a child would inherit it")
        var status = stat()
        try #require(fstat(descriptor, &status) == 0)
        return (descriptor, "socket:[\(status.st_ino)]")
    }

    @Test("the editor inherits standard input, output and error and nothing else: not the connections of the interface, nor the sockets of the demo server it runs (found while looking for a test that timed out: a spawned child kept a socket the server had closed open)")
    func editorInheritsNoSockets() throws {
        let (descriptor, name) = try inheritableSocket()
        defer { close(descriptor) }
        let editor = try script(#"for f in /proc/$$/fd/*; do readlink "$f"; done > "$1.list"; mv "$1.list" "$1""#)
        guard case .edited(let listing) = ExternalEditor.edit("x", fileExtension: "txt", environment: ["EDITOR": editor, "PATH": "/usr/bin:/bin"]) else {
            Issue.record("the editor failed")
            return
        }
        #expect(!listing.isEmpty && !listing.contains(name), "\(listing)")
    }

    @Test("where the C library cannot close every descriptor from 3 up, each one open is closed by an action of its own")
    func closingEachOpenDescriptor() throws {
        let (descriptor, name) = try inheritableSocket()
        defer { close(descriptor) }
        let output = NSTemporaryDirectory() + "curlew-fds-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: output) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        InheritedDescriptors.closingEachOpen(&actions)
        let words: [String] = ["/bin/sh", "-c", #"for f in /proc/$$/fd/*; do readlink "$f"; done > "$0""#, output]
        var argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        try #require(posix_spawn(&pid, "/bin/sh", &actions, nil, &argv, environ) == 0)
        var raw: Int32 = 0
        _ = waitpid(pid, &raw, 0)
        let listing = try String(contentsOfFile: output, encoding: .utf8)
        #expect(!listing.isEmpty && !listing.contains(name), "\(listing)")
    }

    @Test("an editor still open when the interface is told to stop is sent SIGTERM and the field kept (found by a new user's trial: SIGTERM and SIGHUP waited for vi to be quit)")
    func stopEndsTheEditor() throws {
        let editor = try script("exec sleep 30")
        let asked = ContinuousClock.now + .milliseconds(200)
        let started = ContinuousClock.now
        let outcome = ExternalEditor.edit("x", fileExtension: "txt", environment: ["EDITOR": editor, "PATH": "/usr/bin:/bin"],
                                          stopRequested: { ContinuousClock.now >= asked })
        #expect(ContinuousClock.now - started < .seconds(10), "the editor was stopped, not waited for")
        #expect(outcome == .failed("\(editor) exited with status 143; the field is unchanged"), "\(outcome)")
    }
}
