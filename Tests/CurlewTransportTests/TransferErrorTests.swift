import CurlewDemoServer
import CurlewTestSupport
import CurlewTransport
import Foundation
import Testing

@Suite("Typed transport errors")
struct TransferErrorTests {
    private func run(_ request: TransferRequest) async -> TransferResult {
        await EngineHarness().run(request)
    }

    /// What a failed exchange with the shared server went through, for a failure's message:
    /// when it started and ended, its phases, its connection, and when (if ever) the server
    /// recorded the request tagged `tag`.
    private func account(of result: TransferResult, started: Date, tag: String, server: DemoServer) -> String {
        let ended = Date()
        let received = server.receivedRequests.filter { $0.uri.contains(tag) }.map { $0.receivedAt.timeIntervalSince(started) }
        return "started \(started), ended after \(ended.timeIntervalSince(started)) s; timings \(result.timings); "
            + "connection \(result.connection); error \(String(describing: result.error)); "
            + "the server recorded it after \(received) s"
    }

    @Test("a refused connection is couldNotConnect")
    func refused() async throws {
        let port = try Listeners.closedPort()
        let result = await run(TransferRequest(url: "http://127.0.0.1:\(port)/get"))
        #expect(result.error?.kind == .couldNotConnect)
        #expect(result.error?.code == 7)
    }

    @Test("a connection that never completes is a connect timeout")
    func connectTimeout() async throws {
        let listener = try UnacceptingListener()
        let result = await run(TransferRequest(url: "http://127.0.0.1:\(listener.port)/get", totalTimeout: .seconds(5), connectTimeout: .milliseconds(300)))
        #expect(result.error?.kind == .connectTimeout)
        withExtendedLifetime(listener) {}
    }

    @Test("a slow response is a total timeout")
    func totalTimeout() async throws {
        let server = try await TestServer.shared()
        let result = await run(TransferRequest(url: "\(server.baseURL)/delay/5", totalTimeout: .milliseconds(300)))
        #expect(result.error?.kind == .totalTimeout)
        #expect(result.error?.code == 28)
    }

    @Test("a reply libcurl cannot read is invalidResponse, not a bad URL or out of memory; two Content-Length values that disagree stop the exchange (found by a new user's trial)",
          arguments: [("bad-status", "the response's status line is not one HTTP reads: an unknown version or no three-digit status code (Unsupported HTTP version"),
                      ("no-status", "the response has no status line: its first bytes are not HTTP/1.x or HTTP/2, and an HTTP/0.9 answer is not read"), ("huge-header", "longer than libcurl reads"),
                      ("many-headers", "longer than libcurl reads (300 KiB in all)"),
                      ("two-lengths", "conflicting Content-Length values (2 and 5)"),
                      // `+5` is 5 to libcurl (found by review), `0x5` is 0 (found by a new user's trial).
                      ("lenient-length", "Content-Length \"+5\" is not a number"),
                      // libcurl's own words were "Received HTTP/0.9 when not allowed" (found by a new user's trial).
                      ("informational-only", "the server sent only HTTP/1.1 150 Weird, an informational status, and no final answer after it"),
                      // libcurl called it an empty reply, or a reset (found by a new user's trial).
                      ("informational-storm", "the server sent only HTTP/1.1 100 Continue, an informational status, and no final answer after it")])
    func unreadableReply(fault: String, told: String) async throws {
        let server = try await TestServer.shared()
        for capturesWire in [true, false] {
            let result = await run(TransferRequest(url: "\(server.baseURL)/fault/\(fault)", capturesWire: capturesWire))
            #expect(result.error?.kind == .invalidResponse, "\(String(describing: result.error))")
            #expect(result.error?.message.contains(told) == true, "\(String(describing: result.error))")
            #expect(result.responseBody.isEmpty || fault == "no-status")
        }
        // The same length twice, once as a list of it, is no conflict.
        let agreeing = await run(TransferRequest(url: "\(server.baseURL)/fault/repeated-length"))
        #expect(agreeing.error == nil && agreeing.responseBody == Data("hello".utf8), "\(String(describing: agreeing.error))")
    }

    @Test("a request head longer than libcurl sends fails as the request's, not as a line of the server's answer, with and without the wire capture")
    func overlongRequestHead() async throws {
        let server = try await TestServer.shared()
        let url = "\(server.baseURL)/get?pad=" + String(repeating: "a", count: RequestHeadLimit.bytes + 1)
        for capturesWire in [true, false] {
            let result = await run(TransferRequest(url: url, capturesWire: capturesWire))
            #expect(result.error?.message == "the request could not be sent: its head is longer than libcurl sends (1 MiB), or memory ran out",
                    "\(String(describing: result.error))")
            #expect(result.statusLine.isEmpty)
        }
    }

    @Test("a malformed URL is invalidURL")
    func invalidURL() async {
        #expect(await run(TransferRequest(url: "http://[::1")).error?.kind == .invalidURL)
        #expect(await run(TransferRequest(url: "gopherx://example/")).error?.kind == .invalidURL)
    }

    @Test("an unknown host is couldNotResolveHost")
    func unresolvable() async {
        let result = await run(TransferRequest(url: "http://no-such-host.invalid/"))
        #expect(result.error?.kind == .couldNotResolveHost)
    }

    @Test("speaking TLS to a plain HTTP server is a TLS failure")
    func tlsFailure() async throws {
        let server = try await TestServer.shared()
        let result = await run(TransferRequest(url: "https://127.0.0.1:\(server.port)/get"))
        #expect(result.error?.kind == .tlsFailure)
    }

    @Test("too many redirects is tooManyRedirects")
    func redirectLoop() async throws {
        let server = try await TestServer.shared()
        let result = await run(TransferRequest(url: "\(server.baseURL)/redirect/5", maxRedirects: 2))
        #expect(result.error?.kind == .tooManyRedirects)
    }

    @Test("a connection reset mid-body is connectionReset, with the partial response kept")
    func reset() async throws {
        let server = try await TestServer.shared()
        let tag = uniqueTag()
        let started = Date()
        let result = await run(TransferRequest(url: "\(server.baseURL)/fault/reset?tag=\(tag)"))
        #expect(result.error?.kind == .connectionReset, "\(account(of: result, started: started, tag: tag, server: server))")
        #expect(result.statusCode == 200)
        #expect(result.responseBody.count == 100)
    }

    @Test("a connection closed before any response is emptyResponse")
    func closed() async throws {
        let server = try await TestServer.shared()
        let tag = uniqueTag()
        let started = Date()
        let result = await run(TransferRequest(url: "\(server.baseURL)/fault/close?tag=\(tag)"))
        #expect(result.error?.kind == .emptyResponse, "\(account(of: result, started: started, tag: tag, server: server))")
    }

    @Test("a server that stalls after the headers is a total timeout")
    func stall() async throws {
        let server = try await TestServer.shared()
        // Long enough for the headers to arrive while the whole suite loads both cores (2 s once was
        // not); the stall never ends, so the timeout is what stops the transfer.
        let result = await run(TransferRequest(url: "\(server.baseURL)/fault/stall", totalTimeout: .seconds(8)))
        #expect(result.error?.kind == .totalTimeout)
        #expect(result.statusCode == 200, "the headers did arrive")
    }

    @Test("broken chunked encoding is invalidResponse")
    func badChunked() async throws {
        let server = try await TestServer.shared()
        #expect(await run(TransferRequest(url: "\(server.baseURL)/fault/bad-chunked")).error?.kind == .invalidResponse)
    }
}
