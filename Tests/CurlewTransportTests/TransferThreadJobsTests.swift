import CurlewTransport
import Dispatch
import Foundation
import CurlewLocking
import CurlewTestSupport
import Testing

@Suite("Closures run on the transfer thread")
struct TransferThreadJobsTests {
    @Test("closures run once each, in the order handed over, across the engine's stop: on the transfer thread before, on the fallback after")
    func orderAcrossStop() async throws {
        let fallback = DispatchQueue(label: "test.fallback")
        let jobs = TransferThreadJobs(fallback: fallback)
        let engine = TransferEngine(jobs: jobs, eventSink: { _, _ in })
        let ran = Locked<[(index: Int, onTransferThread: Bool)]>([])
        let total = 3_000
        let feeder = Thread {
            for index in 0..<total {
                jobs.run({ ran.withLock { $0.append((index, jobs.isTransferThread)) } }, lane: 0)
                // The loop takes the first before anything else happens, so some run there.
                while index == 0, ran.withLock({ $0.isEmpty }) { usleep(1_000) }
                if index == total / 2 { engine.shutdown() }
            }
        }
        feeder.start()
        try await waitUntil(timeout: .seconds(10)) { ran.withLock { $0.count } == total }
        try await Task.sleep(for: .milliseconds(100))
        let record = ran.withLock { $0 }
        #expect(record.map(\.index) == Array(0..<total))
        #expect(record.last?.onTransferThread == false, "after the stop, on the fallback queue")
        #expect(record.first?.onTransferThread == true)
        // Once off the transfer thread, never back on it.
        let firstOff = record.firstIndex { !$0.onTransferThread } ?? total
        #expect(record[firstOff...].allSatisfy { !$0.onTransferThread })
        #expect(!jobs.isTransferThread)
    }

    @Test("with two transfer threads, closures handed over for a thread run on it, in order, whichever thread handed them over")
    func twoThreads() async throws {
        let server = try await TestServer.shared()
        let jobs = TransferThreadJobs(fallback: DispatchQueue(label: "test.fallback"), threads: 2)
        // Each exchange's closure, handed over from the sink of the thread that finished it, for
        // that thread: (sink's thread, closure's thread).
        let ran = Locked<[(sink: UInt, job: UInt)]>([])
        let lanes = Locked<[UInt: Int]>([:])
        let engine = TransferEngine(configuration: TransferEngine.Configuration(transferThreads: 2), jobs: jobs, eventSink: { events, _ in
            let sinkThread = UInt(pthread_self())
            for case .finished(let result) in events {
                let lane = Int(result.id % 2)
                lanes.withLock { $0[sinkThread] = lane }
                jobs.run({ ran.withLock { $0.append((sinkThread, UInt(pthread_self()))) } }, lane: lane)
            }
        })
        for id: UInt64 in 1...12 { engine.submit(TransferRequest(url: "\(server.baseURL)/get"), id: id, lane: Int(id % 2)) }
        // Beside the whole suite on two cores the shared server can take seconds to answer.
        try await waitUntil(timeout: .seconds(30)) { ran.withLock { $0.count } == 12 }
        let seen = ran.withLock { $0 }
        #expect(Set(seen.map(\.sink)).count == 2, "both threads finished exchanges")
        #expect(seen.allSatisfy { $0.sink == $0.job }, "each closure ran on the thread it was handed over for")
        // From elsewhere, in order, for one thread.
        let order = Locked<[(Int, UInt)]>([])
        for index in 0..<50 { jobs.run({ order.withLock { $0.append((index, UInt(pthread_self()))) } }, lane: 1) }
        try await waitUntil { order.withLock { $0.count } == 50 }
        let handled = order.withLock { $0 }
        #expect(handled.map(\.0) == Array(0..<50))
        #expect(Set(handled.map(\.1)).count == 1)
        #expect(lanes.withLock { $0[handled.first?.1 ?? 0] } == 1, "on the second thread")
        engine.shutdown()
    }

    @Test("the transfer thread carries its name whichever thread created the engine, every time")
    func threadName() async throws {
        // Engines created from the global queue's workers, whose name a new thread starts with:
        // one in a few dozen kept it when the thread was named through Foundation.
        let names = Locked<[String]>([])
        let count = 200
        DispatchQueue.concurrentPerform(iterations: count) { _ in
            let jobs = TransferThreadJobs(fallback: DispatchQueue(label: "test.fallback"))
            let engine = TransferEngine(jobs: jobs, eventSink: { _, _ in })
            let named = DispatchSemaphore(value: 0)
            jobs.run({
                names.withLock { $0.append(Self.systemThreadName()) }
                named.signal()
            }, lane: 0)
            named.wait()
            engine.shutdown()
        }
        let seen = names.withLock { $0 }
        #expect(seen.count == count)
        #expect(Set(seen) == ["curlew.transfer"])
    }

    /// The calling thread's name as the system has it.
    private static func systemThreadName() -> String {
        let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
        return comm.trimmingCharacters(in: .newlines)
    }
}
