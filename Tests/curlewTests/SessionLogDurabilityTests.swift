import CurlewAgent
import CurlewSessions
import CurlewTestSupport
import Foundation
import Testing

@Suite("Session log durability")
struct SessionLogDurabilityTests {
    @Test("a process killed with SIGKILL after N completed requests leaves all N entries readable")
    func sigkill() async throws {
        let server = try await TestServer.shared()
        let directory = NSTemporaryDirectory() + "curlew-kill-" + UUID().uuidString
        let path = directory + "/session.jsonl"
        let completed = 25
        let child = try CurlewProcess(["send", "--repeat", "100000", "--log", path, "\(server.baseURL)/get"])
        try await child.waitForOutput(containing: "#\(completed) ")
        child.kill()
        _ = try await child.wait()

        let log = try SessionLogReader.read(path: path)
        #expect(log.header != nil)
        #expect(log.messages.count >= completed)
        #expect(log.skipped.isEmpty, "every write was one complete line: \(log.skipped)")
        #expect(log.messages.prefix(completed).allSatisfy { $0.response?.statusCode == 200 })
    }

    @Test("log show's duration is the elapsed time the interface shows, queued time included")
    func showDuration() async throws {
        let path = NSTemporaryDirectory() + "curlew-show-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let logger = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: path))
        let message = Fixtures.message(elapsedMicros: 7_250)
        logger.requestDidProduce(message)
        try logger.close()
        let shown = try await CurlewProcess.run(["log", "show", path])
        #expect(shown.status == 0)
        #expect(message.timings?.elapsed == 7_250)
        #expect(shown.output.contains(TimingBreakdown.format(7_250)), "\(shown.output)")
    }
}
