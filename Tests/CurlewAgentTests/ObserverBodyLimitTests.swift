import CurlewAgent
import CurlewLocking
import CurlewTestSupport
import Foundation
import Testing

/// Adds nothing, but could read any of a message.
private final class QuietDelegate: NetworkLoggerDelegate {}

/// Records the debug messages it gets, reading at most `bodyBytesRead` of a body.
private final class PartialReader: NetworkObserver {
    let bodyBytesRead: Int
    private let messages = Locked<[DebugMessage]>([])
    init(reads: Int) { bodyBytesRead = reads }
    var received: [DebugMessage] { messages.withLock { $0 } }
    func requestDidProduce(_ message: DebugMessage) { messages.withLock { $0.append(message) } }
}

@Suite("What debug messages keep of a body", .serialized)
struct ObserverBodyLimitTests {
    @Test("a debug message keeps what its most demanding reader reads: observers' declared needs, a debug callback all of it")
    func keptForReaders() async throws {
        let agent = Agent(config: NetworkConfig(baseURL: try await TestServer.shared().baseURL))
        let partial = PartialReader(reads: 100)
        agent.addObserver(partial)
        func send(debug: Bool = false) async -> DebugMessage? {
            let captured = Locked<DebugMessage?>(nil)
            let keep: @Sendable (DebugMessage) -> Void = { message in captured.withLock { (stored: inout DebugMessage?) in stored = message } }
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                var callbacks = RequestCallbacks()
                callbacks.success = { _ in done.resume() }
                callbacks.failure = { _ in done.resume() }
                if debug { callbacks.debug = keep }
                _ = agent.start(Request(.get, "/bytes/5000"), callbacks: callbacks)
            }
            await agent.waitForObservers()
            return debug ? captured.withLock { $0 } : partial.received.last
        }
        let cut = try #require(await send()?.response?.body)
        #expect(cut.data.count == 100 && cut.size == 5000 && cut.isTruncated)

        let whole = try #require(await send(debug: true)?.response?.body)
        #expect(whole.data.count == 5000, "a debug callback reads the whole body the agent keeps")
        #expect(partial.received.last?.response?.body.data.count == 5000, "the observers get that same message")

        let everything = EventRecorder()
        agent.addObserver(everything)
        #expect(try #require(await send()?.response?.body).data.count == 5000, "an observer that did not say reads it all")
        agent.removeObserver(everything)
        #expect(try #require(await send()?.response?.body).data.count == 100)
    }

    @Test("the file logger reads up to its caps; with a delegate, which may read anything, all of it")
    func loggerNeeds() throws {
        let path = NSTemporaryDirectory() + "curlew-needs-\(UUID().uuidString).jsonl"
        defer { unlink(path) }
        let logger = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: path, maxBodyBytes: 3000, maxBinaryBodyBytes: 700))
        #expect(logger.bodyBytesRead == 3000)
        try logger.close()
        let delegated = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: path, maxBodyBytes: 3000), delegate: QuietDelegate())
        #expect(delegated.bodyBytesRead == .max)
        try delegated.close()
    }
}
