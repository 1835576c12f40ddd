@testable import CurlewAgent
import CurlewLocking
import Foundation
import Testing

@Suite("Observer lane")
struct ObserverLaneTests {
    /// Records the ids of the messages it hears, in order.
    private final class MessageRecorder: NetworkObserver {
        private let ids = Locked<[UInt64]>([])
        var heard: [UInt64] { ids.withLock { $0 } }
        func requestDidProduce(_ message: DebugMessage) { ids.withLock { $0.append(message.requestID) } }
    }

    private static func event(id: UInt64, responseBytes: Int) -> ObserverEvent {
        let body = BodySnapshot(data: Data(count: responseBytes), contentType: "application/octet-stream", limit: .max)
        return .debugMessage(SharedDebugMessage(DebugMessage(
            requestID: id, name: nil, state: .succeeded, startedAt: Date(), original: nil, sent: nil,
            response: ResponseSnapshot(statusCode: 200, statusLine: "HTTP/1.1 200 OK", httpVersion: "1.1", headers: [], body: body),
            error: nil, timings: nil, connection: nil, callbackQueue: "test")))
    }

    private static func waitUntil(_ condition: () -> Bool, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            if Date() > deadline { return false }
            Thread.sleep(forTimeInterval: 0.002)
        }
        return true
    }

    @Test("events keeping a megabyte of bodies alive are delivered at once, the small ones before them included and in order")
    func largeBodiesDrainAtOnce() {
        let recorder = MessageRecorder()
        // A coalescing time no test waits for: only the prompt drain can deliver in time.
        let lane = ObserverLane(observer: recorder, label: "test.lane", coalescing: .seconds(60))
        lane.enqueue([Self.event(id: 1, responseBytes: 100)])
        lane.enqueue([Self.event(id: 2, responseBytes: 600 << 10)])
        #expect(!Self.waitUntil({ !recorder.heard.isEmpty }, seconds: 0.3), "small bodies were not coalesced")
        lane.enqueue([Self.event(id: 3, responseBytes: 600 << 10)])
        #expect(Self.waitUntil({ recorder.heard.count == 3 }, seconds: 10), "a megabyte of bodies waited for the coalescing time")
        #expect(recorder.heard == [1, 2, 3])
        // The count starts again after a drain: one more large body alone waits.
        lane.enqueue([Self.event(id: 4, responseBytes: 600 << 10)])
        #expect(!Self.waitUntil({ recorder.heard.count == 4 }, seconds: 0.3))
        lane.enqueue([Self.event(id: 5, responseBytes: 1 << 20)])
        #expect(Self.waitUntil({ recorder.heard == [1, 2, 3, 4, 5] }, seconds: 10))
    }
}
