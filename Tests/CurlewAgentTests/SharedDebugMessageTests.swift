@testable import CurlewAgent
import CurlewLocking
import CurlewTestSupport
import Foundation
import Testing

@Suite("A debug message made by its first reader")
struct SharedDebugMessageTests {
    private static func message(id: UInt64) -> DebugMessage {
        DebugMessage(requestID: id, name: nil, groupID: nil, step: nil, state: .succeeded, startedAt: Date(timeIntervalSince1970: 0),
                     original: nil, sent: nil, response: nil, error: nil, timings: nil, connection: nil, callbackQueue: "test")
    }

    @Test("readers on many threads at once get one message, made once")
    func madeOnce() async {
        let makes = Locked(0)
        let shared = SharedDebugMessage(making: {
            makes.withLock { $0 += 1 }
            return Self.message(id: 7)
        })
        let identities = await withTaskGroup(of: ObjectIdentifier.self) { group in
            for _ in 0..<64 { group.addTask { ObjectIdentifier(shared.made) } }
            return await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
        }
        #expect(identities.count == 1)
        #expect(makes.withLock { $0 } == 1)
        shared.made.lend { #expect($0.requestID == 7) }
    }

    @Test("the observers and the debug callback read the same message of an exchange")
    func observersAndCallbackAgree() async throws {
        let agent = Agent(config: NetworkConfig(baseURL: try await TestServer.shared().baseURL))
        let recorder = EventRecorder()
        agent.addObserver(recorder)
        let fromCallback = Locked<DebugMessage?>(nil)
        let handle = agent.start(Request(.get, "/get?probe=1"), callbacks: RequestCallbacks(debug: { message in fromCallback.withLock { $0 = message } }))
        while !handle.state.isTerminal { try await Task.sleep(for: .milliseconds(5)) }
        await agent.waitForObservers()
        let observed = try #require(recorder.messages.first { $0.requestID == handle.id })
        let called = try #require(fromCallback.withLock { $0 })
        #expect(observed == called)
        #expect(observed.sent?.head.hasPrefix("GET /get?probe=1 HTTP/1.1") == true)
        #expect(observed.response?.statusCode == 200 && observed.timings != nil && observed.connection?.remoteIP == "127.0.0.1")
    }
}
