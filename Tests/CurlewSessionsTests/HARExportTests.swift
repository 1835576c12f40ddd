import CurlewAgent
import CurlewLocking
import CurlewSessions
import CurlewTestSupport
import Foundation
import Testing

@Suite("HAR export and JUnit")
struct HARExportTests {
    @Test("entries have HAR 1.2's required fields; ssl sits inside connect; time is the sum of the phases that happened; secrets stay hidden")
    func harOfRealExchanges() async throws {
        let server = try await TestServer.shared()
        let agent = Agent(config: NetworkConfig(baseURL: server.baseURL))
        let messages = MessageBox()
        let callbacks = { (done: @escaping @Sendable () -> Void) in
            RequestCallbacks(success: { _ in done() }, failure: { _ in done() }, debug: { messages.append($0) })
        }
        for request in [Request(.get, "/get", headers: ["Authorization": "Bearer s3cret"]), Request.url("http://127.0.0.1:1/refused")] {
            await withCheckedContinuation { continuation in _ = agent.start(request, callbacks: callbacks { continuation.resume() }) }
        }
        let har = HARExport.document(messages.all.map(RedactionPolicy().redact))
        let text = har.serialized()
        #expect(!text.contains("s3cret"))
        guard case .array(let entries)? = har["log"]?["entries"] else { Issue.record("no entries"); return }
        #expect(entries.count == 2)
        for entry in entries {
            for field in ["startedDateTime", "time", "request", "response", "cache", "timings"] { #expect(entry[field] != nil, "\(field)") }
            for field in ["method", "url", "httpVersion", "cookies", "headers", "queryString", "headersSize", "bodySize"] { #expect(entry["request"]?[field] != nil, "request.\(field)") }
            for field in ["status", "statusText", "httpVersion", "cookies", "headers", "content", "redirectURL", "headersSize", "bodySize"] { #expect(entry["response"]?[field] != nil, "response.\(field)") }
            let timings = try #require(entry["timings"])
            func ms(_ key: String) -> Double { if case .double(let v)? = timings[key] { v } else if case .int(let v)? = timings[key] { Double(v) } else { -99 } }
            let sum = ["blocked", "dns", "connect", "send", "wait", "receive", "_redirect"].map(ms).filter { $0 >= 0 }.reduce(0, +)
            guard case .double(let time)? = entry["time"] else { Issue.record("time"); continue }
            #expect(abs(time - sum) < 0.01)
            #expect(ms("ssl") == -1, "plain HTTP has no TLS phase")
        }
        #expect(entries[0]["response"]?["status"] == 200)
        #expect(entries[1]["response"]?["status"] == 0)
        #expect(entries[1]["response"]?["_error"]?.stringValue?.isEmpty == false)
    }

    @Test("a redacted body's HAR export reads back whole or cut as it was, with its size on the wire: a long secret made short is not read as a cut body")
    func harKeepsWhetherABodyWasCut() throws {
        func message(_ body: BodySnapshot) -> DebugMessage {
            DebugMessage(requestID: 1, name: nil, state: .succeeded, startedAt: Date(timeIntervalSince1970: 0),
                         original: ComposedRequest(method: "GET", url: "http://h.test/", headers: [], params: .null, body: nil, timeoutMilliseconds: 1), sent: nil,
                         response: ResponseSnapshot(statusCode: 200, statusLine: "HTTP/1.1 200 OK", httpVersion: "1.1", headers: [], body: body),
                         error: nil, timings: nil, connection: nil, callbackQueue: "q")
        }
        let whole = BodySnapshot(data: Data(#"{"token":"\#(String(repeating: "t", count: 80))"}"#.utf8), contentType: "application/json", limit: 1 << 20)
        let cut = BodySnapshot(data: Data(#"{"token":"abc","pad":"\#(String(repeating: "x", count: 100))"}"#.utf8), contentType: "application/json", limit: 19)
        for body in [whole, cut] {
            let redacted = RedactionPolicy().redact(message(body))
            let again = try #require(try HARImport.messages(Data(HARExport.document([redacted]).serialized().utf8)).first?.response?.body)
            #expect(again.isTruncated == body.isTruncated)
            #expect(again.size == body.size)
            #expect(again.data == redacted.response?.body.data)
        }
        // Another tool's HAR, without the field, is read from its sizes.
        let exported = HARExport.document([message(BodySnapshot(kept: Data("abc".utf8), size: 10, contentType: "text/plain"))]).serialized()
        #expect(exported.contains(#""_truncated":true"#))
        let foreign = exported.replacingOccurrences(of: #","_truncated":true"#, with: "").replacingOccurrences(of: #""_truncated":true,"#, with: "")
        #expect(!foreign.contains("_truncated"))
        let read = try #require(try HARImport.messages(Data(foreign.utf8)).first?.response?.body)
        #expect(read.isTruncated && read.size == 10)
    }

    @Test("a log and its HAR export read back as the same exchanges: headers as sent, the HTTP version, redirects' time, and how each ended (found by a new user's trial: an answer failed by a capture read back as a success)")
    func harRoundTrip() async throws {
        let server = try await TestServer.shared()
        let agent = Agent(config: NetworkConfig(baseURL: server.baseURL))
        let messages = MessageBox()
        // The last: an answer the agent's checks fail (a chain's capture finding nothing).
        for path in ["/get", "/redirect/2", "/json"] {
            var request = Request(.get, path)
            if path == "/json" { request.validation.captures = [.json("id", "$.nope")] }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                _ = agent.start(request, callbacks: RequestCallbacks(success: { _ in continuation.resume() }, failure: { _ in continuation.resume() },
                                                                                 debug: { messages.append($0) }))
            }
        }
        let logged = messages.all
        #expect(logged[1].timings?.redirect ?? 0 > 0, "the redirects took time before the last hop")
        let read = try HARImport.messages(Data(HARExport.document(logged).serialized().utf8))
        for (original, again) in zip(logged, read) {
            let diff = ExchangeDiff(original, again)
            #expect(diff.differences.isEmpty, "\(diff.differences)")
            #expect(again.state == original.state && again.error?.kind == original.error?.kind)
            #expect(diff.timingDeltas.allSatisfy { $0.delta.magnitude <= 1 }, "\(diff.timingDeltas)")
        }
    }

    @Test("a request body's mimeType is the Content-Type it went out under: a multipart body's, with its boundary (found by a new user's trial: application/octet-stream)")
    func postDataTypeIsTheHeaders() throws {
        var message = Fixtures.message(method: "POST", requestHeaders: [HeaderField(name: "Content-Type", value: "multipart/form-data; boundary=b")], requestBody: "--b--\r\n")
        message.sent?.body = BodySnapshot(data: Data("--b--\r\n".utf8), contentType: "application/octet-stream", limit: 1 << 20)
        let har = HARExport.document([message]).serialized()
        #expect(har.contains(#""mimeType":"multipart/form-data; boundary=b""#) && !har.contains(#""mimeType":"application/octet-stream""#), "\(har)")
    }

    @Test("a request refused before it had a URL exports to a HAR entry with an empty URL and its error, which reads back")
    func refusedWithoutURLRoundTrip() async throws {
        let agent = Agent(config: NetworkConfig())
        let messages = MessageBox()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            _ = agent.start(Request(.get, ""), callbacks: RequestCallbacks(success: { _ in continuation.resume() }, failure: { _ in continuation.resume() },
                                                                           debug: { messages.append($0) }))
        }
        let logged = messages.all
        #expect(logged.count == 1 && logged.first?.original?.url == "")
        let read = try HARImport.messages(Data(HARExport.document(logged).serialized().utf8))
        #expect(read.count == 1)
        #expect(read.first?.original?.url == "")
        #expect(read.first?.error?.kind == .invalidURL)
        #expect(read.first?.error?.message == logged.first?.error?.message)
        // Never measured, it reads back without timings, not as an exchange of 0 ms (found by a
        // new user's trial: log stats counted it in the percentiles).
        #expect(logged.first?.timings == nil && read.first?.timings == nil)
        #expect(read.first?.state == .failed)
    }

    @Test("a browser's HAR writes \"_error\": null beside every answer: those read back as successes (found by review); times keep their millisecond through any number of reads and writes (found by a new user's trial: each export took one off)")
    func browserErrorsAndTimes() throws {
        let entry = #"{"startedDateTime":"2026-12-03T11:38:02.887Z","time":5,"request":{"method":"GET","url":"http://h/x","headers":[]},"response":{"status":200,"headers":[],"content":{"size":0},"_error":null},"timings":{"send":1,"wait":3,"receive":1}}"#
        let read = try HARImport.messages(Data(#"{"log":{"entries":["#.utf8 + Data(entry.utf8) + Data("]}}".utf8)))
        #expect(read.first?.state == .succeeded && read.first?.error == nil)
        var message = try #require(read.first)
        for _ in 0..<5 {
            let again = HARExport.document([message]).serialized()
            #expect(again.contains("2026-12-03T11:38:02.887Z"), "\(again)")
            message = try #require(try HARImport.messages(Data(again.utf8)).first)
        }
        #expect(Date(timeIntervalSince1970: 1_700_000_000.887).roundedToMilliseconds.milliseconds == 887)
        #expect(Date(timeIntervalSince1970: 1_700_000_000.9996).roundedToMilliseconds.milliseconds == 0)
        #expect(Date(timeIntervalSince1970: 1e300).clockText.hasSuffix(".000"))
    }

    @Test("a minified HAR whose first entry names a type early is a HAR, as is a pretty-printed one; a session log is not (found by a new user's trial: a browser's one-line HAR was refused as not a session log)")
    func minifiedHARIsRecognized() throws {
        let directory = NSTemporaryDirectory() + "curlew-har-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let entry = #"{"_initiator":{"type":"other"},"startedDateTime":"2026-12-03T11:38:02.887Z","time":5,"request":{"method":"GET","url":"http://h/x","headers":[]},"response":{"status":200,"headers":[],"content":{"size":0}},"timings":{"send":1,"wait":3,"receive":1}}"#
        let files = [
            ("minified.har", #"{"log":{"version":"1.2","creator":{"name":"WebInspector","version":"537.36"},"pages":[],"entries":["# + entry + "]}}", true),
            ("spaced.har", "\u{FEFF}  {\n  \"log\" :\n {\"entries\": [" + entry + "]}}", true),
            ("session.jsonl", #"{"type":"header","formatVersion":2,"log":1}"# + "\n", false),
            ("other.json", #"{"type":"log","items":[]}"#, false),
            // A container runtime's log line opens with a `log` string, not a HAR's object (found by review).
            ("container.log", #"{"log":"started\n","stream":"stdout","time":"2026-12-03T11:38:10.6Z"}"# + "\n", false),
        ]
        for (name, text, isHAR) in files {
            let path = directory + "/" + name
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            #expect(ExchangeFile.isHAR(path: path) == isHAR, "\(name)")
            if isHAR { #expect(try ExchangeFile.messages(path: path).count == 1, "\(name)") }
        }
    }

    @Test("a HAR's start times keep every digit of their fraction, so they show as a session log's do: the nearest millisecond (found by a new user's trial: .6316 showed as .631)")
    func harTimesRoundLikeTheLog() throws {
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        for (written, shown) in [("2026-12-03T11:38:10.6316Z", "11:38:10.632"), ("2026-12-03T11:38:13.999999Z", "11:38:14.000"),
                                 ("2026-12-03T13:38:10.5+02:00", "11:38:10.500"), ("2026-12-03T11:38:10Z", "11:38:10.000"),
                                 ("2026-12-03T11:38:10.887Z", "11:38:10.887"),
                                 // A dot anywhere but after the seconds makes no date (the epoch stands in), found by review.
                                 ("2026-12-03T11:38.5:10Z", "00:00:00.000"), ("2026-12-03T11:38:10Z.5", "00:00:00.000")] {
            let entry = #"{"startedDateTime":""# + written + #"","time":5,"request":{"method":"GET","url":"http://h/x","headers":[]},"response":{"status":200,"headers":[],"content":{"size":0}},"timings":{"send":1,"wait":3,"receive":1}}"#
            let read = try HARImport.messages(Data(#"{"log":{"entries":["#.utf8 + Data(entry.utf8) + Data("]}}".utf8)))
            #expect(read.first?.startedAt.clockText(using: utc) == shown, "\(written)")
        }
    }

    @Test("JUnit XML escapes what it quotes and counts failures and errors")
    func junit() {
        let report = JUnitReport(name: "ws", suites: [.init(name: "requests", cases: [
            .init(name: "a<b>", seconds: 0.5, failure: "status: expected 200, got \"500\" & more\u{01}"),
            .init(name: "c", seconds: 0.1, error: "couldNotConnect"),
            .init(name: "d", seconds: 0.1),
        ])])
        let xml = report.xml
        #expect(xml.contains("tests=\"3\" failures=\"1\" errors=\"1\""))
        #expect(xml.contains("name=\"a&lt;b&gt;\""))
        #expect(xml.contains("got &quot;500&quot; &amp; more?"))
        #expect(xml.contains("<testcase name=\"d\" classname=\"requests\" time=\"0.100\"/>"))
    }
}

/// Debug messages gathered from callbacks.
final class MessageBox: Sendable {
    private let messages = Locked<[DebugMessage]>([])
    func append(_ message: DebugMessage) { messages.withLock { $0.append(message) } }
    var all: [DebugMessage] { messages.withLock { $0 } }
}

@Suite("HAR import: names given twice")
struct HARDuplicateNameTests {
    @Test("a member named twice is read as its last, as JavaScript, Python and jq read it (found by a new user's trial: a crafted HAR showed GET /a where other tools show DELETE /b)")
    func lastMemberWins() throws {
        let har = #"{"log":{"entries":[{"startedDateTime":"2026-01-01T00:00:00.000Z","time":1,"request":{"method":"GET","method":"DELETE","url":"http://127.0.0.1:8080/a","url":"http://127.0.0.1:8080/b","httpVersion":"HTTP/1.1","headers":[],"queryString":[],"cookies":[],"headersSize":-1,"bodySize":0},"response":{"status":200,"statusText":"OK","httpVersion":"HTTP/1.1","headers":[],"cookies":[],"content":{"size":0,"mimeType":"text/plain"},"redirectURL":"","headersSize":-1,"bodySize":0},"cache":{},"timings":{"send":0,"wait":1,"receive":0}}]}}"#
        let message = try #require(try HARImport.messages(Data(har.utf8)).first)
        #expect(message.original?.method == "DELETE" && message.original?.url == "http://127.0.0.1:8080/b", "\(String(describing: message.original))")
        let request = try #require(try HARImport.collection(Data(har.utf8)).items.first?.request)
        #expect(request.method.rawValue == "DELETE" && request.customURL == "http://127.0.0.1:8080/b")
    }
}
