import CurlewAgent
import CurlewTestSupport
import Foundation
import Testing

@Suite("The moment a request went out")
struct SendStampTests {
    @Test("an exchange with a server on the same cores keeps the server's time in its wait, even when the server took the transfer thread's core as the request went out (found by a new user's trial: about one exchange in eight showed the server's time as sending and a wait of a few microseconds)")
    func serverTimeIsWaitNotSend() async throws {
        let agent = Agent(config: NetworkConfig(baseURL: try await TestServer.shared().baseURL))
        let recorder = EventRecorder()
        agent.addObserver(recorder)
        let tag = uniqueTag()
        // One at a time on one reused connection, as a user sends from Compose: the in-process
        // server wakes on each request and often preempts the thread that sent it.
        for index in 0..<120 {
            let handle = agent.start(Request(.get, "/get?\(tag)=\(index)"), callbacks: RequestCallbacks())
            while !handle.state.isTerminal { try await Task.sleep(for: .milliseconds(1)) }
        }
        await agent.waitForObservers()
        let reused = recorder.messages.filter { $0.connection?.reused == true }.compactMap(\.timings)
        #expect(reused.count >= 100)
        // The server's answer takes hundreds of microseconds, writing a short head tens: before
        // the fix 12 to 17 exchanges in 150 showed the inverse, after it none in 450.
        let inverted = reused.filter { $0.send > $0.wait }
        #expect(inverted.count <= 2, "send/wait µs: \(inverted.map { "\($0.send)/\($0.wait)" })")
    }
}
