import CurlewAgent
import CurlewTestSupport
import Foundation
import Testing

/// Every observer event leaves the agent through one publisher, so per-request order holds by
/// construction: announced before anything else, exactly one terminal event, last.
@Suite("Event order through the one publisher")
struct EventOrderTests {
    @Test("requests cancelled right after starting, from many threads, are announced before they finish and end once",
          arguments: [1, 2])
    func cancelRightAfterStart(transferThreads: Int) async throws {
        let server = try await TestServer.shared()
        var config = NetworkConfig(baseURL: server.baseURL)
        config.transferThreads = transferThreads
        let agent = Agent(config: config)
        let recorder = EventRecorder()
        agent.addObserver(recorder)
        let ids = await withTaskGroup(of: [UInt64].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    (0..<100).map { _ in
                        let handle = agent.start(Request(.get, "/get"), callbacks: RequestCallbacks())
                        agent.cancel(handle)
                        return handle.id
                    }
                }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
        await agent.waitForObservers()
        var misordered = 0
        for id in ids {
            let events = recorder.events(for: id)
            let terminal = events.filter { if case .finished = $0 { true } else { false } }
            if events.first != .willSend(id) || terminal.count != 1 || !(events.last.map { if case .finished = $0 { true } else { false } } ?? false) {
                misordered += 1
            }
        }
        #expect(misordered == 0, "\(misordered) of \(ids.count) requests had their events out of order")
    }
}
