import CurlewTestSupport
import Foundation
import Testing

@Suite("curlew send")
struct SendCommandTests {
    @Test("against `curlew demo-server`, send prints the status line, headers, body and the timing breakdown")
    func againstStandaloneDemoServer() async throws {
        let server = try CurlewProcess(["demo-server", "--port", "0"])
        defer { server.terminate() }
        try await server.waitForOutput(containing: "listening on ")
        let line = try #require(server.standardOutput.split(separator: "\n").first { $0.contains("listening on ") })
        let baseURL = String(line[line.range(of: "http://")!.lowerBound...])

        let result = try await CurlewProcess.run(["send", "GET", "\(baseURL)/get"])
        #expect(result.status == 0)
        #expect(result.output.contains("< HTTP/1.1 200 OK"))
        #expect(result.output.contains("< Content-Type: application/json"))
        #expect(result.output.contains("\"method\" : \"GET\""))
        for phase in ["queued", "dns", "connect", "tls", "send", "wait", "receive", "total"] {
            #expect(result.output.contains("\n  \(phase) "), "phase \(phase)")
        }
        #expect(result.output.contains("|█") || result.output.contains(" █"))
    }

    @Test("-v shows the request as sent; --json sends JSON with its content type")
    func verboseJSON() async throws {
        let server = try await TestServer.shared()
        let result = try await CurlewProcess.run(["send", "-v", "PUT", "\(server.baseURL)/put", "--json", "{\"a\":1}", "-H", "X-Test: yes"])
        #expect(result.status == 0)
        #expect(result.output.contains("> PUT /put HTTP/1.1"))
        #expect(result.output.contains("> X-Test: yes"))
        #expect(result.output.contains("> Content-Type: application/json"))
        #expect(result.output.contains("> {\"a\":1}"))
    }

    @Test("exit status: 22 for an error status, curl's codes for network failures, 3 for a bad URL, 2 for a bad header", arguments: [
        (["/status/404"], Int32(22), "unacceptableStatus"),
        (["/delay/5", "--timeout", "0.3"], Int32(28), "totalTimeout"),
        (["/get", "-H", "X-Bad: a\r\nInjected: 1"], Int32(2), "invalidHeader"),
    ])
    func exitStatuses(_ arguments: [String], _ expected: Int32, _ kind: String) async throws {
        let server = try await TestServer.shared()
        let result = try await CurlewProcess.run(["send", server.baseURL + arguments[0]] + arguments.dropFirst())
        #expect(result.status == expected)
        #expect(result.error.contains(kind))
    }

    @Test("a refused connection exits 7 and an invalid URL exits 3, each with a message on stderr")
    func connectionAndURLFailures() async throws {
        let port = try Listeners.closedPort()
        let refused = try await CurlewProcess.run(["send", "http://127.0.0.1:\(port)/"])
        #expect(refused.status == 7)
        #expect(refused.error.contains("couldNotConnect"))
        let invalid = try await CurlewProcess.run(["send", "http://exa mple/"])
        #expect(invalid.status == 3)
        #expect(invalid.error.contains("invalidURL"))
    }

    @Test("a usage mistake is refused before anything is sent")
    func usage() async throws {
        let result = try await CurlewProcess.run(["send", "GET", "http://127.0.0.1:1/", "-H", "no colon"])
        #expect(result.status != 0)
        #expect(result.error.contains("Name: value"))
    }
}
