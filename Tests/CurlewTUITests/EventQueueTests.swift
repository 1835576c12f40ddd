import CurlewAgent
@testable import CurlewTUI
import Foundation
import Testing

@Suite("TUI event queue")
struct EventQueueTests {
    private func event(_ id: UInt64) -> UIEvent {
        .finished(RequestInfo(id: id, name: nil, method: "GET", url: "/", startedAt: Date()), .succeeded)
    }

    private func ids(_ events: [UIEvent]) -> [UInt64] {
        events.map { event in
            guard case .finished(let info, _) = event else { return 0 }
            return info.id
        }
    }

    @Test("events come out in order, across chunk boundaries and partial takes")
    func order() {
        var queue = EventQueue()
        let total = EventQueue.chunkSize * 3 + 17
        for id in 1...UInt64(total) { queue.append(event(id)) }
        #expect(queue.count == total)
        let first = queue.takeFirst(1000)
        let second = queue.takeFirst(EventQueue.chunkSize)
        let rest = queue.takeFirst(Int.max)
        #expect(ids(first) == Array(1...1000))
        #expect(ids(second) == Array(1001...UInt64(1000 + EventQueue.chunkSize)))
        #expect(ids(rest) == Array(UInt64(1001 + EventQueue.chunkSize)...UInt64(total)))
        #expect(queue.count == 0 && queue.takeFirst(10).isEmpty)
        queue.append(event(99))
        #expect(ids(queue.takeFirst(5)) == [99])
    }
}

@Suite("TUI observer under a flood of stream items")
struct TUIObserverFloodTests {
    @Test("stream items wait up to the limit; past it they are dropped and counted with the request's next queued item, other events never (found by a new user's trial: a fast event stream took the interface to 1.8 GB)")
    func boundedStreamItems() {
        let observer = TUIObserver(maxQueuedStreamItems: 100)
        let info = RequestInfo(id: 7, name: nil, method: "GET", url: "/sse", startedAt: Date())
        let item = StreamItem.chunk(Data("data: x\n\n".utf8), receivedAt: Date())
        for _ in 0..<1_000 { observer.requestDidStream(StreamUpdate(request: info, item: item, droppedBefore: 0)) }
        observer.request(info, didProgress: RequestProgress(bytesSent: 0, totalBytesToSend: 0, bytesReceived: 1, totalBytesToReceive: 0))
        #expect(observer.pendingCount == 101, "100 stream items and the progress")
        let first = observer.drain()
        #expect(first.count == 101)
        if case .progress = first.last {} else { Issue.record("other events are kept: \(String(describing: first.last))") }
        // The next item queued says how many went before it; the lane's own count is added.
        observer.requestDidStream(StreamUpdate(request: info, item: item, droppedBefore: 5))
        guard case .streamedBytes(_, _, let dropped) = observer.drain().first else {
            Issue.record("no stream item queued after the drain")
            return
        }
        #expect(dropped == 900 + 5)
        // Drops no later item carries are forgotten when the request ends.
        for _ in 0..<150 { observer.requestDidStream(StreamUpdate(request: info, item: item, droppedBefore: 0)) }
        observer.requestDidFinish(info, state: .succeeded)
        _ = observer.drain()
        observer.requestDidStream(StreamUpdate(request: info, item: item, droppedBefore: 0))
        guard case .streamedBytes(_, _, let after) = observer.drain().first else {
            Issue.record("no stream item queued after the finish")
            return
        }
        #expect(after == 0)
    }
}
