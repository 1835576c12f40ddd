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
            case droppedAtEnd(UInt64, Int)
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
        func request(_ request: RequestInfo, didDropStreamItems count: Int) {
            heard.withLock { $0.append(.droppedAtEnd(request.id, count)) }
        }
    }

    private static func info(_ id: UInt64) -> SharedRequestInfo {
        SharedRequestInfo(RequestInfo(id: id, name: nil, method: "GET", url: "http://127.0.0.1/\(id)", startedAt: Date()))
    }

    /// A hub with one lane, whose thread is inside `willSend` of `info` until `observer.release`
    /// is signalled: everything published meanwhile queues.
    private static func heldLane(inWillSendOf info: SharedRequestInfo) -> (ObserverHub, HeldObserver) {
        let hub = ObserverHub()
        let observer = HeldObserver()
        hub.add(observer)
        hub.publish([.willSend(info)])
        observer.held.wait()
        return (hub, observer)
    }

    @Test("a lane that falls behind drops only the oldest stream items past its bound, says how many before the next, and delivers every other event in order (found by review)")
    func boundedStreamItems() async {
        let (streaming, progressing) = (Self.info(1), Self.info(2))
        let (hub, observer) = Self.heldLane(inWillSendOf: streaming)
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

    @Test("stream items dropped after a request's last delivered item are told with its end, once, and forgotten (no later item counted them, and the lane kept their count for good)")
    func dropsAtTheEnd() async {
        let (early, late) = (Self.info(1), Self.info(2))
        let (hub, observer) = Self.heldLane(inWillSendOf: early)
        // The early stream's items, its end, then enough of the late stream's to push every one
        // of the early items out.
        hub.publish((0..<10).map { .streamed(early, .chunk(Data("e\($0)".utf8), receivedAt: Date())) } + [.finished(early, .succeeded)])
        let lateItems = ObserverLane.maxQueuedStreamItems + 5
        hub.publish((0..<lateItems).map { .streamed(late, .chunk(Data("l\($0)".utf8), receivedAt: Date())) } + [.finished(late, .succeeded)])
        observer.release.signal()
        await hub.drain()

        let events = observer.events
        #expect(!events.contains { if case .streamed(1, _, _) = $0 { true } else { false } }, "every early item was dropped")
        #expect(events.filter { if case .droppedAtEnd = $0 { true } else { false } } == [.droppedAtEnd(1, 10)])
        if let told = events.firstIndex(of: .droppedAtEnd(1, 10)) {
            #expect(events.index(after: told) < events.count && events[events.index(after: told)] == .finished(1))
        }
        // The late stream lost its 5 oldest: its first kept item says so, its end nothing.
        let lateDrops = events.compactMap { event -> Int? in if case .streamed(2, _, let dropped) = event { dropped } else { nil } }
        #expect(lateDrops.count == ObserverLane.maxQueuedStreamItems && lateDrops.first == 5)
        #expect(events.last == .finished(2))
        #expect(hub.backlog(of: observer) == 0)
        // Told once and forgotten: an item that came under the same id later carries none.
        hub.publish([.streamed(early, .chunk(Data("again".utf8), receivedAt: Date()))])
        await hub.drain()
        #expect(observer.events.last == .streamed(1, Data("again".utf8), droppedBefore: 0))
    }
}
