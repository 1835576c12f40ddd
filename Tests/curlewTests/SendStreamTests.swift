import CurlewTestSupport
import Foundation
import Testing

@Suite("curlew send with event streams")
struct SendStreamTests {
    @Test("events print as they arrive, before the response has ended")
    func live() async throws {
        let server = try await TestServer.shared()
        // Events 4 s apart: a test process starved by a loaded machine still looks while the
        // stream is open; the timeout leaves a loaded machine room for the stream's 8 s.
        let child = try CurlewProcess(["send", "--no-body", "--timeout", "60", "\(server.baseURL)/sse?count=2&interval=4"])
        try await child.waitForOutput(containing: "tick  id=1  {\"n\":1,\"of\":2}")
        #expect(child.isRunning, "the first event printed while the stream was still open")
        #expect(try await child.wait() == 0)
        #expect(child.standardOutput.contains("tick  id=2"))
        #expect(child.standardOutput.contains("Stream  2 event(s)"))
    }

    @Test("--reconnect follows a dropping stream to its end with Last-Event-ID")
    func reconnect() async throws {
        let server = try await TestServer.shared()
        let result = try await CurlewProcess.run(["send", "--reconnect", "5", "\(server.baseURL)/sse/drop?count=5&interval=0.02&retry=50&after=2"])
        #expect(result.status == 0)
        for id in 1...5 { #expect(result.output.contains("tick  id=\(id)  "), "event \(id)") }
        #expect(result.output.contains("stream dropped (incompleteResponse); reconnecting in 50 ms with Last-Event-ID 2 (1 of 5)"))
        let withoutReconnect = try await CurlewProcess.run(["send", "\(server.baseURL)/sse/drop?count=5&interval=0.02&after=2"])
        #expect(withoutReconnect.status == 18)
        #expect(try await CurlewProcess.run(["send", "--reconnect", "-1", "\(server.baseURL)/get"]).status == 64)
    }
}
