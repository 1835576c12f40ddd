@testable import CurlewAgent
import CurlewLocking
import CurlewTestSupport
import Foundation
import Testing

/// Adds nothing, but could read any of a message.
private final class QuietDelegate: NetworkLoggerDelegate {}

/// Records the debug messages it gets, reading at most `bodyBytesRead` of a body.
private final class PartialReader: NetworkObserver {
    let bodyBytesRead: BodyReadLimit
    private let messages = Locked<[DebugMessage]>([])
    init(reads: Int) { bodyBytesRead = BodyReadLimit(bytes: reads) }
    init(text: Int, binary: Int) { bodyBytesRead = BodyReadLimit(text: text, binary: binary) }
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
        #expect(logger.bodyBytesRead == BodyReadLimit(text: 3000, binary: 700))
        try logger.close()
        let delegated = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: path, maxBodyBytes: 3000), delegate: QuietDelegate())
        #expect(delegated.bodyBytesRead == .all)
        try delegated.close()
    }

    @Test("a reader's text and binary limits: a binary body is kept as the shorter preview, a text one as the longer")
    func textAndBinaryLimits() async throws {
        let agent = Agent(config: NetworkConfig(baseURL: try await TestServer.shared().baseURL))
        let logLike = PartialReader(text: 3000, binary: 200)
        agent.addObserver(logLike)
        func kept(_ path: String, by reader: PartialReader) async throws -> BodySnapshot {
            _ = try await agent.send(Request(.get, path))
            await agent.waitForObservers()
            return try #require(reader.received.last?.response?.body)
        }
        let binary = try await kept("/bytes/5000", by: logLike)
        #expect(binary.data.count == 200 && binary.size == 5000 && binary.text == nil)
        let text = try await kept("/stream/300", by: logLike)
        #expect(text.size > 3000 && text.data.count == 3000 && text.text != nil)

        // Two readers: each gets at least what it reads.
        let previewer = PartialReader(reads: 1000)
        agent.addObserver(previewer)
        // The first reader judged the body binary on its first 3000 bytes: the message keeps
        // all of them, so it judges the same bytes again (on 1000, it might have found text).
        #expect(try await kept("/bytes/5000", by: previewer).data.count == 3000)
        #expect(try await kept("/stream/300", by: previewer).data.count == 3000)
    }

    @Test("what a limit reads: the session log's text test, a text body cut inside a character still text")
    func bytesRead() {
        let limit = BodyReadLimit(text: 10, binary: 4)
        func read(_ bytes: [UInt8], size: Int? = nil) -> Int {
            bytes.withUnsafeBytes { limit.cut(of: $0, size: Int64(size ?? bytes.count)).count }
        }
        #expect(read(Array("short".utf8)) == 5)
        #expect(read(Array("ab".utf8) + [0xFF, 0xFE]) == 4, "no longer than the binary limit: read whole")
        #expect(read(Array("abc".utf8) + [0xFF, 0xFE]) == 4)
        #expect(read(Array("abcdefghijklmnop".utf8)) == 10)
        #expect(read([0x80] + Array("abcdefghijklmnop".utf8)) == 4)
        // "abcdefghi" then the first byte of "é" (0xC3 0xA9): cut inside the character, still text.
        #expect(read(Array("abcdefghi".utf8) + [0xC3, 0xA9, 0x41]) == 10)
        #expect(read(Array("abcdefghi".utf8) + [0xC3], size: 12) == 10, "a prefix of a longer body, cut inside a character")
        #expect(read(Array("abcdefghi".utf8) + [0xC3]) == 4, "the whole body ending inside a character is not text")
        #expect(BodyReadLimit(text: 2, binary: 8).cut(of: UnsafeRawBufferPointer(start: nil, count: 0), size: 0).count == 0)
        let readers = BodyReaders(limits: [limit, BodyReadLimit(bytes: 8)], readsEverything: false, cap: 6)
        let binary: [UInt8] = [0x80] + Array("abcdefghijklmnop".utf8)
        #expect(binary.withUnsafeBytes { readers.bytesKept(of: $0, size: 17) } == 6, "the most any reader reads, at most the cap")
        #expect(BodyReaders(limits: [], readsEverything: false, cap: 6).mostBytes == 0)
        #expect(BodyReaders(limits: [limit], readsEverything: true, cap: 6).mostBytes == 6)
        #expect(BodyReaders(limits: [BodyReadLimit(text: 3, binary: 9)], readsEverything: false, cap: 100).mostBytes == 3,
                "a reader never reads past its text limit")
    }

    @Test("every reader sees on the kept bytes what it would see on the whole body, whatever other readers are attached")
    func eachReaderSeesWhatItWould() {
        var generator = SystemRandomNumberGenerator()
        let choices = [0, 3, 8, 40, 64, 100, 250, .max]
        for _ in 0..<3000 {
            // Text for a while, then maybe a byte that is not UTF-8, or a character cut by the end.
            let textPart = Int.random(in: 0...300, using: &generator)
            var body = (0..<textPart).map { _ in UInt8.random(in: 0x20...0x7E, using: &generator) }
            switch Int.random(in: 0...3, using: &generator) {
            case 0: body.append(0xFF)
            case 1: body += [0xC3, 0xA9]
            case 2: body.append(0xC3)
            default: break
            }
            body += (0..<Int.random(in: 0...200, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let size = Int64(body.count) + (Bool.random(using: &generator) ? 0 : Int64.random(in: 1...1000, using: &generator))
            let readers = (0..<Int.random(in: 1...3, using: &generator)).map { _ in
                BodyReadLimit(text: choices.randomElement(using: &generator)!, binary: choices.randomElement(using: &generator)!)
            }
            let cap = [50, 200, 1 << 20].randomElement(using: &generator)!
            let kept = body.withUnsafeBytes { BodyReaders(limits: readers, readsEverything: false, cap: cap).bytesKept(of: $0, size: size) }
            #expect(kept <= min(body.count, cap))
            let keptBytes = Array(body.prefix(kept))
            for reader in readers {
                let limit = BodyReadLimit(text: min(reader.text, cap), binary: min(reader.binary, cap))
                let whole = body.withUnsafeBytes { BodySnapshot.keptPart(of: $0, truncated: Int64(body.count) < size, textLimit: limit.text, binaryLimit: limit.binary) }
                let fromKept = keptBytes.withUnsafeBytes { BodySnapshot.keptPart(of: $0, truncated: Int64(keptBytes.count) < size, textLimit: limit.text, binaryLimit: limit.binary) }
                #expect(fromKept == whole, "body \(body.count) bytes of \(size), readers \(readers), cap \(cap), kept \(kept)")
                if fromKept != whole { return }
            }
        }
    }
}
