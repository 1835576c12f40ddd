@testable import CurlewAgent
import Dispatch
import Foundation
import Synchronization
import Testing

@Suite("Log syncer")
struct LogSyncerTests {
    @Test("requests made while a sync runs never wait for it and share one sync after it", .timeLimit(.minutes(1)))
    func coalescesAndNeverBlocks() throws {
        // Each sync holds until the test lets it go, so nothing here depends on timing.
        let gate = DispatchSemaphore(value: 0)
        let calls = Mutex(0)
        let syncer = LogSyncer(descriptor: -1) { _ in
            calls.withLock { $0 += 1 }
            gate.wait()
        }
        syncer.requestSync()
        let deadline = Date().addingTimeInterval(10)
        while calls.withLock({ $0 }) == 0, Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
        try #require(calls.withLock { $0 } == 1)
        // The first sync is stuck on the gate: asking must not wait for it.
        for _ in 0..<1_000 { syncer.requestSync() }
        #expect(calls.withLock { $0 } == 1)
        for _ in 0..<3 { gate.signal() }
        syncer.finish()
        // The first sync, one shared by the thousand requests made during it, and finish()'s own.
        #expect(calls.withLock { $0 } == 3)
    }

    @Test("finish() syncs only after the syncs asked for before it have run, never beside them", .timeLimit(.minutes(1)))
    func finishWaitsForQueuedSyncs() throws {
        let gate = DispatchSemaphore(value: 0)
        // Syncs running now, the most that ever ran at once, and how many ran.
        let running = Mutex((now: 0, most: 0, total: 0))
        let syncer = LogSyncer(descriptor: -1) { _ in
            running.withLock { $0.now += 1; $0.most = max($0.most, $0.now); $0.total += 1 }
            gate.wait()
            running.withLock { $0.now -= 1 }
        }
        syncer.requestSync()
        let deadline = Date().addingTimeInterval(10)
        while running.withLock({ $0.total }) == 0, Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
        try #require(running.withLock { $0.total } == 1)
        // The first sync is held; this one queues behind it.
        syncer.requestSync()
        let returned = Mutex(false)
        let finisher = Thread {
            syncer.finish()
            returned.withLock { $0 = true }
        }
        finisher.start()
        Thread.sleep(forTimeInterval: 0.1)
        #expect(!returned.withLock { $0 })
        for _ in 0..<3 { gate.signal() }
        while !returned.withLock({ $0 }), Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
        try #require(returned.withLock { $0 })
        let counts = running.withLock { $0 }
        #expect(counts.total == 3, "the queued sync, the held one and finish()'s own")
        // A sync beside a held one would be finish() not waiting: the descriptor closed under it.
        #expect(counts.most == 1)
    }

    @Test("a closed logger's file holds every entry even when every entry asked for a sync")
    func closeAfterManySyncs() throws {
        let path = NSTemporaryDirectory() + "curlew-syncer-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let logger = try NetworkLogger(config: NetworkLoggerConfig(logAutoSaveCount: 1, logFilePath: path))
        for id in 0..<500 {
            logger.requestDidProduce(DebugMessage(requestID: UInt64(id), name: nil, state: .succeeded, startedAt: Date(), original: nil,
                                                  sent: nil, response: nil, error: nil, timings: nil, connection: nil, callbackQueue: "test"))
            logger.observerDidFinishBatch()
        }
        try logger.close()
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 501)
        #expect(lines.last?.contains("\"requestID\":499") == true)
    }
}
