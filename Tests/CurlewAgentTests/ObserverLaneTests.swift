@testable import CurlewAgent
import CurlewLocking
import Dispatch
import Foundation
import Testing

@Suite("An observer's lane")
struct ObserverLaneTests {
    /// Records what it hears, and holds its lane inside the first `willSend` until released.
    private final class HeldObserver: NetworkObserver {
        enum Heard: Equatable {
            case willSend(UInt64)
            case progress(UInt64, Int64)
            case streamed(UInt64, Data, droppedBefore: Int)
            case finished(UInt64)
        }

        let held = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        private let heard = Locked<[Heard]>([])
        var events: [Heard] { heard.withLock { $0 } }

        func requestWillBeSent(_ request: RequestInfo) {
            heard.withLock { $0.append(.willSend(request.id)) }
            held.signal()
            release.wait()
        }
        func request(_ request: RequestInfo, didProgress progress: RequestProgress) {
            heard.withLock { $0.append(.progress(request.id, progress.bytesReceived)) }
        }
        func requestDidStream(_ update: StreamUpdate) {
            guard case .chunk(let data, _) = update.item else { return }
            heard.withLock { $0.append(.streamed(update.request.id, data, droppedBefore: update.droppedBefore)) }
        }
        func requestDidFinish(_ request: RequestInfo, state: RequestState) {
            heard.withLock { $0.append(.finished(request.id)) }
        }
    }

    private static func info(_ id: UInt64) -> SharedRequestInfo {
        SharedRequestInfo(RequestInfo(id: id, name: nil, method: "GET", url: "http://127.0.0.1/\(id)", startedAt: Date()))
    }

    @Test("a lane that falls behind drops only the oldest stream items past its bound, says how many before the next, and delivers every other event in order (found by review)")
    func boundedStreamItems() async {
        let hub = ObserverHub()
        let observer = HeldObserver()
        hub.add(observer)
        let (streaming, progressing) = (Self.info(1), Self.info(2))
        hub.publish([.willSend(streaming)])
        // The lane's thread is inside the first event until released: everything below queues.
        observer.held.wait()
        let sent = ObserverLane.maxQueuedStreamItems + 76
        for index in 0..<sent {
            let progress = RequestProgress(bytesSent: 0, totalBytesToSend: 0, bytesReceived: Int64(index), totalBytesToReceive: 0)
            hub.publish([.streamed(streaming, .chunk(Data("\(index)".utf8), receivedAt: Date())), .progress(progressing, progress)])
        }
        hub.publish([.finished(streaming, .succeeded), .finished(progressing, .succeeded)])
        observer.release.signal()
        await hub.drain()

        let events = observer.events
        #expect(events.first == .willSend(1))
        #expect(events.compactMap { if case .progress(2, let bytes) = $0 { bytes } else { nil } } == (0..<Int64(sent)).map { $0 })
        let streamed = events.compactMap { event -> (Data, Int)? in
            if case .streamed(1, let data, let dropped) = event { (data, dropped) } else { nil }
        }
        #expect(streamed.map(\.0) == (76..<sent).map { Data("\($0)".utf8) }, "the newest items, in order")
        #expect(streamed.first?.1 == 76 && streamed.dropFirst().allSatisfy { $0.1 == 0 }, "the first item kept says how many went before it")
        #expect(Array(events.suffix(2)) == [.finished(1), .finished(2)])
        #expect(hub.backlog(of: observer) == 0)
    }
}
