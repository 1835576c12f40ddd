import CurlewAgent
import CurlewTestSupport
import CurlewSessions
@testable import CurlewTUI
import CurlewWorkspace
import Foundation
import Testing

@Suite("palette, key map file, themes and the mouse")
struct KeysAndLookTests {
    /// `canSend`: with an agent (that sends nothing here), as the workbench runs; without, a
    /// window that only browses logs.
    private func model(keyMap: KeyMap = .standard, canSend: Bool = false) throws -> AppModel {
        let model = AppModel(environment: AppEnvironment(
            agent: canSend ? Agent(config: NetworkConfig(baseURL: "http://h")) : nil, name: "test", sessionLogPath: nil, sessionsDirectory: NSTemporaryDirectory() + "none-" + UUID().uuidString,
            composeItems: [
                .request(RequestDraft(Request(.get, "/users", name: "list users"), baseURL: "http://h")),
                .request(RequestDraft(Request(.post, "/orders", name: "create order"), baseURL: "http://h")),
            ], keyMap: keyMap))
        model.pane = .compose
        return model
    }

    private func type(_ text: String, into model: AppModel) {
        for character in text { model.handle(.character(character)) }
    }

    @Test("Ctrl-P finds commands and requests by letters in order; Enter runs or opens what is chosen")
    func palette() throws {
        let model = try model(canSend: true)
        model.handle(.control("p"))
        type("crord", into: model)
        #expect(model.palette?.matches.first?.title == "POST create order")
        // Ctrl-N and Ctrl-K move the choice (Ctrl-J would arrive as Enter).
        model.handle(.backspace)
        #expect((model.palette?.matches.count ?? 0) > 1 && model.palette?.selected == 0)
        model.handle(.control("n"))
        #expect(model.palette?.selected == 1)
        model.handle(.control("k"))
        #expect(model.palette?.selected == 0)
        type("d", into: model)
        let screen = VirtualScreen(rows: 30, columns: 100)
        screen.present(model.render(rows: 30, columns: 100))
        #expect(screen.text.contains("Commands and requests") && screen.text.contains("> crord"))
        model.handle(.enter)
        #expect(model.palette == nil && model.compose.draft.name == "create order" && model.compose.focus == .editor)
        model.handle(.control("p"))
        type("write", into: model)
        model.handle(.enter)
        #expect(model.prompt == .command(LineEditor("write ")))
        model.handle(.escape)
        model.handle(.control("p"))
        type("zzzz", into: model)
        #expect(model.palette?.matches.isEmpty == true)
        model.handle(.enter)
        #expect(model.palette == nil)
        #expect(Palette.score(Array("lu"), in: "list users")! > Palette.score(Array("lu"), in: "fill up")!, "word starts rank higher")
        // A command bound in several contexts is offered as the current pane has it (found by a new user's trial).
        model.handle(.character("3"))
        #expect(model.pane == .groups)
        model.handle(.control("p"))
        type("cancel the group", into: model)
        #expect(model.palette?.matches.first?.title == "cancel the group")
        model.handle(.escape)
        model.handle(.character("1"))
        model.handle(.control("p"))
        type("cancel what", into: model)
        #expect(model.palette?.matches.first?.title == "cancel what this editor sent")
        model.handle(.escape)
    }

    @Test("a window that only browses logs names no key that sends, and s says why nothing is sent (found by a new user's trial: Compose said s sends it)")
    func logOnlyWindowOffersNoSending() throws {
        let model = try model()
        model.message = ""
        func screen() -> String { TUIFixtures.screenText(of: model, rows: 30, columns: 240) }
        for text in [screen(), { model.handle(.right); return screen() }()] {
            #expect(!text.contains("s sends") && !text.contains("s send") && !text.contains("s runs"), "\(text)")
            #expect(text.contains("this window browses session logs"), "\(text)")
        }
        model.handle(.character("s"))
        #expect(model.message == AppModel.noAgentMessage)
        // Live, Groups, help and the palette name nothing that sends either; r still loads
        // into Compose, and says so.
        model.handle(.character("2"))
        #expect(screen().contains("Nothing is sent from this window"))
        model.handle(.character("3"))
        #expect(screen().contains("No groups run from this window"))
        model.handle(.character("?"))
        let help = screen()
        #expect(!help.contains("send the request") && !help.contains(" latency") && help.contains("Keys"), "\(help)")
        model.handle(.escape)
        model.handle(.control("p"))
        for character in "send" { model.handle(.character(character)) }
        #expect(model.palette?.matches.contains { $0.title.hasPrefix("send") || $0.title == ":latency" || $0.title == ":run" } == false,
                "\(model.palette?.matches.map(\.title) ?? [])")
        // `r` is offered for what it does here.
        for _ in 0..<4 { model.handle(.backspace) }
        type("load into", into: model)
        #expect(model.palette?.matches.first?.title == "load into Compose (this window sends nothing)", "\(model.palette?.matches.map(\.title) ?? [])")
        // Nor does the command line: it completes no command that sends, and one typed says why.
        model.handle(.escape)
        model.handle(.character(":"))
        for character in "se" { model.handle(.character(character)) }
        model.handle(.tab)
        guard case .command(let editor)? = model.prompt else { Issue.record("no command prompt"); return }
        #expect(editor.text == "se", "completed to \(editor.text)")
        for _ in 0..<2 { model.handle(.backspace) }
        for character in "cancel" { model.handle(.character(character)) }
        model.handle(.enter)
        #expect(model.message == AppModel.noAgentMessage)
    }

    @Test("a window without a workspace names no key or command that needs one (save, new group, environments, reload, import), and one typed says why (found by a review: the log browser offered w, N and E)")
    func windowWithoutWorkspaceOffersNoWorkspaceKeys() throws {
        let model = try model()
        #expect(model.workspace == nil)
        func screen() -> String { TUIFixtures.screenText(of: model, rows: 50, columns: 160) }
        model.handle(.character("1"))
        let compose = screen()
        #expect(!compose.contains("w save") && !compose.contains("N new group"), "\(compose)")
        model.handle(.character("?"))
        let help = screen()
        #expect(help.contains("Keys") && !help.contains("save the request or group") && !help.contains("next environment") && !help.contains("new group ("), "\(help)")
        model.handle(.escape)
        model.handle(.control("p"))
        type("save", into: model)
        #expect(model.palette?.matches.contains { $0.title.hasPrefix("save") || $0.title == ":save" } == false, "\(model.palette?.matches.map(\.title) ?? [])")
        model.handle(.escape)
        model.handle(.character(":"))
        type("re", into: model)
        model.handle(.tab)
        guard case .command(let editor)? = model.prompt else { Issue.record("no command prompt"); return }
        #expect(editor.text == "re", "completed to \(editor.text)")
        model.handle(.escape)
        for line in ["save", "env staging", "reload", "import x.har"] {
            model.runCommandLine(line)
            #expect(model.message == AppModel.noWorkspaceMessage, "\(line): \(model.message)")
        }
        // Pressed anyway, each key says what it needs.
        model.handle(.character("E"))
        #expect(model.message == AppModel.noWorkspaceMessage)
        model.handle(.character("w"))
        #expect(model.message.hasPrefix("no workspace to save to"), "\(model.message)")
    }

    @Test("a command given words it takes none of is refused and does nothing (found by a new user's trial: :quit now quit, :follow x toggled)")
    func commandWithoutArgumentRefusesWords() throws {
        let model = try TUIFixtures.model()
        for line in ["quit now", "q x", "follow x", "pause 1", "help me"] {
            model.runCommandLine(line)
            let name = String(line.prefix { $0 != " " })
            #expect(model.message == ":\(name) takes nothing after it; nothing was done" && !model.shouldQuit && !model.showHelp, "\(line): \(model.message)")
        }
        model.runCommandLine("quit")
        #expect(model.shouldQuit)
    }

    @Test("a key map file replaces bindings by context and command; its mistakes name their line")
    func keyMapFile() throws {
        let directory = NSTemporaryDirectory() + "curlew-keys-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/keys.yaml"
        try "compose:\n  duplicate: [ctrl-r, Z]\nglobal:\n  help: F1\n".write(toFile: path, atomically: true, encoding: .utf8)
        let map = try KeyMapFile.load(path: path)
        #expect(map.command(for: .control("r"), in: .compose) == .duplicate)
        #expect(map.command(for: .character("D"), in: .compose) == nil, "the standard key is replaced")
        #expect(map.command(for: .function(1), in: .compose) == .help)
        #expect(map.helpLines().contains { $0.keys == "Ctrl-R Z" && $0.help == "duplicate into a new request" })
        let model = try model(keyMap: map)
        model.handle(.character("Z"))
        #expect(model.compose.items.count == 3)
        // Wide enough for every hint (narrower, the last whole hints are left out).
        let screen = VirtualScreen(rows: 24, columns: 220)
        screen.present(model.render(rows: 24, columns: 220))
        #expect(screen.text.contains("Ctrl-R duplicate"), "the editor's hints name the keys of the active map")
        for (text, message) in [("compose:\n  sendd: s\n", "keys.yaml:2:3: unknown command \"sendd\" (did you mean \"send\"?)"), ("compsoe:\n  send: s\n", "unknown context"),
                                ("compose:\n  send: ctrl-ä\n", "is not a key"), ("- a\n", "mapping of contexts"),
                                ("compose:\n  send: x\n  cancel: x\n", "x is given to both send and cancel in compose"),
                                ("compose:\n  send: ctrl-j\n", "keys.yaml:2:9: \"ctrl-j\" reaches Curlew as enter: a terminal sends both as the same byte"),
                                ("global:\n  help: C-M\n", "\"C-M\" reaches Curlew as enter"), ("global:\n  help: ctrl-i\n", "as tab"),
                                ("global:\n  help: ctrl-h\n", "as backspace"),
                                ("compose:\n  send: ctrl-c\n", "\"ctrl-c\" is kept for quitting Curlew, so it cannot be given to a command")] {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            let error = #expect(throws: WorkspaceError.self) { try KeyMapFile.load(path: path) }
            #expect(error?.description.contains(message) == true, "\(error?.description ?? "")")
        }
        #expect(Key(name: "shift-tab") == .backTab && Key(name: "space") == .character(" ") && Key(name: "f13") == nil && Key(name: "ab") == nil)
    }

    @Test("the light theme trades colours that fade on white for darker ones; dark draws styles as they are")
    func themes() {
        #expect(Theme.dark.apply(.warning) == .warning)
        #expect(Theme.light.apply(.warning).foreground == .magenta)
        #expect(Theme.light.apply(.bar) == Style(foreground: .white, background: .blue))
        #expect(Theme.light.apply(.title).foreground == .blue)
    }

    @Test("a click on an editor field focuses it")
    func clickField() throws {
        let model = try model()
        _ = model.render(rows: 24, columns: 80)
        // The URL is the third field, on the fourth row (tabs, the editor's title, name, method).
        model.handle(.mouse(MouseEvent(kind: .click, row: 4, column: 50)))
        #expect(model.compose.focus == .editor && model.compose.field == .url)
    }
}

@Suite("second trial fixes")
struct SecondTrialTests {
    private func model() -> AppModel {
        let model = AppModel(environment: AppEnvironment(
            agent: Agent(config: NetworkConfig(baseURL: "http://127.0.0.1:9")), name: "test", sessionLogPath: nil,
            sessionsDirectory: NSTemporaryDirectory() + "none-" + UUID().uuidString,
            composeItems: [
                .group(name: "g", .batch([Request(.get, "/a")])),
                .request(RequestDraft(Request(.get, "/users", name: "list users"), baseURL: "http://h")),
            ]))
        model.pane = .compose
        return model
    }

    @Test("a long text in a field is shown in one pass (a 20,000-character paste froze the interface)")
    func longFieldIsQuick() {
        var editor = LineEditor(String(repeating: "x", count: 200_000) + "END")
        let start = ContinuousClock.now
        for _ in 0..<20 { _ = editor.display(width: 60) }
        #expect(ContinuousClock.now - start < .seconds(20), "quadratic in the text's length")
        #expect(editor.display(width: 20).hasSuffix("END▏ "))
        _ = editor.handle(.home)
        #expect(editor.display(width: 10).hasPrefix("▏xxxx"))
    }

    @Test("a device or directory is not opened as a log (/dev/zero hung the interface)")
    func devicesAreNotLogs() {
        let model = model()
        model.openLog("/dev/zero")
        #expect(model.message.contains("only regular files are opened") && model.logs.opened == nil)
        model.openLog("/etc")
        #expect(model.message.contains("only regular files are opened"))
    }

    @Test("keys that act on a request refuse a group under the cursor instead of using a hidden blank draft")
    func groupUnderCursor() {
        let model = model()
        // Latency mode works on both: on a group it runs the group.
        model.handle(.character("L"))
        #expect(model.latency?.runsGroup == true && model.latency?.name == "g")
        model.handle(.escape)
        model.handle(.character("y"))
        #expect(model.takeTerminalRequests().isEmpty && model.message.contains("copying works on a request"))
        model.handle(.character("D"))
        #expect(model.compose.items.count == 2)
        model.handle(.down)
        model.handle(.character("D"))
        #expect(model.compose.draft.name == "list users (copy)")
    }

    @Test("a window that only browses logs copies Compose's request too, composed with no config of its own (found by a new user's trial: it said there was nothing to copy)")
    func copyWithoutAgent() throws {
        let model = try TUIFixtures.model()
        model.handle(.paste("curl -H 'X-A: 1' http://h/copied"))
        model.handle(.escape)
        model.handle(.character("y"))
        #expect(model.message.hasPrefix("copied curl"), "\(model.message)")
    }

    @Test("a pasted curl with a JSON --data-raw keeps its body as typed; a relative URL is accepted as it is typed")
    func curlDataStaysRaw() throws {
        let draft = try ComposeState.draft(fromCurl: #"curl -X POST 'http://h/post' --data-raw '{"a":1}'"#)
        #expect(draft.bodyMode == .raw && draft.body == #"{"a":1}"#)
        #expect(try draft.makeRequest(variables: ChainVariables()).requestSerializer == .raw(Data(#"{"a":1}"#.utf8), contentType: "application/x-www-form-urlencoded"))
        let form = try ComposeState.draft(fromCurl: "curl http://h/post -d 'a=1&b=two'")
        #expect(form.bodyMode == .form)
        #expect(ComposeState(items: []).problem("/users/{id}", for: .url) == nil)
        // A form part no line can hold is named with the reason (found by a new user's trial:
        // "sends a file as its body" for a typed text part).
        do {
            _ = try ComposeState.draft(fromCurl: "curl http://127.0.0.1:18080/anything -F 'c=MP;type=text/plain'")
            Issue.record("a typed text part was taken")
        } catch {
            #expect(error.reason == #"the part "c" gives its text value a type (text/plain), which the editor's form lines cannot hold; :import it into the workspace instead"#,
                    "\(error.reason)")
        }
        #expect(try ComposeState.draft(fromCurl: "curl http://h/post -F 'c=MP'").bodyMode == .multipart)
    }

    @Test("a pasted curl command is literal: its {{ are escaped in the draft and sent as typed, not read as variables", arguments: [
        (#"curl -X POST 'http://h/post?q={{q}}' -H 'X-T: {{t}}' -H 'Content-Type: application/json' --data-raw '{"name":"{{n}}","n":1}'"#, true),
        (#"curl 'http://h/post' -H 'Authorization: Bearer {{tok}}' --data-raw 'a={{b}}&c=d'"#, false),
        (#"curl 'http://h/post' --data-raw 'plain {{text}} body'"#, false),
        (#"curl 'http://h/post' --json '{"a":"{{b}}","c":1,"k":"x\\{{b}}","t":"\u00e9 {{x}}"}'"#, true),
    ])
    func curlPasteIsLiteral(_ command: String, _ json: Bool) throws {
        let draft = try ComposeState.draft(fromCurl: command)
        if json {
            #expect(BodyCheck.jsonProblem(draft.body) == nil, "the editor reads \(draft.body) as the JSON it sends")
            #expect(BodyCheck.prettyJSON(draft.body) != nil, "P pretty-prints it (found by a new user's trial)")
        }
        let sent = try draft.makeRequest(variables: ChainVariables())
        let expected = try #require(try CurlImport.parse(command, readFile: { _ in Data() }).first).request
        #expect((sent.customURL ?? sent.path) == (expected.customURL ?? expected.path))
        for field in expected.headers { #expect(sent.headers[field.name] == field.value, "\(field.name): \(sent.headers)") }
        guard case .raw(let typed, _) = expected.requestSerializer else { return }
        guard case .raw(let data, _) = sent.requestSerializer else {
            // A form body is edited as its fields and sent as them.
            #expect(sent.requestSerializer == .urlEncodedForm && FormText.text(of: sent.params) == String(decoding: typed, as: UTF8.self), "\(sent.params)")
            return
        }
        if json {
            #expect(try JSONValue.parse(data) == JSONValue.parse(typed), "\(String(decoding: data, as: UTF8.self))")
        } else {
            #expect(data == typed, "\(String(decoding: data, as: UTF8.self))")
        }
    }

    @Test("re-sending a logged exchange sends what went out: a {{name}} in it (a captured value a server chose) is not read as a variable or a secret's name (found by review)")
    func resendIsLiteral() throws {
        let message = Fixtures.message(url: "http://h/a/{{token}}?q={{$env.HOME}}", requestHeaders: [HeaderField(name: "X-T", value: "{{token}}")],
                                       requestBody: #"{"k":"{{token}}"}"#)
        let draft = RequestDraft(message)
        let sent = try draft.makeRequest(variables: ChainVariables([("token", "SECRET-VALUE")]))
        var body = ""
        if case .raw(let data, _) = sent.requestSerializer { body = String(decoding: data, as: UTF8.self) }
        let text = "\(sent.customURL ?? sent.path) \(String(describing: sent.params)) \(sent.headers) \(body) \(sent.params.jsonObject.serialized())"
        #expect(!text.contains("SECRET-VALUE") && sent.headers["X-T"] == "{{token}}" && body == #"{"k":"{{token}}"}"#, "\(text)")
        #expect((sent.customURL ?? sent.path).removingPercentEncoding == "http://h/a/{{token}}?q={{$env.HOME}}", "\(text)")
        // A query the editor's rows would encode otherwise stays in the URL as it went out (found by a new user's trial).
        let braces = RequestDraft(Fixtures.message(url: #"http://h/anything?q=\{{v}}&x=}}{{"#))
        #expect(try braces.makeRequest(variables: ChainVariables()).customURL == #"http://h/anything?q=\{{v}}&x=}}{{"#, "\(braces.url) \(braces.params)")
        let plain = RequestDraft(Fixtures.message(url: "http://h/anything?page=2&q=a%20b"))
        #expect(plain.params.map(\.name) == ["page", "q"] && plain.url == "http://h/anything", "a query the rows send as it was is edited as rows")
    }

    @Test("the editor's JSON check reads an escaped \\{{ as the text it sends: inside a string it is text, outside one a mistake")
    func jsonCheckReadsEscapes() {
        #expect(BodyCheck.jsonProblem(#"{"a": "\{{token}}", "b": {{n}}, "c": "\{{"}"#) == nil)
        #expect(BodyCheck.jsonProblem(#"{"a": \{{n}}}"#) != nil)
        #expect(BodyCheck.jsonProblem(#"{"a": "\\{{x}}", "b": "\\\{{y}}"}"#) == nil, "JSON's escaped backslash, then a template; then an escaped one")
    }

    @Test("a relative URL with a space or a control character is flagged while typing, as an absolute one is; spaces inside a variable are not (found by a new user's trial)")
    func relativeURLProblems() {
        let compose = ComposeState(items: [])
        let flagged = "the URL contains a space or a control character"
        #expect(compose.problem("/get a", for: .url) == flagged)
        #expect(compose.problem("/get?q=\u{1B}]0;X\u{07}", for: .url) == flagged)
        #expect(compose.problem("{{base}}/a b", for: .url) == flagged)
        #expect(compose.problem("{{ base }}/users/{{ id }}", for: .url) == nil)
        #expect(compose.problem("{{base}}/auth/{{$base64 {{user}} {{password}}}}", for: .url) == nil, "a nested expression is a variable as a whole")
        #expect(compose.problem("curl -X POST http://h/x", for: .url) == nil, "a pasted curl command becomes a request")
    }

    @Test("pasted credentials land in the Auth field, shown masked, not in a header row that shows them whole; the request sends the same header")
    func curlCredentialsToAuth() throws {
        let basic = try ComposeState.draft(fromCurl: "curl -u ada:s3cret:x http://h/me")
        #expect(basic.auth == .basic(user: "ada", password: "s3cret:x"))
        #expect(!basic.headers.contains { $0.name.lowercased() == "authorization" })
        let sent = try basic.makeRequest(variables: ChainVariables())
        #expect(sent.headers["Authorization"] == "Basic " + Data("ada:s3cret:x".utf8).base64EncodedString(), "\(sent.headers)")
        let bearer = try ComposeState.draft(fromCurl: "curl -H 'Authorization: Bearer tok.en' http://h/me")
        #expect(bearer.auth == .bearer(token: "tok.en") && bearer.headers.isEmpty)
        // Anything else stays the header it was: another scheme, or base64 that is not user:password.
        let other = try ComposeState.draft(fromCurl: "curl -H 'Authorization: Digest x' -H 'X-A: 1' http://h/me")
        #expect(other.auth == .none && other.headers.count == 2)
        let opaque = try ComposeState.draft(fromCurl: "curl -H 'Authorization: Basic !!!' http://h/me")
        #expect(opaque.auth == .none && opaque.headers.count == 1)
        // The Auth field fills {{variables}} in, a header's base64 does not: braces in the
        // credentials are escaped there, and the same header goes out (found by a new user's
        // trial: they stayed a header row, shown whole).
        let braces = try ComposeState.draft(fromCurl: "curl -u 'ada:{{x}}' http://h/me")
        #expect(braces.auth == .basic(user: "ada", password: #"\{{x}}"#) && braces.headers.isEmpty)
        #expect(try braces.makeRequest(variables: ChainVariables()).headers["Authorization"] == HTTPHeaders.basicAuthorization("ada:{{x}}"))
        let token = try ComposeState.draft(fromCurl: "curl -H 'Authorization: Bearer tok{{en}}' http://h/me")
        #expect(token.auth == .bearer(token: #"tok\{{en}}"#) && token.headers.isEmpty)
        #expect(try token.makeRequest(variables: ChainVariables()).headers["Authorization"] == "Bearer tok{{en}}")
    }
}
