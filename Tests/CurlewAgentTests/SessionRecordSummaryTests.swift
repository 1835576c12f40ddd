@testable import CurlewAgent
import CurlewTestSupport
import Foundation
import Testing

/// The summary a log index reads from the front of a line must be the summary of the record the
/// full reader decodes, whatever user data the record carries.
@Suite("Session record summary")
struct SessionRecordSummaryTests {
    /// Keys that once corrupted summaries when the index searched records for them.
    private static let trapKeys = ["total", "queued", "error", "response", "statusCode", "size", "method", "url", "summary", "type", "id", "\"", "\\"]
    private static let texts = ["", "plain", "quote \" here", "back\\slash", "line\nbreak", "😀 名前", "\u{7}\u{1B}[2J", "\"total\":5", "{\"error\":{"]

    private func randomText(_ generator: inout SeededGenerator) -> String {
        Self.texts.randomElement(using: &generator)! + (Bool.random(using: &generator) ? Self.trapKeys.randomElement(using: &generator)! : "")
    }

    private func randomMessage(_ generator: inout SeededGenerator) -> DebugMessage {
        var params: [JSONMember] = []
        for _ in 0..<Int.random(in: 0...4, using: &generator) {
            params.append(JSONMember(Self.trapKeys.randomElement(using: &generator)!, Bool.random(using: &generator)
                ? .int(Int64.random(in: -1_000...1_000_000, using: &generator)) : .string(randomText(&generator))))
        }
        let hasResponse = Bool.random(using: &generator)
        let hasTimings = Bool.random(using: &generator)
        let hasError = Bool.random(using: &generator)
        return DebugMessage(
            requestID: UInt64.random(in: 0...UInt64(Int64.max), using: &generator), name: Bool.random(using: &generator) ? randomText(&generator) : nil,
            groupID: nil, step: nil, state: hasError ? .failed : .succeeded, startedAt: Date(timeIntervalSince1970: 1_790_000_000),
            original: Bool.random(using: &generator) ? ComposedRequest(
                method: ["GET", "POST", "M-SEARCH"].randomElement(using: &generator)!, url: "http://h.test/" + randomText(&generator),
                headers: [HeaderField(name: "X-Total", value: randomText(&generator))], params: .object(params),
                body: BodySnapshot(data: Data(randomText(&generator).utf8), contentType: "application/json", limit: 64), timeoutMilliseconds: 1) : nil,
            sent: nil,
            response: hasResponse ? ResponseSnapshot(
                statusCode: Int.random(in: 100...599, using: &generator), statusLine: "HTTP/1.1 200 " + randomText(&generator), httpVersion: "1.1",
                headers: [HeaderField(name: "total", value: "1")],
                body: BodySnapshot(data: Data(randomText(&generator).utf8), contentType: "text/plain", limit: 64)) : nil,
            error: hasError ? RequestError(.connectionReset, randomText(&generator)) : nil,
            timings: hasTimings ? TimingBreakdown(queued: Int64.random(in: 0...1_000_000, using: &generator), dns: nil, connect: nil, tls: nil,
                                                  send: 1, wait: 2, receive: 3, redirect: nil, total: Int64.random(in: 0...1_000_000_000, using: &generator)) : nil,
            connection: nil, callbackQueue: randomText(&generator)
        )
    }

    @Test("summaries read from the line equal those of the fully decoded record, for random records full of trap keys")
    func differential() throws {
        var generator = SeededGenerator(seed: 20_261_123)
        let decoder = SessionLogFormat.makeDecoder()
        for round in 0..<2_000 {
            let message = randomMessage(&generator)
            let line = SessionRecordWriter.messageLine(message, custom: Bool.random(using: &generator) ? ["total": 1] : nil)
            let fast = line.dropLast().withUnsafeBufferPointer { SessionRecordSummary.read($0) }
            let decoded = try decoder.decode(DebugMessage.self, from: Data(line))
            #expect(fast == SessionRecordSummary(decoded), "round \(round)")
            #expect(fast == SessionRecordSummary(message), "round \(round)")
        }
    }

    @Test("a line that does not start with a summary, or is cut inside it, reads as none", arguments: [
        #"{"type":"header"}"#, #"{"type":"message","summary":{"id":1,"status":200,"elapsed":null,"size":null,"failed":false,"method":"GET","url":"u"#,
        #"{"type":"message","summary":{"id":99999999999999999999999,"status":200}"#, #"{"type":"message","summary":{"id":-"#, "",
        #"{"type":"message","summary":{"id":1,"status":200,"elapsed":4611686018427387904,"size":null,"failed":false,"method":"GET","url":"u"},"#,
        #"{"type":"message","summary":{"id":1,"status":200,"elapsed":-1,"size":null,"failed":false,"method":"GET","url":"u"},"#,
    ])
    func noSummary(_ line: String) {
        let bytes = Array(line.utf8)
        #expect(bytes.withUnsafeBufferPointer { SessionRecordSummary.read($0) } == nil)
    }
}
