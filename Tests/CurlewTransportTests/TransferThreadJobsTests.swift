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
        let engine = TransferEngine(jobs: jobs, eventSink: { _ in })
        let ran = Locked<[(index: Int, onTransferThread: Bool)]>([])
        let total = 3_000
        let feeder = Thread {
            for index in 0..<total {
                jobs.run { ran.withLock { $0.append((index, jobs.isTransferThread)) } }
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

    @Test("with two transfer threads, a closure handed over on one runs on that one, and one from elsewhere on the first")
    func twoThreads() async throws {
        let server = try await TestServer.shared()
        let jobs = TransferThreadJobs(fallback: DispatchQueue(label: "test.fallback"), threads: 2)
        // (thread the sink ran on, thread the closure it handed over ran on)
        let pairs = Locked<[(UInt, UInt)]>([])
        let engine = TransferEngine(configuration: TransferEngine.Configuration(transferThreads: 2), jobs: jobs, eventSink: { events in
            let sinkThread = UInt(pthread_self())
            for case .finished in events {
                jobs.run { pairs.withLock { $0.append((sinkThread, UInt(pthread_self()))) } }
            }
        })
        for id: UInt64 in 1...6 { engine.submit(TransferRequest(url: "\(server.baseURL)/get"), id: id) }
        try await waitUntil { pairs.withLock { $0.count } == 6 }
        let seen = pairs.withLock { $0 }
        #expect(seen.allSatisfy { $0.0 == $0.1 })
        #expect(Set(seen.map(\.0)).count == 2)
        let fromElsewhere = Locked<UInt?>(nil)
        let again = Locked<UInt?>(nil)
        jobs.run {
            fromElsewhere.withLock { $0 = UInt(pthread_self()) }
            // Handed over on the first thread, it stays there.
            jobs.run { again.withLock { $0 = UInt(pthread_self()) } }
        }
        try await waitUntil { again.withLock { $0 } != nil }
        #expect(fromElsewhere.withLock { $0 } == again.withLock { $0 })
        #expect(seen.map(\.0).contains(fromElsewhere.withLock { $0 } ?? 0))
        engine.shutdown()
        #expect(!jobs.isTransferThread)
    }

    @Test("the transfer thread carries its name whichever thread created the engine, every time")
    func threadName() async throws {
        // Engines created from the global queue's workers, whose name a new thread starts with:
        // one in a few dozen kept it when the thread was named through Foundation.
        let names = Locked<[String]>([])
        let count = 200
        DispatchQueue.concurrentPerform(iterations: count) { _ in
            let jobs = TransferThreadJobs(fallback: DispatchQueue(label: "test.fallback"))
            let engine = TransferEngine(jobs: jobs, eventSink: { _ in })
            let named = DispatchSemaphore(value: 0)
            jobs.run {
                names.withLock { $0.append(Self.systemThreadName()) }
                named.signal()
            }
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
