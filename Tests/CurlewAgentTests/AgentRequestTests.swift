import CurlewAgent
import CurlewTestSupport
import Foundation
import CurlewLocking
import Testing

@Suite("Agent requests against the demo server")
struct AgentRequestTests {
    private func agent(_ configure: (inout NetworkConfig) -> Void = { _ in }) async throws -> Agent {
        var config = NetworkConfig(baseURL: try await TestServer.shared().baseURL)
        configure(&config)
        return Agent(config: config)
    }

    @Test("each method reaches the server as itself", arguments: ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "PURGE"])
    func methods(_ method: String) async throws {
        let response = try await agent().send(Request(HTTPMethod(rawValue: method), "/anything", responseSerializer: .json))
        #expect(try response.json()["method"] == .string(method))
    }

    @Test("HEAD gets headers and no body")
    func head() async throws {
        let response = try await agent().send(Request(.head, "/get"))
        #expect(response.statusCode == 200)
        #expect(response.body.isEmpty)
        #expect(response.headers["Content-Length"] != nil)
    }

    @Test("GET and DELETE carry parameters in the query, POST in a form body")
    func parameterPlacement() async throws {
        let agent = try await agent()
        let get = try await agent.send(Request(.get, "/anything", params: ["a": "1"], responseSerializer: .json)).json()
        #expect(get["args"]?["a"] == .string("1"))
        let delete = try await agent.send(Request(.delete, "/anything", params: ["a": "1"], responseSerializer: .json)).json()
        #expect(delete["args"]?["a"] == .string("1"))
        let post = try await agent.send(Request(.post, "/anything", params: ["a": "x y", "b": "2"], responseSerializer: .json)).json()
        #expect(post["form"]?["a"] == .string("x y"))
        #expect(post["headers"]?["Content-Type"] == .string("application/x-www-form-urlencoded"))
        #expect(post["data"] == .string("a=x%20y&b=2"))
    }

    @Test("the JSON serializer sends the parameters as a JSON object, nesting kept")
    func jsonBody() async throws {
        let params: Parameters = ["name": "curlew", "tags": ["a", "b"], "nested": ["deep": true], "n": 1.5]
        let echo = try await agent().send(Request(.post, "/post", params: params, requestSerializer: .json, responseSerializer: .json)).json()
        #expect(echo["data"] == .string(#"{"name":"curlew","tags":["a","b"],"nested":{"deep":true},"n":1.5}"#))
        #expect(echo["json"]?["nested"]?["deep"] == .bool(true))
        #expect(echo["headers"]?["Content-Type"] == .string("application/json"))
    }

    @Test("a raw body is sent byte for byte with its content type")
    func rawBody() async throws {
        let bytes = Data([0, 1, 2, 255, 254])
        let tag = uniqueTag()
        let server = try await TestServer.shared()
        _ = try await agent().send(Request(.put, "/anything/\(tag)", requestSerializer: .raw(bytes, contentType: "application/x-test")))
        let received = try #require(server.receivedRequests.last { $0.uri.contains(tag) })
        #expect(Data(received.body) == bytes)
        #expect(received.header("Content-Type") == "application/x-test")
    }

    @Test("default headers and the user agent are sent; the request's own headers win")
    func headers() async throws {
        let agent = try await agent {
            $0.defaultHeaders = ["X-Default": "d", "X-Both": "default"]
            $0.userAgent = "CurlewTest/1"
        }
        let echo = try await agent.send(Request(.get, "/headers", headers: ["x-both": "request"], responseSerializer: .json)).json()
        #expect(echo["headers"]?["X-Default"] == .string("d"))
        #expect(echo["headers"]?["x-both"] == .string("request"))
        #expect(echo["headers"]?["X-Both"] == nil)
        #expect(echo["headers"]?["User-Agent"] == .string("CurlewTest/1"))
    }

    @Test("the request as sent on the wire is what the server received")
    func wireCaptureMatchesServer() async throws {
        let server = try await TestServer.shared()
        let agent = try await agent()
        let recorder = EventRecorder()
        agent.addObserver(recorder)
        let tag = uniqueTag()
        _ = try await agent.send(Request(.post, "/anything/\(tag)", params: ["k": "v"], headers: ["X-Trace": tag], requestSerializer: .json))
        await agent.waitForObservers()
        let message = try #require(recorder.messages.first)
        let sent = try #require(message.sent)
        let received = try #require(server.receivedRequests.last { $0.uri.contains(tag) })
        let lines = sent.head.components(separatedBy: "\r\n")
        #expect(lines[0] == "POST \(received.uri) HTTP/1.1")
        let sentHeaders = lines.dropFirst().filter { !$0.isEmpty }.map { line -> [String] in
            let colon = line.firstIndex(of: ":")!
            return [String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)]
        }
        #expect(sentHeaders == received.headers.map { [$0.name, $0.value] })
        #expect(sent.body?.data == Data(received.body))
    }

    @Test("a header carrying CR/LF is refused before anything is sent")
    func headerInjectionNeverSent() async throws {
        let server = try await TestServer.shared()
        let tag = uniqueTag()
        let failure = await #expect(throws: RequestFailure.self) {
            try await agent().send(Request(.get, "/get?\(tag)", headers: ["X-Evil": "a\r\nX-Injected: 1"]))
        }
        #expect(failure?.error.kind == .invalidHeader)
        #expect(!server.receivedRequests.contains { $0.uri.contains(tag) })
    }

    @Test("a URL longer than a request head can be is refused before anything is sent, as a URL error, not as the server's answer")
    func overlongURLNeverSent() async throws {
        let server = try await TestServer.shared()
        let tag = uniqueTag()
        let failure = await #expect(throws: RequestFailure.self) {
            try await agent().send(Request(.get, "/get?\(tag)&pad=" + String(repeating: "a", count: 1_800_000)))
        }
        #expect(failure?.error.kind == .invalidURL)
        #expect(failure?.error.message.hasPrefix("the URL is 1.7 MiB") == true)
        #expect(!server.receivedRequests.contains { $0.uri.contains(tag) })
    }

    @Test("a status outside the acceptable range fails, with the response body kept")
    func unacceptableStatus() async throws {
        let failure = try #require(await #expect(throws: RequestFailure.self) { try await agent().send(Request(.get, "/status/503")) })
        #expect(failure.error.kind == .unacceptableStatus)
        #expect(failure.error.code == 503)
        #expect(failure.response?.statusCode == 503)
        #expect(try failure.response?.json()["status"] == .int(503))
        let accepted = try await agent().send(Request(.get, "/status/503", acceptableStatusCodes: 200..<600))
        #expect(accepted.statusCode == 503)
    }

    @Test("the strict JSON serializer fails a body that is not JSON; automatic never fails")
    func responseSerializers() async throws {
        let agent = try await agent()
        let failure = await #expect(throws: RequestFailure.self) { try await agent.send(Request(.get, "/bytes/16", responseSerializer: .json)) }
        #expect(failure?.error.kind == .responseSerialization)
        let automatic = try await agent.send(Request(.get, "/bytes/16"))
        #expect(automatic.value == .data(automatic.body))
        let json = try await agent.send(Request(.get, "/json"))
        guard case .json(let document) = json.value else { Issue.record("expected JSON"); return }
        #expect(document["slideshow"]?["author"] == .string("Curlew"))
        let text = try await agent.send(Request(.get, "/get", responseSerializer: .text))
        guard case .text(let body) = text.value else { Issue.record("expected text"); return }
        #expect(body.contains("\"method\""))
    }

    @Test("network failures carry the config's tips")
    func tips() async throws {
        let port = try Listeners.closedPort()
        let agent = Agent(config: NetworkConfig(tips: ErrorTips(generalError: "oops", notReachable: "offline", appendsErrorCode: true)))
        let failure = await #expect(throws: RequestFailure.self) { try await agent.send(.url("http://127.0.0.1:\(port)/")) }
        #expect(failure?.error.kind == .couldNotConnect)
        #expect(failure?.tip == "offline (code 7)")
    }

    @Test("a large response is kept whole in the response but only as a preview in the debug message")
    func debugBodyLimit() async throws {
        let agent = try await agent { $0.debugBodyLimit = 1000 }
        let recorder = EventRecorder()
        agent.addObserver(recorder)
        let response = try await agent.send(Request(.get, "/bytes/5000"))
        await agent.waitForObservers()
        #expect(response.body.count == 5000)
        let body = try #require(recorder.messages.first?.response?.body)
        #expect(body.size == 5000)
        #expect(body.data.count == 1000)
        #expect(body.isTruncated)
    }

    @Test("a debug callback alone gets the request as sent; without any reader the request still succeeds")
    func debugCallbackCapture() async throws {
        let agent = try await agent { _ in }
        let captured = Locked<DebugMessage?>(nil)
        let done = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            agent.start(Request(.post, "/post", params: ["k": "v"], requestSerializer: .json), callbacks: RequestCallbacks(
                success: { _ in continuation.resume(returning: true) },
                failure: { _ in continuation.resume(returning: false) },
                debug: { message in captured.withLock { $0 = message } }
            ))
        }
        #expect(done)
        let message = try #require(captured.withLock { $0 })
        #expect(message.sent?.head.hasPrefix("POST /post HTTP/1.1\r\n") == true)
        #expect(message.sent?.body?.text == #"{"k":"v"}"#)
        let plain = try await agent.send(Request(.get, "/get"))
        #expect(plain.statusCode == 200)
    }

    @Test("a response's headers read as the server sent them, repeated names kept, and change like written ones")
    func receivedHeaders() async throws {
        var request = Request(.get, "/cookies/set?first=1&second=2", acceptableStatusCodes: 200..<400)
        request.followRedirects = false
        let captured = Locked<DebugMessage?>(nil)
        let agent = try await agent()
        let response = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Response, any Error>) in
            agent.start(request, callbacks: RequestCallbacks(
                success: { continuation.resume(returning: $0) },
                failure: { continuation.resume(throwing: $0) },
                debug: { message in captured.withLock { $0 = message } }
            ))
        }
        #expect(response.statusCode == 302)
        let cookies = response.headers.fields.filter { $0.name.lowercased() == "set-cookie" }.map(\.value)
        #expect(cookies.count == 2)
        #expect(cookies.allSatisfy { $0.hasSuffix("; Path=/; HttpOnly") })
        #expect(response.headers["LOCATION"] == "/cookies")
        #expect(response.headers["X-Missing"] == nil)
        #expect(!response.headers.isEmpty)
        let message = try #require(captured.withLock { $0 })
        #expect(message.response?.headers == response.headers.fields)

        var changed = response.headers
        changed.set("Location", "/elsewhere")
        changed.add("X-Added", "1")
        #expect(changed["location"] == "/elsewhere")
        #expect(changed.fields.count == response.headers.fields.count + 1)
        #expect(changed != response.headers)
        #expect(HTTPHeaders(response.headers.fields) == response.headers)
        let decoded = try JSONDecoder().decode(HTTPHeaders.self, from: JSONEncoder().encode(response.headers))
        #expect(decoded == response.headers)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(String(decoding: try encoder.encode(HTTPHeaders([HeaderField(name: "A", value: "b")])), as: UTF8.self)
            == #"{"fields":[{"name":"A","value":"b"}]}"#)
    }
}
