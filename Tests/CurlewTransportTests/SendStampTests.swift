@testable import CurlewTransport
import Testing

@Suite("The last byte's moment, from the stamps after libcurl's writes")
struct SendStampTests {
    private static let ready: UInt64 = 1_000_000_000
    private static func µs(_ micros: UInt64) -> UInt64 { ready + micros * 1000 }

    private func started(preemptions: Int = 5) -> SendStamp {
        var stamp = SendStamp()
        stamp.start(at: Self.ready, preemptions: preemptions)
        return stamp
    }

    @Test("a stamp the thread took without losing its core is the last byte's moment; before any, the request being ready is")
    func onTime() {
        var stamp = started()
        #expect(stamp.lastSentAt == Self.ready)
        stamp.seen(at: Self.µs(120)) { 5 }
        #expect(stamp.lastSentAt == Self.µs(120))
    }

    @Test("a stamp taken after the thread lost its core is dropped for the moment before it")
    func lateStampDropped() {
        var stamp = started()
        stamp.seen(at: Self.µs(900)) { 6 }
        #expect(stamp.lastSentAt == Self.ready)
    }

    @Test("a head and a small body written at once are told of in two callbacks in a row: a late head's body is late too (found by a review: the body's stamp was kept, the head's dropped)")
    func bodyOfALateHeadIsLate() {
        var stamp = started()
        stamp.seen(at: Self.µs(900)) { 6 }
        stamp.seen(at: Self.µs(901)) { 6 }
        #expect(stamp.lastSentAt == Self.ready)
    }

    @Test("a later write after a dropped stamp, the core kept, is kept")
    func laterWriteKept() {
        var stamp = started()
        stamp.seen(at: Self.µs(900)) { 6 }
        stamp.seen(at: Self.µs(2_000)) { 6 }
        #expect(stamp.lastSentAt == Self.µs(2_000))
    }

    @Test("an upload's part stamped after a preemption leaves the part before it as the last byte's moment")
    func uploadPartAfterPreemption() {
        var stamp = started()
        stamp.seen(at: Self.µs(300)) { 5 }
        stamp.seen(at: Self.µs(600)) { 5 }
        stamp.seen(at: Self.µs(5_000)) { 7 }
        #expect(stamp.lastSentAt == Self.µs(600))
    }

    @Test("a stamp close after the moment before is kept without reading the thread's count")
    func closeStampNotChecked() {
        var stamp = started()
        var reads = 0
        stamp.seen(at: Self.µs(30)) {
            reads += 1
            return 9
        }
        #expect(stamp.lastSentAt == Self.µs(30) && reads == 0)
    }

    @Test("a request sent again starts over: the first request's late stamp does not count against the second")
    func resentRequestStartsOver() {
        var stamp = started()
        stamp.seen(at: Self.µs(900)) { 6 }
        stamp.start(at: Self.µs(3_000), preemptions: 6)
        stamp.seen(at: Self.µs(3_100)) { 6 }
        #expect(stamp.lastSentAt == Self.µs(3_100))
    }
}
