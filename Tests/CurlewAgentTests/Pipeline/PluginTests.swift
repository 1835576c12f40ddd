import CurlewAgent
import CurlewLocking
import CurlewTestSupport
import Foundation
import Testing

/// Records the hooks it sees, tagged with its name; `prepare` adds a header naming itself.
private final class RecordingPlugin: AgentPlugin {
    let name: String
    let record: @Sendable (String) -> Void

    init(_ name: String, record: @escaping @Sendable (String) -> Void) {
        self.name = name
        self.record = record
    }

    func prepare(_ request: Request) -> Request {
        record("\(name).prepare")
        var request = request
        request.headers.add("X-Plugin", name)
        return request
    }

    func willSend(_ request: RequestInfo) { record("\(name).willSend") }
    func didReceive(_ outcome: PluginOutcome, for request: RequestInfo) { record("\(name).didReceive") }
    func process(_ outcome: PluginOutcome, for request: RequestInfo, replays: Int) async -> PluginDecision {
        record("\(name).process")
        return .deliver(outcome)
    }
}

/// Turns a 418 into a success, to show `process` may change the result.
private struct TeapotForgiver: AgentPlugin {
    let name = "teapot forgiver"
    func process(_ outcome: PluginOutcome, for request: RequestInfo, replays: Int) async -> PluginDecision {
        guard outcome.response?.statusCode == 418 else { return .deliver(outcome) }
        return .deliver(PluginOutcome(response: outcome.response, error: nil))
    }
}

/// Turns cookies on for every request it prepares.
private struct CookieEnabler: AgentPlugin {
    let name = "cookie enabler"
    func prepare(_ request: Request) -> Request {
        var request = request
        request.usesCookies = true
        return request
    }
}

@Suite("Plugins")
struct PluginTests {
    @Test("with two transfer threads, a plugin that turns cookies on moves the exchange to the cookie thread: each finishes, the jar keeps their cookies, and a cancel reaches one in flight")
    func pluginTurnsCookiesOn() async throws {
        let agent = try await pipelineAgent {
            $0.plugins = [CookieEnabler()]
            $0.transferThreads = 2
            $0.maxConnectionsPerHost = 8
        }
        // From here on the cookie thread has a request in flight, so each request below is placed
        // on the other, less busy one before the plugin turns its cookies on. Answers are awaited
        // with a time limit: an exchange looked for on the wrong thread would never be answered.
        let busy = agent.start(Request(.get, "/delay/10")) { _ in }
        defer { agent.cancel(busy) }
        try await Task.sleep(for: .milliseconds(200))
        let statuses = Locked<[Int]>([])
        for index in 0..<3 {
            _ = agent.start(Request(.get, "/cookies/set?crumb\(index)=oat")) { result in
                statuses.withLock { $0.append((try? result.get().statusCode) ?? -1) }
            }
        }
        try await waitUntil(timeout: .seconds(10)) { statuses.withLock { $0.count } == 3 }
        #expect(statuses.withLock { $0 } == [200, 200, 200])
        #expect(Set(await agent.cookies().map(\.name)) == ["crumb0", "crumb1", "crumb2"])
        let ended = Locked<RequestError.Kind?>(nil)
        let slow = agent.start(Request(.get, "/delay/10")) { result in
            if case .failure(let failure) = result { ended.withLock { $0 = failure.error.kind } } else { ended.withLock { $0 = .other } }
        }
        try await Task.sleep(for: .milliseconds(300))
        agent.cancel(slow)
        try await waitUntil(timeout: .seconds(5)) { ended.withLock { $0 } != nil }
        #expect(ended.withLock { $0 } == .cancelled, "the cancel reached the exchange on the cookie thread")
    }

    @Test("hooks run in a defined order: the config's plugins first, for every hook")
    func order() async throws {
        let log = Locked<[String]>([])
        let agent = try await pipelineAgent { $0.plugins = [RecordingPlugin("global") { entry in log.withLock { $0.append(entry) } }] }
        let tag = uniqueTag()
        var request = Request(.get, "/get?tag=\(tag)")
        request.plugins = [RecordingPlugin("local") { entry in log.withLock { $0.append(entry) } }]
        let outcome = await sendCapturing(agent, request)
        #expect(try outcome.result.get().statusCode == 200)
        #expect(log.withLock { $0 } == [
            "global.prepare", "local.prepare", "global.willSend", "local.willSend",
            "global.didReceive", "local.didReceive", "global.process", "local.process",
        ])
        let received = try #require(try await TestServer.shared().receivedRequests.last { $0.uri.contains(tag) })
        #expect(received.headers.filter { $0.name == "X-Plugin" }.map(\.value) == ["global", "local"])
        #expect(outcome.message?.pipeline?.plugins == ["global", "local"])
    }

    @Test("process may change the result")
    func changesResult() async throws {
        let agent = try await pipelineAgent { $0.plugins = [TeapotForgiver()] }
        #expect(try await agent.send(Request(.get, "/status/418")).statusCode == 418)
    }

    /// Logs in to the demo server as ada through an agent of its own and returns the token.
    private static func login(_ agent: Agent) async throws -> String {
        var request = Request(.post, "/login", params: ["username": "ada", "password": "secret"])
        request.requestSerializer = .json
        return try await agent.send(request).json()["token"]?.stringValue ?? ""
    }

    @Test("the bearer-token plugin refreshes a rejected token once through /login and replays the request")
    func tokenRefresh() async throws {
        let refreshes = Locked(0)
        let login = try await pipelineAgent()
        let plugin = BearerTokenPlugin(token: "stale-token") {
            refreshes.withLock { $0 += 1 }
            return try await Self.login(login)
        }
        let agent = try await pipelineAgent { $0.plugins = [plugin] }
        let recorder = EventRecorder()
        agent.addObserver(recorder)
        let outcome = await sendCapturing(agent, Request(.get, "/me"))
        let response = try outcome.result.get()
        #expect(try response.json()["user"] == .string("ada"))
        #expect(refreshes.withLock { $0 } == 1)
        #expect(plugin.token?.hasPrefix("demo-") == true)
        #expect(outcome.message?.pipeline?.notes.first?.hasPrefix("replay 1: 401 with a stale token") == true)
        #expect(outcome.message?.pipeline?.attempt == 1)
        await agent.waitForObservers()
        // Two exchanges: the 401 and the replay, each its own.
        #expect(recorder.messages.count == 2)
        #expect(recorder.messages.first?.response?.statusCode == 401)
        #expect(recorder.messages.last?.response?.statusCode == 200)
        // The next request carries the fresh token straight away.
        _ = try await agent.send(Request(.get, "/me"))
        #expect(refreshes.withLock { $0 } == 1)
    }

    @Test("concurrent 401s share one refresh")
    func concurrentRefresh() async throws {
        let refreshes = Locked(0)
        let login = try await pipelineAgent()
        let plugin = BearerTokenPlugin(token: "stale-token") {
            refreshes.withLock { $0 += 1 }
            try await Task.sleep(for: .milliseconds(200))
            return try await Self.login(login)
        }
        let agent = try await pipelineAgent { $0.plugins = [plugin] }
        let statuses = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<4 { group.addTask { (try? await agent.send(Request(.get, "/me")).statusCode) ?? 0 } }
            var all: [Int] = []
            for await status in group { all.append(status) }
            return all
        }
        #expect(statuses == [200, 200, 200, 200])
        #expect(refreshes.withLock { $0 } == 1)
    }

    @Test("a token that is still rejected after one refresh fails instead of looping")
    func refreshOnce() async throws {
        let refreshes = Locked(0)
        let plugin = BearerTokenPlugin(token: "bad") {
            refreshes.withLock { $0 += 1 }
            return "still-bad"
        }
        let agent = try await pipelineAgent { $0.plugins = [plugin] }
        let outcome = await sendCapturing(agent, Request(.get, "/me"))
        guard case .failure(let failure) = outcome.result else { Issue.record("expected a failure"); return }
        #expect(failure.error.code == 401)
        #expect(refreshes.withLock { $0 } == 1)
    }
}
