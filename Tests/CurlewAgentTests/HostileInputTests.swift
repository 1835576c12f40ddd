@testable import CurlewAgent
import CurlewDemoServer
import CurlewTestSupport
@testable import CurlewTransport
import Foundation
import CurlewLocking
import Testing

/// Regression tests for what hostile servers and careless callers send: each pins a defect that
/// once put something on the wire that was not composed, or leaked what was meant to stay hidden.
@Suite("Hostile input: methods, redirects, bodies and URLs")
struct HostileInputTests {
    private func exchange(_ agent: Agent, _ request: Request) async -> (message: DebugMessage, failure: RequestFailure?) {
        let captured = Locked<DebugMessage?>(nil)
        return await withCheckedContinuation { continuation in
            agent.start(request, callbacks: RequestCallbacks(
                success: { _ in continuation.resume(returning: (captured.withLock { $0! }, nil)) },
                failure: { continuation.resume(returning: (captured.withLock { $0! }, $0)) },
                debug: { message in captured.withLock { $0 = message } }
            ))
        }
    }

    @Test("a method that is not an HTTP token is refused before anything is sent",
          arguments: ["GET /x HTTP/1.1", "GET\r\nX-Injected: 1", "GE T", "", "GET\0", "PÖST", "GET\t"])
    func invalidMethods(_ method: String) async throws {
        let server = try await TestServer.shared()
        let tag = uniqueTag()
        let agent = Agent(config: NetworkConfig(baseURL: server.baseURL))
        let (_, failure) = await exchange(agent, Request(HTTPMethod(rawValue: method), "/anything/\(tag)"))
        #expect(failure?.error.kind == .invalidMethod)
        #expect(!server.receivedRequests.contains { $0.uri.contains(tag) })
    }

    @Test("a refused URL's debug message carries the URL as typed, so every view can show it")
    func refusedURLAsTyped() async {
        let agent = Agent(config: NetworkConfig())
        let (message, failure) = await exchange(agent, .url("http://exa mple/path", method: "PATCH"))
        #expect(failure?.error.kind == .invalidURL)
        #expect(message.original?.url == "http://exa mple/path")
        #expect(message.original?.method == "PATCH")
    }

    @Test("a Content-Length or Transfer-Encoding given by hand is refused: the body's framing is not the caller's to set",
          arguments: ["Content-Length", "content-length", "Transfer-Encoding"])
    func framingHeaders(_ name: String) async throws {
        let server = try await TestServer.shared()
        let tag = uniqueTag()
        let agent = Agent(config: NetworkConfig(baseURL: server.baseURL))
        let smuggled = "helloGET /status/418 HTTP/1.1\r\nHost: x\r\n\r\n"
        let (_, failure) = await exchange(agent, Request(.post, "/post?\(tag)", headers: [name: "5"],
                                                        requestSerializer: .raw(Data(smuggled.utf8), contentType: "text/plain")))
        #expect(failure?.error.kind == .invalidHeader)
        #expect(!server.receivedRequests.contains { $0.uri.contains(tag) })
    }

    @Test("a URL password never reaches an error message")
    func passwordInErrors() async {
        let agent = Agent(config: NetworkConfig())
        let (message, failure) = await exchange(agent, .url("http://alice:Sup3rSecretPW@127.0.0.1:1/get\u{1}"))
        #expect(failure?.error.kind == .invalidURL)
        #expect(failure?.error.message.contains("Sup3rSecretPW") == false)
        #expect(message.error?.message.contains("Sup3rSecretPW") == false)
    }

    @Test("the total timeout covers every redirect hop, not each one")
    func timeoutAcrossHops() async throws {
        let server = try await TestServer.shared()
        let agent = Agent(config: NetworkConfig(baseURL: server.baseURL))
        var request = Request(.get, "/redirect-to", params: ["url": "/redirect-to?url=/get&delay=0.4", "delay": "0.4"])
        request.timeout = .milliseconds(600)
        let (message, failure) = await exchange(agent, request)
        #expect(failure?.error.kind == .totalTimeout)
        #expect((message.timings?.total ?? 0) < 1_000_000)
    }

    @Test("every RFC 9110 token character is a valid method")
    func tokenMethods() throws {
        try HTTPMethod(rawValue: "M-SEARCH!#$%&'*+.^_`|~09az").validate()
    }

    @Test("a redirect to ftp: is refused, not followed")
    func redirectToFTP() async throws {
        let server = try await TestServer.shared()
        let agent = Agent(config: NetworkConfig(baseURL: server.baseURL))
        let target = "ftp://127.0.0.1:\(try Listeners.closedPort())/file"
        let (message, failure) = await exchange(agent, Request(.get, "/redirect-to", params: ["url": .string(target)]))
        #expect(failure?.error.kind == .redirectRefused)
        #expect(message.response?.statusCode == 302)
    }

    @Test("credential headers, declared secrets included, are dropped on a redirect to another origin")
    func crossOriginDropsSecrets() async throws {
        let origin = try await TestServer.shared()
        let other = try await DemoServer.start()
        defer { Task { try await other.stop() } }
        let tag = uniqueTag()
        var config = NetworkConfig(baseURL: origin.baseURL)
        config.secretHeaderNames.append("X-Session")
        let agent = Agent(config: config)
        let headers: HTTPHeaders = [
            "Authorization": "Bearer a", "Proxy-Authorization": "Basic b", "Cookie": "c=d",
            "X-Api-Key": "k", "X-Session": "s", "X-Plain": "kept", "Host": "first.test",
        ]
        let request = Request(.get, "/redirect-to", params: ["url": .string("\(other.baseURL)/anything/\(tag)")], headers: headers)
        let (_, failure) = await exchange(agent, request)
        #expect(failure == nil)
        let received = try #require(other.receivedRequests.first { $0.uri.contains(tag) })
        #expect(received.header("X-Plain") == "kept")
        #expect(received.header("Host") != "first.test", "a Host given by hand names the first server only")
        for name in ["Authorization", "Proxy-Authorization", "Cookie", "X-Api-Key", "X-Session"] {
            #expect(received.header(name) == nil, "\(name) crossed to another origin")
        }
    }

    @Test("a redirect within the origin keeps the credentials")
    func sameOriginKeepsSecrets() async throws {
        let server = try await TestServer.shared()
        let tag = uniqueTag()
        let agent = Agent(config: NetworkConfig(baseURL: server.baseURL))
        let request = Request(.get, "/redirect-to", params: ["url": .string("/anything/\(tag)")], headers: ["Authorization": "Bearer a"])
        let (message, failure) = await exchange(agent, request)
        #expect(failure == nil)
        #expect(message.connection?.redirectCount == 1)
        #expect(message.timings?.redirect != nil)
        let received = try #require(server.receivedRequests.first { $0.uri.contains(tag) })
        #expect(received.header("Authorization") == "Bearer a")
    }

    @Test("redirects past the limit fail with tooManyRedirects")
    func redirectLimit() async throws {
        let server = try await TestServer.shared()
        var config = NetworkConfig(baseURL: server.baseURL)
        config.maxRedirects = 2
        let (message, failure) = await exchange(Agent(config: config), Request(.get, "/redirect/5"))
        #expect(failure?.error.kind == .tooManyRedirects)
        #expect(message.connection?.redirectCount == 2)
    }

    @Test("https to http is refused unless allowed; 303 turns a POST into a body-less GET")
    func redirectRules() throws {
        let request = TransferRequest(url: "https://a.example/login", method: "POST",
                                      headers: [("Content-Type", "application/json"), ("X-Api-Key", "k")],
                                      body: Data("{}".utf8), originBoundHeaderNames: ["X-Api-Key"])
        guard case .refuse(let error) = RedirectHop.decide(after: request, status: 302, location: "http://a.example/", hopsSoFar: 0) else {
            Issue.record("a downgrade was followed")
            return
        }
        #expect(error.kind == .insecureRedirect)
        var allowing = request
        allowing.allowsInsecureRedirects = true
        guard case .follow = RedirectHop.decide(after: allowing, status: 302, location: "http://a.example/", hopsSoFar: 0) else {
            Issue.record("an allowed downgrade was refused")
            return
        }
        guard case .follow(let next) = RedirectHop.decide(after: request, status: 303, location: "/done", hopsSoFar: 0) else {
            Issue.record("a 303 was not followed")
            return
        }
        #expect(next.method == "GET")
        #expect(next.body == nil)
        #expect(next.url == "https://a.example/done")
        #expect(!next.headers.contains { $0.name == "Content-Type" })
        #expect(next.headers.contains { $0.name == "X-Api-Key" })
        guard case .follow(let elsewhere) = RedirectHop.decide(after: request, status: 307, location: "https://a.example:8443/", hopsSoFar: 0) else {
            Issue.record("a 307 was not followed")
            return
        }
        #expect(elsewhere.method == "POST")
        #expect(!elsewhere.headers.contains { $0.name == "X-Api-Key" }, "another port is another origin")
        for location in ["file:///etc/passwd", "gopher://x/", "http://", "javascript:alert(1)"] {
            guard case .refuse = RedirectHop.decide(after: request, status: 302, location: location, hopsSoFar: 0) else {
                Issue.record("followed \(location)")
                continue
            }
        }
    }

    @Test("a request without a body carries no Content-Type the user did not set", arguments: ["PURGE", "POST", "PUT"])
    func noBodyNoContentType(_ method: String) async throws {
        let server = try await TestServer.shared()
        let tag = uniqueTag()
        let agent = Agent(config: NetworkConfig(baseURL: server.baseURL))
        _ = await exchange(agent, Request(HTTPMethod(rawValue: method), "/anything/\(tag)"))
        let received = try #require(server.receivedRequests.first { $0.uri.contains(tag) })
        #expect(received.header("Content-Type") == nil)
    }

    @Test("a URL password never reaches a debug message or the log")
    func urlPassword() async throws {
        let (message, failure, log) = try await loggedExchange(userInfo: "ada:hunter2pw", path: "/anything")
        #expect(failure == nil, "the password was still sent")
        #expect(message.original?.url.contains("hunter2pw") == false)
        #expect(message.connection?.effectiveURL.contains("hunter2pw") == false)
        #expect(!log.contains("hunter2pw"))
        #expect(!log.contains(Data("ada:hunter2pw".utf8).base64EncodedString()))
    }

    @Test("a URL password the path repeats is hidden there too, in the message, the log and the request line (found by a new user's trial)")
    func urlPasswordRepeatedInPath() async throws {
        let (message, failure, log) = try await loggedExchange(userInfo: "ada:Sekr3tPw", path: "/basic-auth/ada/Sekr3tPw")
        #expect(failure == nil, "the server took the password")
        #expect(message.original?.url.hasSuffix("/basic-auth/ada/[REDACTED]") == true)
        #expect(message.original?.url.contains("Sekr3tPw") == false)
        #expect(message.connection?.effectiveURL.contains("Sekr3tPw") == false)
        let head = try #require(RedactionPolicy().redact(message).sent?.head)
        #expect(head.hasPrefix("GET /basic-auth/ada/[REDACTED] HTTP/1.1"))
        #expect(!log.contains("Sekr3tPw"))
        #expect(log.contains("/basic-auth/ada/[REDACTED]"))
    }

    /// One GET to the test server's `path` with `userInfo` in its URL, by an agent with a logger:
    /// its debug message, its failure, and the session log's text.
    private func loggedExchange(userInfo: String, path: String) async throws -> (DebugMessage, RequestFailure?, String) {
        let server = try await TestServer.shared()
        let url = server.baseURL.replacingOccurrences(of: "http://", with: "http://\(userInfo)@") + path
        let logPath = FileManager.default.temporaryDirectory.appendingPathComponent(uniqueTag("log") + ".jsonl").path
        defer { try? FileManager.default.removeItem(atPath: logPath) }
        let logger = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: logPath))
        let agent = Agent(config: NetworkConfig())
        agent.addObserver(logger)
        let (message, failure) = await exchange(agent, .url(url))
        await agent.waitForObservers()
        try logger.close()
        return (message, failure, try String(contentsOfFile: logPath, encoding: .utf8))
    }

    @Test("a secret JSON member in a body larger than the debug body limit stays out of the log")
    func secretInTruncatedBody() async throws {
        let server = try await TestServer.shared()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(uniqueTag("log")).path
        let logger = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: directory + "/s.jsonl"))
        var config = NetworkConfig(baseURL: server.baseURL)
        config.debugBodyLimit = 1024
        let agent = Agent(config: config)
        agent.addObserver(logger)
        let body = #"{"user":"ada","password":"sw0rdfish-secret","nested":{"token":"tok-secret"},"pad":""# + String(repeating: "x", count: 8000) + #""}"#
        _ = await exchange(agent, Request(.post, "/post", requestSerializer: .raw(Data(body.utf8), contentType: "application/json")))
        await agent.waitForObservers()
        try logger.close()
        let log = try String(contentsOfFile: directory + "/s.jsonl", encoding: .utf8)
        #expect(!log.contains("sw0rdfish-secret"))
        #expect(!log.contains("tok-secret"))
        #expect(log.contains("[REDACTED]"))
    }

    @Test("an existing log readable by others is made owner-only before anything is appended")
    func existingLogTightened() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(uniqueTag("log") + ".jsonl").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(), attributes: [.posixPermissions: 0o644]))
        let logger = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: path))
        try logger.close()
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)

        let link = path + ".link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        #expect(throws: NetworkLoggerError.self) { try NetworkLogger(config: NetworkLoggerConfig(logFilePath: link)) }
    }

    @Test("a directory given as the log (., ./, .., dir/) is refused with its reason, not a crash (found by a new user's trial)")
    func directoryAsLog() throws {
        let directory = FileManager.default.temporaryDirectory.path
        for path in [".", "./", "..", directory, directory + "/", ""] {
            let error = #expect(throws: NetworkLoggerError.self) { try NetworkLogger(config: NetworkLoggerConfig(logFilePath: path)) }
            #expect(error?.reason.contains("directory") == true || path.isEmpty, "\(path): \(String(describing: error))")
        }
        // A directory path that does not exist is named for what it is, not said to exist.
        let missing = #expect(throws: NetworkLoggerError.self) { try NetworkLogger(config: NetworkLoggerConfig(logFilePath: "no-such-\(uniqueTag())/")) }
        #expect(missing?.reason == "it ends with / and so names a directory; give the path of a file", "\(String(describing: missing))")
    }

    @Test("a session that sent nothing leaves no log file; one that did keeps it")
    func emptyLogRemoved() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(uniqueTag("log")).path
        let empty = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: directory + "/empty.jsonl"))
        try empty.close()
        #expect(!FileManager.default.fileExists(atPath: directory + "/empty.jsonl"))
        #expect(!empty.fileExists)
    }
}

@Suite("Numbers users type")
struct NumberInputTests {
    @Test("timeouts must be finite seconds from 0.001 to 86400", arguments: [Double.infinity, -.infinity, .nan, 0, -1, 86_401, 1e300])
    func refusedSeconds(_ value: Double) {
        #expect(throws: UserInputError.self) { try SecondsInput.duration(value, field: "--timeout") }
    }

    @Test("seconds typed as text are digits with at most one point: hex floats, exponents, signs and words are refused (found by a new user's trial: --timeout 0x10 waited 16 s)")
    func decimalSeconds() throws {
        for text in ["0x10", "0x1p-1", "1e3", "+5", "-1", "inf", "nan", "1.2.3", ".", "", " 5", "5s", "１"] {
            #expect(SecondsInput.decimal(text) == nil, "\(text)")
        }
        for (text, seconds) in [("15", 15.0), ("0.5", 0.5), (".5", 0.5), ("2.", 2.0), ("0.001", 0.001)] {
            #expect(SecondsInput.decimal(text) == seconds, "\(text)")
        }
        #expect(try SecondsInput.duration(parsing: " 2.5 ", field: "timeout") == .milliseconds(2_500))
        #expect(throws: UserInputError.self) { try SecondsInput.duration(parsing: "0x10", field: "timeout") }
    }

    @Test("the message names the field")
    func namedField() {
        do {
            _ = try SecondsInput.duration(parsing: "inf", field: "timeout")
            Issue.record("inf was accepted")
        } catch {
            #expect(error.message.hasPrefix("timeout "))
        }
    }

    @Test("valid seconds become milliseconds")
    func acceptedSeconds() throws {
        #expect(try SecondsInput.duration(1.5, field: "t") == .milliseconds(1500))
        #expect(try SecondsInput.duration(parsing: " 0.001 ", field: "t") == .milliseconds(1))
    }
}

@Suite("The JSON reader on untrusted bytes")
struct JSONReaderTests {
    @Test("lone and reversed surrogates read as U+FFFD instead of trapping", arguments: [
        (#""\ud800\u0041""#, "\u{FFFD}A"),
        (#""\udc00\ud800""#, "\u{FFFD}\u{FFFD}"),
        (#""\ud800""#, "\u{FFFD}"),
        (#""\ud83d\ude00""#, "😀"),
        (#""\ud800\ud800\udc00""#, "\u{FFFD}\u{10000}"),
    ])
    func surrogates(_ text: String, _ expected: String) throws {
        #expect(try JSONValue.parse(text) == .string(expected))
    }

    @Test("malformed escapes, deep nesting and broken numbers are typed errors", arguments: [
        #""\u+123""#, #""\u12"#, "-", "--1", "1.2.3", "[1,]", "{\"a\" 1}",
    ])
    func typedErrors(_ text: String) {
        #expect(throws: JSONSyntaxError.self) { try JSONValue.parse(text) }
    }

    @Test("nesting a hundred thousand levels deep is a typed error, not a stack overflow")
    func deepNesting() {
        #expect(throws: JSONSyntaxError.self) { try JSONValue.parse(String(repeating: "[", count: 100_000)) }
        #expect(throws: JSONSyntaxError.self) { try JSONValue.parse(String(repeating: "{\"a\":", count: 100_000)) }
    }

    @Test("a number too large for a double reads as infinity and is written back as null")
    func hugeNumber() throws {
        let value = try JSONValue.parse("[1e999999, 123456789012345678901234567890]")
        #expect(value[0] == .double(.infinity))
        #expect(value.serialized().hasPrefix("[null,"))
    }

    @Test("invalid UTF-8 inside a string is repaired, not a crash")
    func invalidUTF8() throws {
        let value = try JSONValue.parse(Data([0x22, 0xFF, 0xFE, 0x41, 0x22]))
        guard case .string(let text) = value else { Issue.record("not a string"); return }
        #expect(text.hasSuffix("A"))
    }
}

@Suite("Redaction of bodies kept in part")
struct PartialBodyRedactionTests {
    @Test("JSON quoted inside a string of a cut body (an echo's data) has its secret members hidden")
    func embeddedJSON() throws {
        let body = #"{"data" : "{\"user\":\"ada\",\"password\":\"sw0rdfish-secret\",\"pad\":\"xxxxxxxxxxxxxxxxxxxx"#
        var message = Fixtures.message(responseBody: body)
        message.response!.body = BodySnapshot(kept: Data(body.utf8), size: 9999, contentType: "application/json")
        let redacted = RedactionPolicy().redact(message)
        let text = try #require(redacted.response?.body.text)
        #expect(!text.contains("sw0rdfish"), "\(text)")
    }

    @Test("query secrets and URL passwords in JSON strings are hidden even when no member name is secret")
    func secretsInStrings() throws {
        let body = #"{"next":"https://api.test/x?access_token=abc123","login":"https://bob:pw77@h.test/"}"#
        var message = Fixtures.message(responseBody: body)
        message.response!.body = BodySnapshot(data: Data(body.utf8), contentType: "application/json", limit: 1 << 20)
        let text = try #require(RedactionPolicy().redact(message).response?.body.text)
        #expect(!text.contains("abc123"))
        #expect(!text.contains("pw77"))
    }

    @Test("a secret member cut off by the limit is hidden up to the cut")
    func cutValue() throws {
        let body = #"{"user":"ada","password":"sw0rdfi"#
        var message = Fixtures.message(responseBody: body)
        message.response!.body = BodySnapshot(kept: Data(body.utf8), size: 9999, contentType: "application/json")
        let text = try #require(RedactionPolicy().redact(message).response?.body.text)
        #expect(text == #"{"user":"ada","password":"[REDACTED]""#)
    }
}

@Suite("URL passwords")
struct URLPasswordTests {
    @Test("every password in a text is hidden, also in a URL inside another's query or in JSON", arguments: [
        ("http://u:pw@h.test/?next=https://v:pw2@i.test/", "http://u:[REDACTED]@h.test/?next=https://v:[REDACTED]@i.test/"),
        (#"{"url":"https:\/\/u:pw@h.test\/"}"#, #"{"url":"https:\/\/u:[REDACTED]@h.test\/"}"#),
        ("http://user@h.test/", "http://user@h.test/"),
        ("http://h.test/a@b:c", "http://h.test/a@b:c"),
        ("http://u:[REDACTED]@h.test/", "http://u:[REDACTED]@h.test/"),
        ("no url : @ here", "no url : @ here"),
        // A backslash in a password, raw and as JSON writes it (found by a new user's trial).
        (#"http://u:pa\ss@h.test/"#, "http://u:[REDACTED]@h.test/"),
        (#"{"url":"http:\/\/u:pa\\ss@h.test\/x"}"#, #"{"url":"http:\/\/u:[REDACTED]@h.test\/x"}"#),
        (#"http://u:pw\@h.test/"#, "http://u:[REDACTED]@h.test/"),
        // The password where the URL repeats it (found by a new user's trial), longest first;
        // one shorter than a credential worth looking for elsewhere stays where it repeats.
        ("http://u:Sekr3tPw@h.test/basic-auth/u/Sekr3tPw?again=Sekr3tPw", "http://u:[REDACTED]@h.test/basic-auth/u/[REDACTED]?again=[REDACTED]"),
        ("http://u:abcd@h.test/abcdabcde/abc", "http://u:[REDACTED]@h.test/abcdabcde/abc"),
        ("http://u:abcd@h.test/?next=https://v:abcdef@i.test/abcdef", "http://u:[REDACTED]@h.test/?next=https://v:[REDACTED]@i.test/[REDACTED]"),
        ("http://u:pw@h.test/pw", "http://u:[REDACTED]@h.test/pw"),
        // Not in a scheme or an authority: a user or host name equal to the password stays
        // (found by review: `admin:admin@` lost its user name, `demo:demo@demo.test` its host).
        ("http://admin:admin@h.test/admin", "http://admin:[REDACTED]@h.test/[REDACTED]"),
        ("http://demo:demo@demo.example.test/demo", "http://demo:[REDACTED]@demo.example.test/[REDACTED]"),
        ("http://u:http@h.test/http https://h.test/", "http://u:[REDACTED]@h.test/[REDACTED] https://h.test/"),
        // Only a repeat standing alone (a segment, a value, a quoted string): inside a longer word,
        // a host or a port it stays (found by a new user's trial: `127.0.0.1` lost its `0.0.1`).
        ("http://u:xabc@h/ http://v:abcdef@i/xabcdef", "http://u:[REDACTED]@h/ http://v:[REDACTED]@i/xabcdef"),
        ("http://u:abab@h/ababab", "http://u:[REDACTED]@h/ababab"),
        ("http://u:0.0.1@127.0.0.1:18700/basic-auth/u/0.0.1 127.0.0.1", "http://u:[REDACTED]@127.0.0.1:18700/basic-auth/u/[REDACTED] 127.0.0.1"),
        ("http://u:basic@h/basic-auth/u/basic", "http://u:[REDACTED]@h/basic-auth/u/[REDACTED]"),
        (#"{"url":"http:\/\/u:Sekr3tPw@h.test\/x\/Sekr3tPw"}"#, #"{"url":"http:\/\/u:[REDACTED]@h.test\/x\/[REDACTED]"}"#),
    ])
    func masking(_ text: String, _ expected: String) {
        #expect(URLPassword.masking(in: text) == expected)
    }

    @Test("a hostile text costs time in proportion to its length: a long password repeated in part everywhere, thousands of passwords (found by review: quadratic)")
    func hostileTexts() {
        let password = String(repeating: "A", count: 4_096)
        let long = String(repeating: "A", count: 1 << 20) + " http://u:" + password + "@h/" + password + "B"
        let started = ContinuousClock.now
        let masked = URLPassword.masking(in: long)
        // A password this long is hidden wherever it is, in every run of it (overlapping ones as one).
        #expect(masked == "[REDACTED] http://u:[REDACTED]@h/[REDACTED]B")
        #expect(URLPassword.masking(in: long + "/" + password) == "[REDACTED] http://u:[REDACTED]@h/[REDACTED]B/[REDACTED]")
        let short = String(repeating: "A", count: 1 << 20) + " http://u:AAAA@h/AAAAB/AAAA"
        #expect(URLPassword.masking(in: short) == String(repeating: "A", count: 1 << 20) + " http://u:[REDACTED]@h/AAAAB/[REDACTED]")
        let many = (0..<20_000).map { "http://u:pass\($0)word@h/x" }.joined(separator: " ")
        let hidden = URLPassword.masking(in: many)
        #expect(!hidden.contains("word@") && hidden.components(separatedBy: "[REDACTED]").count == 20_001)
        // A quadratic search takes minutes on these; a linear one milliseconds.
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    @Test("the search finds every occurrence, overlapping ones included, as a plain scan does")
    func occurrences() {
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<2_000 {
            let haystack = (0..<Int.random(in: 0...60, using: &generator)).map { _ in UInt8.random(in: 97...99, using: &generator) }
            let needle = (0..<Int.random(in: 1...5, using: &generator)).map { _ in UInt8.random(in: 97...99, using: &generator) }
            var found: [Int] = []
            URLPassword.forEachOccurrence(of: needle, in: haystack) { found.append($0) }
            let expected = haystack.count < needle.count ? [] : (0...(haystack.count - needle.count)).filter { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
            #expect(found == expected, "\(needle) in \(haystack)")
        }
    }
}

@Suite("Composed requests record what the agent added")
struct AutomaticHeaderTests {
    @Test("headers the agent adds (defaults, User-Agent, the body's Content-Type) are marked automatic; the request's own are not")
    func automaticHeaders() throws {
        var config = NetworkConfig(baseURL: "http://h.test")
        config.defaultHeaders = ["Accept": "application/json"]
        let composed = try RequestComposer(config: config)
            .compose(Request(.post, "/p", params: ["a": "1"], headers: ["X-Custom": "1"])).composed
        #expect(Set(composed.automaticHeaders) == ["Accept", "User-Agent", "Content-Type"])
        var message = Fixtures.message()
        message.original = composed
        let decoded = try SessionLogFormat.makeDecoder().decode(DebugMessage.self, from: Data(SessionRecordWriter.messageLine(message, custom: nil)))
        #expect(decoded.original?.automaticHeaders == composed.automaticHeaders)
    }
}

@Suite("JSON indented for reading")
struct JSONLayoutTests {
    @Test("only the spacing changes: numbers a double cannot hold, strings' escapes and brackets inside strings stay as written")
    func tokensKept() {
        let text = #" {"a" : [ 1 , 12345678901234567890123,-0, 1E5 ] ,"s":"x\"{[,:]}\\","n":null,"o":{ "t":true } ,"e":[]} "#
        #expect(JSONLayout.indented(text) == """
        {
          "a": [
            1,
            12345678901234567890123,
            -0,
            1E5
          ],
          "s": "x\\"{[,:]}\\\\",
          "n": null,
          "o": {
            "t": true
          },
          "e": []
        }
        """)
        #expect(JSONLayout.indented("42") == "42" && JSONLayout.indented(#" "x" "#) == #""x""#)
        for broken in ["", "{", "[1,]", "{\"a\" 1}", "1 2", "\"\\u12\""] {
            #expect(JSONLayout.indented(broken) == nil, "\(broken)")
        }
    }

    @Test("short values nested hundreds deep grow by the indentation of twenty levels at most (found by review: a 1 MB body became 500 MB of spaces)")
    func deepNestingBounded() throws {
        let text = String(repeating: "[", count: 500) + String(repeating: "0,", count: 100_000) + "0" + String(repeating: "]", count: 500)
        let laidOut = try #require(JSONLayout.indented(text))
        #expect(laidOut.utf8.count < 50 * text.utf8.count, "\(laidOut.utf8.count)")
        let lines = laidOut.split(separator: "\n")
        #expect(lines[1] == "  [" && lines[20] == String(repeating: " ", count: 40) + "[" && lines[21] == String(repeating: " ", count: 40) + "[")
        #expect(lines[600] == String(repeating: " ", count: 40) + "0,")
    }
}
