import CurlewAgent
import CurlewTestSupport
@testable import CurlewTUI
import Foundation
import Testing

@Suite("View model under load", .serialized)
struct ViewModelLoadTests {
    @Test("100,000 debug messages pushed while keys are handled keep memory bounded; key latency is reported")
    func flood() async throws {
        let model = try TUIFixtures.model()
        model.handle(.character("2"))
        let observer = TUIObserver()
        let total = 100_000
        let template = Fixtures.message(id: 0, responseBody: String(repeating: "x", count: 512), contentType: "text/plain")
        // Bursts of 1,000 with a short pause, so keys arrive while the flood is still coming.
        let producer = Thread {
            for index in 0..<total {
                var message = template
                message.requestID = UInt64(index + 1)
                observer.push(.message(message))
                if index % 1000 == 999 { Thread.sleep(forTimeInterval: 0.002) }
            }
        }
        producer.start()

        var latencies: [Duration] = []
        var keys = 0
        var lastDraw = ContinuousClock.now
        let keyScript: [Key] = [.up, .up, .down, .character("f"), .pageUp, .character("f"), .character("p"), .character("p")]
        // One iteration of the terminal loop per key: the key, the events that piled up, a frame.
        while !producer.isFinished || observer.pendingCount > 0 || keys < 200 {
            let pressed = ContinuousClock.now
            model.handle(keyScript[keys % keyScript.count])
            model.ingest(observer.drain(limit: TerminalApp.maxEventsPerIteration))
            _ = model.render(rows: 50, columns: 160)
            latencies.append(ContinuousClock.now - pressed)
            keys += 1
            if ContinuousClock.now - lastDraw >= .milliseconds(33) { lastDraw = .now }
        }
        model.ingest(observer.drain())

        #expect(model.live.rows.count <= model.live.capacity)
        #expect(model.live.evicted + model.live.rows.count == total)
        #expect(model.live.rows.last?.info.id == UInt64(total))
        latencies.sort()
        let p50 = latencies[latencies.count / 2]
        let p99 = latencies[latencies.count * 99 / 100]
        // Key latency is measured by the benchmark (make bench); here only a bound that a frozen
        // interface would break, with room for a loaded CI machine.
        #expect(p50 < .milliseconds(250), "key+render latency p50 \(p50), p99 \(p99), max \(latencies.last!)")
    }
}
