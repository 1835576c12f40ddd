import CurlewAgent
@testable import CurlewTUI
import Foundation
import Testing

@Suite("TUI event queue")
struct EventQueueTests {
    private func event(_ id: UInt64) -> TimedUIEvent {
        TimedUIEvent(event: .finished(RequestInfo(id: id, name: nil, method: "GET", url: "/", startedAt: Date()), .succeeded), at: .now)
    }

    private func ids(_ events: [TimedUIEvent]) -> [UInt64] {
        events.map { timed in
            guard case .finished(let info, _) = timed.event else { return 0 }
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
