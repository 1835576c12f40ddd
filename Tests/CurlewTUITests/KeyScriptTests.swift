import CurlewAgent
import CurlewTestSupport
@testable import CurlewTUI
import Foundation
import Testing

@Suite("Key scripts against the demo server", .serialized)
struct KeyScriptTests {
    /// Pumps observer events into the model until `condition` holds.
    private func pump(_ model: AppModel, _ observer: TUIObserver, until condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            model.ingest(observer.drain())
            guard ContinuousClock.now < deadline else { Issue.record("timed out"); return }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Opens the selected request's URL field in the editor, with the cursor at its end or the
    /// field emptied.
    private func openURLField(of model: AppModel, clearing: Bool) {
        model.handle(.right)
        model.handle(.down)
        model.handle(.down)
        model.handle(.enter)
        model.handle(clearing ? .control("u") : .end)
    }

    private func liveModel(variables: [String: String] = [:]) async throws -> (AppModel, TUIObserver, Agent) {
        let server = try await TestServer.shared()
        let agent = Agent(config: NetworkConfig(baseURL: server.baseURL, maxConnectionsPerHost: 10))
        let observer = TUIObserver()
        agent.addObserver(observer)
        let model = AppModel(environment: AppEnvironment(
            agent: agent, name: "demo", sessionLogPath: nil, sessionsDirectory: NSTemporaryDirectory() + "none-" + UUID().uuidString,
            composeItems: [
                .request(RequestDraft(Request(.get, "/get", name: "single GET"), baseURL: server.baseURL)),
                .request(RequestDraft(Request(.get, "/delay/10", name: "slow"), baseURL: server.baseURL)),
                .group(name: "login chain", .chain([
                    ChainStep(Request(.post, "/login", params: ["username": "ada", "password": "pw"], requestSerializer: .json), captures: [.json("token", "$.token")]),
                    ChainStep(Request(.get, "/me", headers: ["Authorization": "Bearer {{token}}"])),
                ])),
                // Events two seconds apart: a test held up for a few seconds under the whole suite's
                // load still finds the stream running (a second apart was not enough).
                .request(RequestDraft(Request(.get, "/sse?count=4&interval=2", name: "events"), baseURL: server.baseURL)),
                .group(name: "slow batch", .batch([Request(.get, "/delay/10"), Request(.get, "/delay/10")], policy: .any)),
            ],
            timeZone: TimeZone(identifier: "UTC")!, processEnvironment: variables
        ))
        return (model, observer, agent)
    }

    @Test("the status line names a sent request's method once, also when its name already says it (found by a new user's trial: sent POST POST /hello)")
    func sentMessageNamesTheMethodOnce() async throws {
        let (model, _, agent) = try await liveModel()
        model.handle(.character("s"))
        #expect(model.message.hasPrefix("sent GET single GET as #"), "\(model.message)")
        let base = try await TestServer.shared().baseURL
        model.handle(.paste("curl -X POST \(base)/post -d 'a=1'"))
        let name = model.compose.draft.name
        #expect(name.hasPrefix("POST "), "a pasted command is named by its method and path: \(name)")
        model.handle(.character("s"))
        #expect(model.message.hasPrefix("sent \(name) as #"), "\(model.message), named \(name)")
        agent.cancelAll()
    }

    @Test("a running event stream opens from Live and its Stream tab fills in as events arrive, then shows the finished record")
    func runningStream() async throws {
        let (model, observer, _) = try await liveModel()
        let screen = VirtualScreen(rows: 30, columns: 120)
        for _ in 0..<3 { model.handle(.down) }
        model.handle(.enter)
        model.handle(.character("s"))
        try await pump(model, observer) { (model.live.rows.first?.stream?.eventCount ?? 0) >= 1 }
        model.handle(.character("2"))
        model.handle(.enter)
        screen.present(model.render(rows: 30, columns: 120))
        #expect(model.detail?.state.isRunning == true)
        #expect(model.detail?.state.tab == .stream)
        #expect(screen.text.contains("(live)"))
        #expect(screen.text.contains("tick  id=1"))
        try await pump(model, observer) { (model.detail?.state.message.stream?.eventCount ?? 0) >= 3 }
        screen.present(model.render(rows: 30, columns: 120))
        #expect(screen.text.contains("tick  id=3"), "the open detail follows the stream")
        try await pump(model, observer) { model.live.rows.first?.message != nil }
        screen.present(model.render(rows: 30, columns: 120))
        #expect(model.detail?.state.isRunning == false)
        #expect(model.detail?.state.tab == .stream, "the finished request stays on the tab the user was on")
        #expect(screen.text.contains("4 event(s)"))
        #expect(!screen.text.contains("(live)"))
        // The Response tab and Live's size column tell what arrived, though the body was not kept.
        for _ in 0..<7 where model.detail?.state.tab != .response { model.handle(.character("[")) }
        #expect(model.detail?.state.tab == .response)
        let size = try #require(model.live.rows.first?.message?.response?.body.size)
        #expect(size > 0)
        screen.present(model.render(rows: 30, columns: 120))
        #expect(screen.text.contains("An event stream of \(size) bytes, read as 4 events: the Stream tab shows them."), "\(screen.text)")
    }

    @Test("a group selected in Compose shows its own last run beside the editor, not another request's answer")
    func groupRunBesideEditor() async throws {
        let (model, observer, _) = try await liveModel()
        let screen = VirtualScreen(rows: 40, columns: 160)
        model.handle(.character("s"))
        try await pump(model, observer) { model.live.rows.first?.message != nil }
        model.handle(.down)
        model.handle(.down)
        screen.present(model.render(rows: 40, columns: 160))
        #expect(screen.text.contains("login chain has not run from here yet"), "\(screen.text)")
        #expect(!screen.text.contains("Nothing sent from"))
        model.handle(.character("s"))
        try await pump(model, observer) { model.groups.groups.first?.verdict != nil }
        screen.present(model.render(rows: 40, columns: 160))
        #expect(screen.text.contains("chain login chain · succeeded"), "\(screen.text)")
        #expect(screen.text.contains("{{token}} = "))
    }

    @Test("compose -> send -> live -> detail -> timing tab shows the phases of the real exchange")
    func composeSendInspect() async throws {
        let (model, observer, _) = try await liveModel()
        let screen = VirtualScreen(rows: 40, columns: 120)
        model.handle(.character("s"))
        try await pump(model, observer) { model.live.rows.first?.message != nil }
        model.handle(.character("2"))
        screen.present(model.render(rows: 40, columns: 120))
        #expect(screen.text.contains("GET     200"))
        model.handle(.enter)
        model.handle(.character("l"))
        model.handle(.character("l"))
        screen.present(model.render(rows: 40, columns: 120))
        for text in ["Timing waterfall (new connection)", "dns", "connect", "wait", "receive", "total", "remote      127.0.0.1", "HTTP        1.1"] {
            #expect(screen.text.contains(text), "\(text)")
        }
        model.handle(.character("h"))
        model.handle(.character("h"))
        model.handle(.character("h"))
        screen.present(model.render(rows: 40, columns: 120))
        #expect(screen.text.contains("GET /get HTTP/1.1"), "the Wire tab shows the request as sent")
    }

    @Test("editing the URL and adding a header in Compose changes what is sent; {{variables}} come from the environment")
    func editAndSend() async throws {
        let server = try await TestServer.shared()
        let tag = uniqueTag()
        let (model, observer, _) = try await liveModel(variables: ["USER_TAG": tag])
        openURLField(of: model, clearing: true)
        for character in "\(server.baseURL)/anything/{{USER_TAG}}" { model.handle(.character(character)) }
        model.handle(.enter)
        model.handle(.down)
        model.handle(.down)
        #expect(model.compose.field == .headersHeading)
        model.handle(.enter)
        for character in "X-Edited: yes" { model.handle(.character(character)) }
        model.handle(.enter)
        model.handle(.character("s"))
        try await pump(model, observer) { model.live.rows.first?.message != nil }
        let received = try #require(server.receivedRequests.last { $0.uri == "/anything/\(tag)" })
        #expect(received.header("X-Edited") == "yes")
        #expect(model.compose.items.contains { if case .request(let draft) = $0 { draft.url.contains("{{USER_TAG}}") } else { false } },
                "the edited request is kept in the list")
    }

    @Test("a URL typed without a scheme is plain HTTP, as curlew send reads it; a scheme with one slash is refused as it is typed")
    func schemelessURL() async throws {
        let server = try await TestServer.shared()
        let tag = uniqueTag()
        let port = try #require(URLComponents(string: server.baseURL)?.port)
        let (model, observer, _) = try await liveModel()
        openURLField(of: model, clearing: true)
        for character in "http:/x" { model.handle(.character(character)) }
        #expect(model.render(rows: 24, columns: 120).text.contains("the scheme takes two slashes"))
        model.handle(.enter)
        #expect(model.compose.draft.url != "http:/x", "Enter does not keep it")
        #expect(model.compose.commit(":{{port}}/get", to: .url) == nil, "a template is judged once it is filled in")
        // Another scheme without its slashes is refused as curlew send refuses it, not sent as a
        // path of the base URL (found by a new user's trial); a path with a colon is written ./.
        #expect(model.compose.commit("javascript:alert(1)", to: .url)?.hasPrefix("javascript: reads as a scheme") == true)
        #expect(model.compose.commit("./projects:list", to: .url) == nil)
        #expect(model.compose.commit("localhost:8080/get", to: .url) == nil)
        #expect(model.compose.commit("localhost:/get", to: .url) == nil, "an empty port is a port, as curl reads it")
        model.handle(.control("u"))
        for character in "127.0.0.1:\(port)/anything/\(tag)" { model.handle(.character(character)) }
        model.handle(.enter)
        model.handle(.character("s"))
        try await pump(model, observer) { model.live.rows.first?.message != nil }
        #expect(server.receivedRequests.contains { $0.uri == "/anything/\(tag)" }, "\(model.message)")
    }

    @Test("a URL pasted with spaces and its line end is kept and sent without them; one the agent refuses says so on the status line instead of 'sent' (found by a new user's trial)")
    func pastedURLAndRefusal() async throws {
        let server = try await TestServer.shared()
        let tag = uniqueTag()
        let port = try #require(URLComponents(string: server.baseURL)?.port)
        let (model, observer, _) = try await liveModel()
        openURLField(of: model, clearing: true)
        model.handle(.paste(" \(server.baseURL)/anything/\(tag)\r\n"))
        #expect(!model.render(rows: 24, columns: 120).text.contains("space or a control character"))
        model.handle(.enter)
        #expect(model.compose.draft.url == "\(server.baseURL)/anything/\(tag)")
        model.handle(.character("s"))
        try await pump(model, observer) { model.live.rows.first?.message != nil }
        #expect(server.receivedRequests.contains { $0.uri == "/anything/\(tag)" }, "\(model.message)")

        let (refusing, refusingObserver, _) = try await liveModel()
        openURLField(of: refusing, clearing: true)
        for character in "127.0.0.1:\(port)/a b\(tag)" { refusing.handle(.character(character)) }
        refusing.handle(.enter)
        refusing.handle(.character("s"))
        try await pump(refusing, refusingObserver) { refusing.live.rows.first?.message != nil }
        let id = try #require(refusing.live.rows.first?.info.id)
        #expect(refusing.message.hasPrefix("#\(id) not sent: URL") && refusing.message.contains("has a space at character"), "\(refusing.message)")
        #expect(!server.receivedRequests.contains { $0.uri.contains("b\(tag)") })

        // An emptied URL is refused, as curlew send refuses one, not sent to the base URL's root.
        let (emptied, _, _) = try await liveModel()
        openURLField(of: emptied, clearing: true)
        emptied.handle(.enter)
        emptied.handle(.character("s"))
        #expect(emptied.message.hasPrefix("not sent: the URL is empty"), "\(emptied.message)")
        #expect(emptied.live.rows.isEmpty)
    }

    @Test("an unknown {{variable}} is refused with a message and nothing is sent")
    func unknownVariable() async throws {
        let (model, _, _) = try await liveModel()
        openURLField(of: model, clearing: false)
        for character in "?x={{nope}}" { model.handle(.character(character)) }
        model.handle(.enter)
        model.handle(.character("s"))
        #expect(model.message.hasPrefix("not sent: chain variable {{nope}} is not defined"))
        #expect(model.live.rows.isEmpty)
    }

    @Test("cancelling the slow request from Compose ends it cancelled")
    func cancelFromCompose() async throws {
        let (model, observer, _) = try await liveModel()
        model.handle(.down)
        model.handle(.enter)
        model.handle(.character("s"))
        try await pump(model, observer) { model.live.rows.first?.state == .inFlight }
        model.handle(.character("x"))
        let id = try #require(model.live.rows.first?.info.id)
        #expect(model.message == "cancelling #\(id)")
        try await pump(model, observer) { model.live.rows.first?.message != nil }
        #expect(model.live.rows.first?.state == .cancelled)
        #expect(model.message == "#\(id) cancelled", "the status line says how it ended")
    }

    @Test("Groups numbers members from 1; cancelling one says so, then how it ended")
    func cancelMemberFromGroups() async throws {
        let (model, observer, _) = try await liveModel()
        for _ in 0..<4 { model.handle(.down) }
        model.handle(.character("s"))
        try await pump(model, observer) { model.groups.groups.first?.members.allSatisfy { $0.state == .inFlight } == true }
        model.handle(.character("3"))
        model.handle(.right)
        model.handle(.down)
        #expect(model.groups.selectedMember == 1)
        let screen = VirtualScreen(rows: 24, columns: 120)
        screen.present(model.render(rows: 24, columns: 120))
        #expect(screen.text.contains("2  /delay/10"), "\(screen.text)")
        #expect(!screen.text.contains("0  /delay/10"))
        model.handle(.character("c"))
        #expect(model.message == "cancelling member #2")
        try await pump(model, observer) { model.groups.groups.first?.members[1].state.isTerminal == true }
        #expect(model.message == "member #2 cancelled")
        model.handle(.character("x"))
        try await pump(model, observer) { model.groups.groups.first?.verdict != nil }
    }

    @Test("Enter on a member that ended opens its answer over Groups, and Esc comes back to the member (it went on to Live; found by a new user's trial)")
    func memberDetailReturnsToGroups() async throws {
        let (model, observer, _) = try await liveModel()
        model.handle(.down)
        model.handle(.down)
        model.handle(.character("s"))
        try await pump(model, observer) { model.groups.groups.first?.verdict != nil && model.live.rows.allSatisfy { $0.message != nil } }
        model.handle(.character("3"))
        model.handle(.enter)
        #expect(model.groupMembersFocused)
        model.handle(.down)
        model.handle(.enter)
        #expect(model.pane == .groups && model.detail?.pane == .groups, "\(model.pane)")
        model.handle(.escape)
        #expect(model.pane == .groups && model.detail == nil && model.groupMembersFocused && model.groups.selectedMember == 1)
    }

    @Test("keys pressed in Groups before a group just run is heard of wait for it instead of acting on the group selected before")
    func keysBeforeTheRunArrives() async throws {
        let (model, observer, _) = try await liveModel()
        model.handle(.down)
        model.handle(.down)
        model.handle(.character("s"))
        try await pump(model, observer) { model.groups.groups.first?.verdict != nil }
        for _ in 0..<2 { model.handle(.down) }
        model.handle(.character("s"))
        let slow = try #require(model.compose.lastGroup)
        // Before any event of the new run: the pane says it is starting, Enter has nothing to
        // open, and cancelling cancels the new run, not the chain still selected.
        model.handle(.character("3"))
        #expect(model.render(rows: 24, columns: 120).text.contains("starting group #\(slow.id)…"))
        model.handle(.enter)
        #expect(!model.groupMembersFocused)
        model.handle(.character("x"))
        #expect(model.message == "cancelling group #\(slow.id)")
        try await pump(model, observer) { model.groups.group(id: slow.id)?.verdict != nil }
        #expect(model.groups.group(id: slow.id)?.verdict == .cancelled)
        #expect(model.groups.groups.first?.verdict == .succeeded, "the chain run before is left as it was")
        #expect(model.selectedGroup?.info.id == slow.id)
        // Members cancelled before any byte arrived show an empty bytes bar, not a full one.
        let rows = model.render(rows: 30, columns: 160).text.split(separator: "\n").filter { $0.contains("cancelled") && $0.contains("/delay/") }
        #expect(!rows.isEmpty && rows.allSatisfy { $0.contains("░░░░░░░░") && !$0.contains("█") }, "\(rows)")
    }

    @Test("running the chain from Compose shows it in Groups with its capture and verdict")
    func chainInGroups() async throws {
        let (model, observer, _) = try await liveModel()
        model.handle(.down)
        model.handle(.down)
        model.handle(.character("s"))
        try await pump(model, observer) { model.groups.groups.first?.verdict != nil }
        model.handle(.character("3"))
        let text = model.render(rows: 40, columns: 120).text
        #expect(text.contains("chain login chain · succeeded"))
        #expect(text.contains("100 % (2/2)"))
        #expect(text.contains("{{token}} = [REDACTED]") && !text.contains("demo-"), "a captured token is hidden")
    }
}
