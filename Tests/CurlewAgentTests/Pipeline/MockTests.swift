import CurlewAgent
import CurlewDemoServer
import CurlewTestSupport
import Foundation
import Testing

@Suite("Mocks")
struct MockTests {
    @Test("a redirect rule sends the request to the mock base URL, keeping method, path, query and headers")
    func redirect() async throws {
        let real = try await TestServer.shared()
        let mock = try await DemoServer.start()
        defer { Task { try? await mock.stop() } }
        let agent = try await pipelineAgent {
            $0.mocks = MockSettings(enabled: true, mockBaseURL: mock.baseURL, rules: [MockRule("PUT /anything/*", .redirect)])
        }
        let tag = uniqueTag()
        let outcome = await sendCapturing(agent, Request(.put, "/anything/users?tag=\(tag)", headers: ["X-Mine": "1"]))
        #expect(try outcome.result.get().statusCode == 200)
        let received = try #require(mock.receivedRequests.first { $0.uri.contains(tag) })
        #expect(received.method == "PUT")
        #expect(received.uri == "/anything/users?tag=\(tag)")
        #expect(received.header("X-Mine") == "1")
        #expect(real.receivedRequests.filter { $0.uri.contains(tag) }.isEmpty)
        #expect(outcome.message?.pipeline?.mock?.hasPrefix("redirected to \(mock.baseURL)/anything/users") == true)
    }

    @Test("a fixture answers without touching the network, after its delay")
    func fixture() async throws {
        let agent = try await pipelineAgent {
            $0.mocks = MockSettings(enabled: true, rules: [
                MockRule("GET /users/**", .fixture(.json("{\"id\": 7, \"name\": \"mock\"}", delay: .milliseconds(100)))),
            ])
        }
        let tag = uniqueTag()
        let started = ContinuousClock.now
        let outcome = await sendCapturing(agent, Request(.get, "/users/7/profile?tag=\(tag)"))
        #expect(ContinuousClock.now - started >= .milliseconds(100))
        let response = try outcome.result.get()
        #expect(response.source == .fixture)
        #expect(try response.json()["name"] == .string("mock"))
        #expect(try await serverCount(tag) == 0)
        #expect(outcome.message?.pipeline?.source == .fixture)
        #expect(outcome.message?.timings == nil)
        #expect(outcome.message?.response?.statusCode == 200)
        // Other paths and methods still reach the server.
        _ = try await agent.send(Request(.get, "/get?tag=\(tag)"))
        #expect(try await serverCount(tag) == 1)
    }

    @Test("fixtures: a body file, an unreadable body file, an error status, and the global switch")
    func fixtureVariants() async throws {
        let file = temporaryDirectory() + "/fixture.json"
        try Data("{\"from\": \"file\"}".utf8).write(to: URL(fileURLWithPath: file))
        var settings = MockSettings(enabled: true, rules: [
            MockRule("GET /from-file", .fixture(MockFixture(headers: [HeaderField(name: "Content-Type", value: "application/json")], bodyFile: file))),
            MockRule("GET /missing-file", .fixture(MockFixture(bodyFile: "/nonexistent/curlew-fixture"))),
            MockRule("* /broken", .fixture(.json("{}", status: 503))),
        ])
        let agent = try await pipelineAgent { $0.mocks = settings }
        #expect(try await agent.send(Request(.get, "/from-file")).json()["from"] == .string("file"))
        await #expect(throws: RequestFailure.self) { try await agent.send(Request(.get, "/missing-file")) }
        let missing = await sendCapturing(agent, Request(.get, "/missing-file"))
        if case .failure(let failure) = missing.result { #expect(failure.error.kind == .mockFailed) }
        let broken = await sendCapturing(agent, Request(.delete, "/broken"))
        if case .failure(let failure) = broken.result { #expect(failure.error.code == 503) } else { Issue.record("expected a failure") }

        settings.enabled = false
        let off = try await pipelineAgent { $0.mocks = settings }
        let real = await sendCapturing(off, Request(.get, "/from-file"))
        if case .failure(let failure) = real.result { #expect(failure.error.code == 404) } else { Issue.record("expected the server's 404") }
    }

    @Test("rule patterns: * stays within a segment, ** crosses them, the method must match")
    func patterns() {
        #expect(MockRule("GET /users/*", .redirect).matches(method: "GET", url: "http://h/users/7"))
        #expect(!MockRule("GET /users/*", .redirect).matches(method: "GET", url: "http://h/users/7/posts"))
        #expect(MockRule("GET /users/**", .redirect).matches(method: "get", url: "http://h/users/7/posts?x=/y"))
        #expect(!MockRule("POST /users/*", .redirect).matches(method: "GET", url: "http://h/users/7"))
        #expect(MockRule("* /a*c", .redirect).matches(method: "PATCH", url: "https://h:1/abbbc#f"))
        #expect(!MockRule("GET /a", .redirect).matches(method: "GET", url: "http://h?/a"))
        let hostile = String(repeating: "*a", count: 20) + "b"
        #expect(!MockRule("GET /" + hostile, .redirect).matches(method: "GET", url: "http://h/" + String(repeating: "a", count: 30)))
    }
}
