import CurlewAgent
import CurlewSessions
import Foundation
import Testing

@Suite("log stats and log diff")
struct LogToolsTests {
    static func message(_ id: UInt64, _ method: String, _ url: String, status: Int?, total: Int64, wait: Int64, dns: Int64? = nil,
                        body: String = "", headers: [HeaderField] = []) -> DebugMessage {
        let timings = TimingBreakdown(queued: 10, dns: dns, connect: dns.map { _ in 100 }, tls: nil, send: 5, wait: wait, receive: total - wait - 5,
                                      redirect: nil, total: total)
        let response = status.map {
            ResponseSnapshot(statusCode: $0, statusLine: "HTTP/1.1 \($0) X", httpVersion: "1.1", headers: headers,
                             body: BodySnapshot(kept: Data(body.utf8), size: Int64(body.utf8.count), contentType: "application/json"))
        }
        return DebugMessage(requestID: id, name: nil, state: status == nil ? .failed : .succeeded, startedAt: Date(timeIntervalSince1970: 0),
                            original: ComposedRequest(method: method, url: url, headers: [], params: .null, body: nil, timeoutMilliseconds: 0),
                            sent: nil, response: response, error: status == nil ? RequestError(.couldNotConnect, "refused") : nil,
                            timings: timings, connection: nil, callbackQueue: "test")
    }

    @Test("endpoints fold ids, count errors, and give percentiles per phase and a histogram")
    func stats() {
        var messages: [DebugMessage] = []
        for index in 1...10 {
            messages.append(Self.message(UInt64(index), "GET", "http://h/users/\(index)?x=1", status: index == 10 ? 500 : 200,
                                         total: Int64(index) * 1000, wait: Int64(index) * 500, dns: index == 1 ? 300 : nil))
        }
        messages.append(Self.message(11, "POST", "http://h/users/3fa85f64-5717-4562-b3fc-2c963f66afa6/orders", status: nil, total: 50_000, wait: 1000))
        let stats = LogStats(messages)
        #expect(stats.endpoints.map { "\($0.method) \($0.path)" } == ["GET /users/{id}", "POST /users/{id}/orders"])
        let users = stats.endpoints[0]
        #expect(users.count == 10 && users.errors == 1 && users.errorRate == 0.1)
        let total = users.phases.first { $0.name == "total" }!
        #expect(total.p50 == 5000 && total.p90 == 9000 && total.p99 == 10_000)
        #expect(users.phases.first { $0.name == "dns" }?.p50 == 300)
        #expect(users.phases.first { $0.name == "tls" }?.p50 == nil)
        #expect(stats.endpoints[1].errors == 1)
        #expect(stats.total.count == 11)
        // 1 ms lands in [1, 2), 2–4 ms in [2, 5), 5–9 in [5, 10), 10 in [10, 20), 50 in [50, 100).
        #expect(stats.histogram == [0, 1, 3, 5, 1, 0, 1, 0, 0, 0, 0, 0, 0])

        // A 200 that did not end the exchange (a stream cancelled while it ran) is an error too.
        var cancelled = Self.message(12, "GET", "http://h/events", status: 200, total: 1000, wait: 500)
        cancelled.state = .cancelled
        cancelled.error = RequestError(.cancelled, "stopped by the caller")
        #expect(LogStats([cancelled]).total.errors == 1)
    }

    @Test("an exchange that ended while waiting has no receive phase in stats or diff, as in its waterfall (found by review: receive 0.000 ms)")
    func unansweredHasNoReceivePhase() {
        // No response, and all of the time after sending spent waiting: receive is zero.
        let unanswered = Self.message(1, "GET", "http://h/slow", status: nil, total: 1_005, wait: 1_000)
        let answered = Self.message(2, "GET", "http://h/slow", status: 200, total: 2_005, wait: 1_000)
        #expect(unanswered.timings?.receive == 0 && unanswered.phase(named: "receive") == nil && unanswered.phase(named: "wait") == 1_000)
        #expect(answered.phase(named: "receive") == 1_000)
        let receive = LogStats([unanswered, answered]).total.phases.first { $0.name == "receive" }
        #expect(receive?.p50 == 1_000 && receive?.p99 == 1_000, "the unanswered exchange's zero is not counted")
        let diff = ExchangeDiff(unanswered, answered)
        #expect(diff.rows.first { $0.section == "timing" && $0.field == "receive" }?.left == nil)
        #expect(!diff.timingDeltas.contains { $0.phase == "receive" })
    }

    @Test("an exchange that sent nothing (a refused connection) has no send, wait or receive phase in stats or its waterfall")
    func unsentHasNoExchangePhases() {
        var refused = Self.message(1, "GET", "http://h/down", status: nil, total: 500, wait: 0, dns: 10)
        refused.timings = TimingBreakdown(queued: 0, dns: 10, connect: 490, tls: nil, send: 0, wait: 0, receive: 0, redirect: nil, total: 500)
        #expect(!refused.requestWentOut && refused.phase(named: "connect") == 490)
        #expect(["send", "wait", "receive"].allSatisfy { refused.phase(named: $0) == nil })
        let rows = refused.waterfall(width: 20) ?? []
        #expect(rows.filter { ["send", "wait", "receive"].contains($0.phase) }.allSatisfy { $0.bar == nil && $0.reason == "not sent" }, "\(rows)")
        #expect(rows.first { $0.phase == "connect" }?.bar != nil)
        let wait = LogStats([refused]).total.phases.first { $0.name == "wait" }
        #expect(wait?.p50 == nil)
    }

    @Test("an exchange cancelled while it waited for a connection has no network phase, total included: log stats leaves it out of the totals and the histogram (found by a new user's trial: 0 ms totals)")
    func neverLeftTheQueueHasNoTotal() {
        var waited = Self.message(1, "GET", "http://h/delay/1", status: nil, total: 0, wait: 0)
        waited.state = .cancelled
        waited.error = RequestError(.cancelled, "cancelled")
        waited.timings = TimingBreakdown(queued: 1_005_000, dns: nil, connect: nil, tls: nil, send: 0, wait: 0, receive: 0, redirect: nil, total: 0)
        #expect(!waited.leftTheQueue && waited.phase(named: "total") == nil && waited.phase(named: "queued") == 1_005_000)
        #expect(waited.connectionKind == "no connection", "the waterfall's title and curlew send say it made none")
        let rows = waited.waterfall(width: 20) ?? []
        #expect(rows.filter { $0.phase != "queued" }.allSatisfy { $0.bar == nil && $0.reason == "never left the queue" }, "\(rows)")
        let answered = Self.message(2, "GET", "http://h/delay/1", status: 200, total: 1_005_000, wait: 1_000_000, dns: 10)
        let stats = LogStats([waited, answered])
        #expect(stats.total.phases.first { $0.name == "total" }?.p50 == 1_005_000)
        #expect(stats.histogram.reduce(0, +) == 1, "\(stats.histogram)")
        #expect(stats.total.count == 2 && stats.total.errors == 1)
        // A reused connection's exchange has no dns or connect, and left the queue all the same.
        var reused = answered
        reused.timings?.dns = nil
        reused.timings?.connect = nil
        #expect(reused.leftTheQueue && reused.phase(named: "total") == 1_005_000)
    }

    @Test("an endpoint folds a decimal number like an integer id, not a version or a file name (found by a new user's trial: /delay/0.1 apart from /delay/{id})")
    func endpointsFoldDecimals() {
        for (url, endpoint) in [("http://h/delay/0.1?x=1", "/delay/{id}"), ("http://h/delay/10", "/delay/{id}"), ("http://h/v1.2/users", "/v1.2/users"),
                                ("http://h/x/1.2.3", "/x/1.2.3"), ("http://h/x/1.", "/x/1."), ("http://h/x/.5", "/x/.5"), ("http://h/files/a.b", "/files/a.b")] {
            #expect(LogStats.endpointPath(url) == endpoint, "\(url)")
        }
    }

    @Test("diff compares JSON bodies member by member, headers by name in any case, how each ended, and timings with their change")
    func diff() {
        let a = Self.message(1, "GET", "http://h/a", status: 200, total: 4000, wait: 2000,
                             body: #"{"id":1,"tags":["x","y"],"same":true}"#, headers: [HeaderField(name: "ETag", value: "1"), HeaderField(name: "Date", value: "Mon")])
        let b = Self.message(2, "GET", "http://h/a", status: 404, total: 9000, wait: 7000,
                             body: #"{"id":2,"tags":["x"],"same":true,"new":null}"#, headers: [HeaderField(name: "etag", value: "2"), HeaderField(name: "Date", value: "Tue")])
        let diff = ExchangeDiff(a, b)
        let differing = Dictionary(uniqueKeysWithValues: diff.differences.map { ("\($0.section) \($0.field)", [$0.left, $0.right]) })
        #expect(differing["response status"] == ["200", "404"])
        #expect(differing["response header ETag"] == ["1", "2"])
        #expect(differing["response header Date"] == nil, "Date always changes and is left out")
        #expect(differing["body $.id"] == ["1", "2"])
        #expect(differing["body $.tags[1]"] == ["\"y\"", nil])
        #expect(differing["body $.new"] == [nil, "null"])
        #expect(differing["body $.same"] == nil)
        #expect(differing["request url"] == nil)
        #expect(differing["timing wait"] == ["2.000 ms", "7.000 ms"])
        #expect(diff.timingDeltas.first { $0.phase == "total" }?.delta == 5000)
        // The total is the waterfall's: the time queued in the agent included, as its row above says.
        #expect(differing["timing total"] == ["4.010 ms", "9.010 ms"])
        var queuedLonger = b
        queuedLonger.timings?.queued = 2010
        #expect(ExchangeDiff(a, queuedLonger).timingDeltas.first { $0.phase == "total" }?.delta == 7000)
        #expect(!diff.rows.contains { $0.field == "redirects" }, "no row for redirects neither side followed")
        // One side followed a redirect: its time shows, and its change.
        var redirected = b
        redirected.timings?.redirect = 1500
        let withRedirect = ExchangeDiff(a, redirected)
        #expect(withRedirect.differences.first { $0.field == "redirects" }.map { [$0.left, $0.right] } == [nil, "1.500 ms"])
        #expect(ExchangeDiff(redirected, redirected).timingDeltas.first { $0.phase == "redirects" }?.delta == 0)
        // The same status, one failed by the agent's checks: the outcome differs (found by a new
        // user's trial: diff showed only timings).
        var checked = a
        checked.state = .failed
        checked.error = RequestError(.captureFailed, "capture id: nothing at $.nope in the response")
        #expect(ExchangeDiff(a, checked).differences.first { $0.field == "outcome" }.map { [$0.left, $0.right] } == ["succeeded", "failed (captureFailed)"])
    }

    @Test("diff reads a JSON member named twice as its last, as JavaScript, Python, jq and `JSONValue` read it, in the place of its first")
    func diffReadsDuplicateMembersAsTheirLast() {
        let a = Self.message(1, "GET", "http://h/a", status: 200, total: 4000, wait: 2000, body: #"{"id":1,"x":0,"id":2}"#)
        let same = Self.message(2, "GET", "http://h/a", status: 200, total: 4000, wait: 2000, body: #"{"id":2,"x":0}"#)
        #expect(!ExchangeDiff(a, same).differences.contains { $0.field.hasPrefix("$") }, "\(ExchangeDiff(a, same).differences)")
        let other = Self.message(3, "GET", "http://h/a", status: 200, total: 4000, wait: 2000, body: #"{"x":0,"id":1,"y":[1],"y":[2]}"#)
        let rows = ExchangeDiff(a, other).differences.filter { $0.field.hasPrefix("$") }.map { [$0.field, $0.left, $0.right] }
        #expect(rows == [["$.id", "2", "1"], ["$.y", nil, "[2]"]])
    }

    @Test("diff shows a JSON member whose type changed as one row with both values, not as a member missing on each side")
    func diffTypeChanges() {
        let a = Self.message(1, "GET", "http://h/a", status: 200, total: 1000, wait: 500,
                             body: #"{"args":{"probe":"1"},"json":null,"list":[1,2],"deep":{"x":{"y":1}},"dup":1,"dup":2}"#)
        let b = Self.message(2, "GET", "http://h/a", status: 200, total: 1000, wait: 500,
                             body: #"{"args":{},"json":{"name":"n"},"list":"none","deep":{"x":{"y":2,"z":3}},"dup":1}"#)
        let rows = ExchangeDiff(a, b).rows.filter { $0.section == "body" && $0.field != "size" }
        #expect(rows.map(\.field) == ["$.args", "$.json", "$.list", "$.deep.x.y", "$.deep.x.z", "$.dup"])
        let byField = Dictionary(uniqueKeysWithValues: rows.map { ($0.field, [$0.left, $0.right]) })
        #expect(byField["$.args"] == [#"{"probe":"1"}"#, "{}"])
        #expect(byField["$.json"] == ["null", #"{"name":"n"}"#])
        #expect(byField["$.list"] == ["[1,2]", #""none""#])
        #expect(byField["$.deep.x.z"] == [nil, "3"])
        #expect(byField["$.dup"] == ["2", "1"], "a repeated name compares its last value on each side")
    }

    @Test("diff cuts a large value to valueLimit characters with its size, and two large values that differ only further on still differ")
    func diffLargeValues() {
        let long = String(repeating: "x", count: ExchangeDiff.valueLimit * 2)
        let a = Self.message(1, "GET", "http://h/a", status: 200, total: 1000, wait: 500, body: #"{"blob":["\#(long)a"]}"#)
        let b = Self.message(2, "GET", "http://h/a", status: 200, total: 1000, wait: 500, body: #"{"blob":["\#(long)b"]}"#)
        let rows = ExchangeDiff(a, b).rows.filter { $0.section == "body" && $0.field != "size" }
        #expect(rows.map(\.field) == ["$.blob[0]"])
        let row = rows[0]
        #expect(row.left!.count < ExchangeDiff.valueLimit + 60 && row.left!.contains("(\(long.count + 3) bytes"), "\(row.left!.suffix(60))")
        #expect(row.differs, "values that differ past the cut still differ")
        let c = Self.message(3, "GET", "http://h/a", status: 200, total: 1000, wait: 500, body: #"{"blob":{}}"#)
        #expect(ExchangeDiff(a, c).rows.first { $0.field == "$.blob" }?.right == "{}")
    }

    @Test("diff of bodies under a megabyte name with a hundred thousand elements, and of tens of thousands of header names, stays small and quick (found by review: every element built its path, and each header searched the other side's)")
    func diffHostileSizes() {
        let key = String(repeating: "k", count: 500_000)
        let elements = Array(repeating: "0", count: 100_000).joined(separator: ",")
        let fields = (0..<30_000).map { HeaderField(name: "X-\($0)", value: "v") }
        let a = Self.message(1, "GET", "http://h/a", status: 200, total: 1000, wait: 500, body: #"{"\#(key)":[\#(elements)]}"#, headers: fields)
        let b = Self.message(2, "GET", "http://h/a", status: 200, total: 1000, wait: 500, body: #"{"\#(key)":[\#(elements),1]}"#,
                             headers: fields.reversed())
        let start = ContinuousClock.now
        let rows = ExchangeDiff(a, b).rows
        #expect(ContinuousClock.now - start < .seconds(20))
        let body = rows.filter { $0.section == "body" }
        #expect(body.count == 2002 && body.allSatisfy { $0.field.utf8.count < 100 } && body[1].field.hasPrefix("$.kkk") && body[1].field.contains("…["))
        // Found by a new user's trial: the cut was silent.
        #expect(body.last?.field == "…" && body.last?.left == "compared as far as 2000 rows; the rest is not" && body.last?.differs == true)
        #expect(rows.filter { $0.section == "headers" && $0.differs }.isEmpty)
        // Bodies of one size that differ only past the rows compared: a difference all the same
        // (found by a new user's trial: "0 with differences").
        let late = (0..<3_000).map { #""m\#($0)":0"# }.joined(separator: ",")
        let lateChanged = (0..<3_000).map { #""m\#($0)":\#($0 >= 2_500 ? 1 : 0)"# }.joined(separator: ",")
        let c = Self.message(3, "GET", "http://h/a", status: 200, total: 1000, wait: 500, body: "{\(late)}")
        let d = Self.message(4, "GET", "http://h/a", status: 200, total: 1000, wait: 500, body: "{\(lateChanged)}")
        let lateDiff = ExchangeDiff(c, d)
        #expect(lateDiff.differences.contains { $0.field == "…" && $0.right?.hasSuffix("and the bodies are not the same") == true }, "\(lateDiff.differences)")
        #expect(ExchangeDiff(c, c).differences.isEmpty)
    }

    @Test("diff shows each body's size and how much of it a log kept, so bodies that differ past what was kept, or only in size, differ (found by a new user's trial)")
    func diffBodySizes() {
        var a = Self.message(1, "GET", "http://h/a", status: 200, total: 1000, wait: 500, body: "same start")
        var b = Self.message(2, "GET", "http://h/a", status: 200, total: 1000, wait: 500, body: "same start")
        a.response?.body = BodySnapshot(kept: Data("same start".utf8), size: 5_000, contentType: "text/plain")
        b.response?.body = BodySnapshot(kept: Data("same start".utf8), size: 9_000, contentType: "text/plain")
        let size = ExchangeDiff(a, b).rows.first { $0.section == "body" && $0.field == "size" }
        #expect(size?.left == "5000 bytes, the first 10 kept and compared" && size?.right == "9000 bytes, the first 10 kept and compared" && size?.differs == true,
                "\(String(describing: size))")
    }

    @Test("a device is refused as a log by the reader and the index, instead of being read for ever")
    func devicesAreNotLogs() {
        let read = #expect(throws: SessionLogError.self) { try SessionLogReader.read(path: "/dev/zero") }
        #expect(read?.reason.contains("only regular files are opened") == true)
        #expect(throws: SessionLogError.self) { try SessionLogIndex(path: "/dev/zero") }
        // A regular file the system will not read says why as the system does, not with
        // Foundation's error number (found by a new user's trial: `NSCocoaErrorDomain error 256`).
        for attempt in [{ _ = try SessionLogReader.read(path: "/proc/self/mem") }, { _ = try ExchangeFile.read(path: "/proc/self/mem") },
                        { _ = try SessionLogIndex(path: "/proc/self/mem") }] as [() throws -> Void] {
            let refused = #expect(throws: SessionLogError.self) { try attempt() }
            #expect(refused?.reason == "Input/output error" && refused?.description.contains("NSCocoaErrorDomain") == false, "\(String(describing: refused))")
        }
    }

    @Test("timing deltas saturate: a log's total of Int64.min gives -Int64.max, not a value whose magnitude traps")
    func extremeTimings() {
        let a = Self.message(1, "GET", "http://h/a", status: 200, total: 5, wait: 0)
        var b = a
        b.timings = TimingBreakdown(queued: 0, dns: nil, connect: nil, tls: nil, send: 0, wait: 0, receive: 0, redirect: nil, total: .min + 5)
        let deltas = ExchangeDiff(a, b).timingDeltas
        #expect(deltas.first { $0.phase == "total" }?.delta == -.max)
        #expect(ExchangeDiff(b, a).timingDeltas.first { $0.phase == "total" }?.delta == .max)
        // The total the diff shows adds the time queued; that sum saturates too.
        var c = a
        c.timings = TimingBreakdown(queued: .max, dns: nil, connect: nil, tls: nil, send: 0, wait: 0, receive: 0, redirect: nil, total: .max)
        #expect(ExchangeDiff(a, c).timingDeltas.first { $0.phase == "total" }?.delta == Int64.max - 15)
        c.timings?.queued = .min
        c.timings?.total = .min
        #expect(ExchangeDiff(c, a).timingDeltas.first { $0.phase == "total" }?.delta == .max)
    }
}
