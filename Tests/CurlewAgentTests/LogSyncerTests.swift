@testable import CurlewAgent
import Dispatch
import Foundation
import Synchronization
import Testing

@Suite("Log syncer")
struct LogSyncerTests {
    /// A sync that takes `delay` and records when each call started and ended.
    private final class SlowSync: Sendable {
        let delay: TimeInterval
        let calls = Mutex<(started: Int, ended: Int)>((0, 0))
        init(delay: TimeInterval) { self.delay = delay }

        func run() {
            calls.withLock { $0.started += 1 }
            Thread.sleep(forTimeInterval: delay)
            calls.withLock { $0.ended += 1 }
        }
    }

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

    @Test("a request made while a sync runs gets a sync that starts after it")
    func requestDuringSyncGetsAnother() throws {
        let slow = SlowSync(delay: 0.1)
        let syncer = LogSyncer(descriptor: -1) { _ in slow.run() }
        syncer.requestSync()
        let deadline = Date().addingTimeInterval(5)
        while slow.calls.withLock({ $0.started }) == 0, Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
        try #require(slow.calls.withLock { $0.started } == 1)
        syncer.requestSync()
        while slow.calls.withLock({ $0.started }) < 2, Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
        #expect(slow.calls.withLock { $0.started } == 2, "the request made during the first sync was dropped")
        syncer.finish()
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
