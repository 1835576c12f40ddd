import CurlewAgent
@testable import CurlewDemoServer
import CurlewLocking
import CurlewTestSupport
import Foundation
import Testing

@Suite("Demo server endpoints")
struct DemoServerTests {
    private func send(_ request: Request) async throws -> Response {
        var request = request
        request.acceptableStatusCodes = 100..<600
        return try await Agent(config: NetworkConfig(baseURL: try await TestServer.shared().baseURL, followRedirects: false)).send(request)
    }

    @Test("the echo's origin is the client's address over HTTP/1.1 and over HTTP/2 (was empty over HTTP/1.1: the address was read from the listening socket; found by a new user's trial)",
          arguments: [HTTPVersionPreference.http1_1, .http2PriorKnowledge])
    func origin(_ version: HTTPVersionPreference) async throws {
        var request = Request(.get, "/anything")
        request.httpVersion = version
        #expect(try await send(request).json()["origin"]?.stringValue == "127.0.0.1")
    }

    @Test("a query name repeated by the thousand is echoed as one list of its values, in order; a name given once as its value (found by review: the list was copied at each repeat)")
    func repeatedQueryNames() async throws {
        let query = (0..<8_000).map { "a=\($0)" }.joined(separator: "&")
        let args = try await send(Request(.get, "/get?one=1&" + query)).json()["args"]
        #expect(args?["one"]?.stringValue == "1" && args?["a"] == .array((0..<8_000).map { .string("\($0)") }))
    }

    @Test("the recorder keeps the newest requests within its count and its bodies' byte budget, at least the newest whatever its size (found by review: 10,000 bodies of any size were kept)")
    func recorderBudget() {
        let recorder = RequestRecorder(capacity: 3, bodyBudget: 250)
        func request(_ number: Int, bytes: Int) -> ReceivedRequest {
            ReceivedRequest(method: "POST", uri: "/\(number)", headers: [], body: Array(repeating: 0, count: bytes), receivedAt: Date())
        }
        for number in 0..<5 { recorder.record(request(number, bytes: 100)) }
        #expect(recorder.all.map(\.uri) == ["/3", "/4"])
        for number in 5..<9 { recorder.record(request(number, bytes: 10)) }
        #expect(recorder.all.map(\.uri) == ["/6", "/7", "/8"])
        recorder.record(request(9, bytes: 1_000))
        #expect(recorder.all.map(\.uri) == ["/9"])
    }

    @Test("hostile numbers and form bodies get an answer, never a crash", arguments: [
        "/drip?numbytes=-1", "/drip?duration=inf", "/drip?delay=nan", "/drip?code=99999999999999999999",
        "/delay/inf", "/bytes/-5", "/stream/99999999999", "/redirect-to?url=/get&delay=-1",
    ])
    func hostileNumbers(_ path: String) async throws {
        #expect(try await send(Request(.get, path)).statusCode == 400)
    }

    @Test("random Range headers and numbers get a fitting status, never a crash or a wrong length")
    func randomRangesAndNumbers() async throws {
        var generator = SeededGenerator(seed: 0x5EED_D3E0)
        func text(_ letters: String, upTo length: Int) -> String {
            String((0..<Int.random(in: 0...length, using: &generator)).map { _ in letters.randomElement(using: &generator)! })
        }
        for _ in 0..<150 {
            let range = "bytes=" + text("0123456789-+, x\t9", upTo: 30)
            let response = try await send(Request(.get, "/range/100", headers: ["Range": range]))
            #expect([200, 206, 416].contains(response.statusCode), "\(range)")
            if response.statusCode == 206 {
                let shown = try #require(response.headers["Content-Range"], "\(range)")
                let bounds = shown.dropFirst("bytes ".count).prefix { $0 != "/" }.split(separator: "-").compactMap { Int($0) }
                #expect(bounds.count == 2 && response.body.count == bounds[1] - bounds[0] + 1, "\(range): \(shown)")
            }
            let number = text("0123456789.-xe+aInf", upTo: 8)
            let drip = try await send(Request(.get, "/drip?duration=0&numbytes=\(number.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"))
            #expect(drip.statusCode == 200 || drip.statusCode == 400, "\(number)")
            if drip.statusCode == 200 {
                // Taken only as decimal digits, with a point at most (`0x10`, `1e1`, `+5` were read).
                #expect(number.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") }, "\(number)")
                #expect(drip.body.count == Int(Double(number) ?? -1), "\(number)")
            }
        }
    }

    @Test("a form body of only = or & is read, not a crash (the server shares the interface's process)",
          arguments: ["=", "&", "=&=", "a=&=b", "%zz=%"])
    func hostileForms(_ body: String) async throws {
        let response = try await send(Request(.post, "/post", requestSerializer: .raw(Data(body.utf8), contentType: "application/x-www-form-urlencoded")))
        #expect(response.statusCode == 200)
    }

    @Test("a binary body is echoed as a data URL, without repairing it as text (which stalled the event loop)")
    func binaryEcho() async throws {
        let body = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let response = try await send(Request(.post, "/post", requestSerializer: .raw(body, contentType: "application/octet-stream")))
        let data = try #require(try response.json()["data"]?.stringValue)
        #expect(data.hasPrefix("data:application/octet-stream;base64,"))
        #expect(Data(base64Encoded: String(data.dropFirst("data:application/octet-stream;base64,".count))) == body)
    }

    @Test("broken multipart bodies get a formError, never a crash", arguments: [
        "", "--b", "--b\r\n", "--b\r\nContent-Disposition: form-data\r\n\r\nx\r\n--b--", "--b\r\nno colon\r\n\r\nx\r\n--b--",
        "--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nnever closed",
    ])
    func hostileMultipart(_ body: String) async throws {
        let response = try await send(Request(.post, "/post", requestSerializer: .raw(Data(body.utf8), contentType: "multipart/form-data; boundary=b")))
        #expect(response.statusCode == 200)
        #expect(try response.json()["formError"] != nil)
    }

    @Test("multipart parts: fields, files with their digests, a boundary that is quoted")
    func multipart() async throws {
        let body = "--\"q b\"\r\nContent-Disposition: form-data; name=\"t\"\r\n\r\nv\r\n--\"q b\"--\r\n"
            .replacingOccurrences(of: "\"q b\"", with: "q b")
        let response = try await send(Request(.post, "/post", requestSerializer: .raw(Data(body.utf8), contentType: "multipart/form-data; boundary=\"q b\"")))
        #expect(try response.json()["form"]?["t"] == .string("v"))
    }

    @Test("hostile /range, /cookies and /upload requests are refused with a reason", arguments: [
        "/range/10?abort=1&reset=2", "/range/10?v=-1", "/range/99999999999", "/range/10?duration=nan", "/cookies/set?a=b%3Bc",
        "/cookies/set", "/cookies/nothing",
    ])
    func hostileNewEndpoints(_ path: String) async throws {
        let status = try await send(Request(.get, path)).statusCode
        #expect(status == 400 || status == 404)
    }

    @Test("/range honours Range, suffix ranges, If-Range and unsatisfiable ranges")
    func ranges() async throws {
        let full = try await send(Request(.get, "/range/100"))
        #expect(full.statusCode == 200)
        #expect(full.body == Data(DeterministicBytes.alphabet(count: 100)))
        let etag = try #require(full.headers["ETag"])

        let middle = try await send(Request(.get, "/range/100", headers: ["Range": "bytes=10-19"]))
        #expect(middle.statusCode == 206)
        #expect(middle.headers["Content-Range"] == "bytes 10-19/100")
        #expect(middle.body == full.body.subdata(in: 10..<20))

        let suffix = try await send(Request(.get, "/range/100", headers: ["Range": "bytes=-5"]))
        #expect(suffix.body == full.body.suffix(5))
        let open = try await send(Request(.get, "/range/100", headers: ["Range": "bytes=95-", "If-Range": etag]))
        #expect(open.statusCode == 206 && open.body.count == 5)
        let stale = try await send(Request(.get, "/range/100", headers: ["Range": "bytes=95-", "If-Range": "\"other\""]))
        #expect(stale.statusCode == 200 && stale.body.count == 100)
        let beyond = try await send(Request(.get, "/range/100", headers: ["Range": "bytes=200-300"]))
        #expect(beyond.statusCode == 416)
        #expect(beyond.headers["Content-Range"] == "bytes */100")
    }

    @Test("/range answers a Range it does not serve with the whole body, as RFC 9110 asks: another unit, several ranges, a method other than GET (each was 416); the unit in any case",
          arguments: [("GET", "items=0-5", 200, nil), ("GET", "bytes=0-1,3-4", 200, nil), ("GET", "bytes=0-1,30-40", 200, nil),
                      ("POST", "bytes=30-", 200, nil), ("GET", "BYTES=1-5", 206, "bytes 1-5/26"), ("GET", " bytes = 1-5", 206, "bytes 1-5/26"),
                      ("GET", "bytes=30-", 416, "bytes */26"), ("GET", "bytes=", 416, "bytes */26"), ("GET", "bytes=x", 416, "bytes */26")])
    func rangesServedOrNot(_ method: String, _ range: String, status: Int, contentRange: String?) async throws {
        let response = try await send(Request(HTTPMethod(rawValue: method), "/range/26", headers: ["Range": range]))
        #expect(response.statusCode == status, "\(range)")
        #expect(response.headers["Content-Range"] == contentRange, "\(range)")
        if status == 200 { #expect(response.body == Data(DeterministicBytes.alphabet(count: 26)), "\(range)") }
    }

    @Test("/range reads an end or a suffix past the largest integer as the body's end (was 416), and refuses signs and spaces",
          arguments: [("bytes=90-99999999999999999999999", 206, "bytes 90-99/100"), ("bytes=-99999999999999999999999", 206, "bytes 0-99/100"),
                      ("bytes=99999999999999999999999-", 416, "bytes */100"), ("bytes=+5-10", 416, "bytes */100"), ("bytes=5- 10", 416, "bytes */100")])
    func hugeRanges(_ range: String, status: Int, contentRange: String) async throws {
        let response = try await send(Request(.get, "/range/100", headers: ["Range": range]))
        #expect(response.statusCode == status)
        #expect(response.headers["Content-Range"] == contentRange)
    }

    @Test("/etag answers 304 for a matching If-None-Match and 412 for a failed If-Match")
    func etags() async throws {
        let fresh = try await send(Request(.get, "/etag/v1"))
        #expect(fresh.statusCode == 200)
        #expect(fresh.headers["ETag"] == "\"v1\"")
        #expect(try await send(Request(.get, "/etag/v1", headers: ["If-None-Match": "\"v1\""])).statusCode == 304)
        #expect(try await send(Request(.get, "/etag/v1", headers: ["If-None-Match": "\"v0\""])).statusCode == 200)
        #expect(try await send(Request(.get, "/etag/v1", headers: ["If-Match": "\"v0\""])).statusCode == 412)
    }

    @Test("/basic-auth and /bearer check credentials")
    func authentication() async throws {
        let good = "Basic " + Data("ada:pw".utf8).base64EncodedString()
        #expect(try await send(Request(.get, "/basic-auth/ada/pw", headers: ["Authorization": good])).statusCode == 200)
        // The scheme's name in any case (found by a new user's trial: `basic` was refused).
        let lower = "basic " + Data("ada:pw".utf8).base64EncodedString()
        #expect(try await send(Request(.get, "/basic-auth/ada/pw", headers: ["Authorization": lower])).statusCode == 200)
        let wrong = "Basic " + Data("ada:px".utf8).base64EncodedString()
        #expect(try await send(Request(.get, "/basic-auth/ada/pw", headers: ["Authorization": wrong])).statusCode == 401)
        let denied = try await send(Request(.get, "/basic-auth/ada/pw"))
        #expect(denied.statusCode == 401)
        #expect(denied.headers["WWW-Authenticate"]?.hasPrefix("Basic") == true)
        #expect(try await send(Request(.get, "/bearer", headers: ["Authorization": "Bearer abc"])).statusCode == 200)
        #expect(try await send(Request(.get, "/bearer")).statusCode == 401)
    }

    @Test("/login issues a token that /me accepts")
    func loginFlow() async throws {
        let login = try await send(Request(.post, "/login", params: ["username": "ada", "password": "pw"], requestSerializer: .json))
        let token = try #require(try login.json()["token"]?.stringValue)
        let me = try await send(Request(.get, "/me", headers: ["Authorization": "Bearer \(token)"]))
        #expect(me.statusCode == 200)
        #expect(try me.json()["user"] == .string("ada"))
        #expect(try await send(Request(.get, "/me", headers: ["Authorization": "Bearer forged"])).statusCode == 401)
        #expect(try await send(Request(.post, "/login", params: ["username": "ada"], requestSerializer: .json)).statusCode == 401)
    }

    @Test("/redirect/n points one hop closer to /get")
    func redirects() async throws {
        let response = try await send(Request(.get, "/redirect/3"))
        #expect(response.statusCode == 302)
        #expect(response.headers["Location"] == "/redirect/2")
        #expect(try await send(Request(.get, "/redirect/1")).headers["Location"] == "/get")
    }

    @Test("any stretch of the random bytes, from any offset, is that stretch of the whole sequence; seed 0 is as random as another")
    func randomStretches() {
        for seed: UInt64 in [0, 1, 42, .max] {
            let whole = DeterministicBytes.random(count: 300, seed: seed)
            for (start, count) in [(0, 300), (1, 7), (3, 20), (7, 1), (8, 8), (13, 200), (299, 1), (150, 0)] {
                #expect(DeterministicBytes.random(seed: seed, from: start, count: count) == Array(whole[start..<(start + count)]), "seed \(seed) from \(start)")
            }
            // Not a run of zeros (seed 0 began with eight).
            #expect(Set(whole.prefix(16)).count > 8, "seed \(seed)")
        }
    }

    @Test("/stream/n sends n JSON lines in chunks; /bytes/n is reproducible by seed")
    func generatedBodies() async throws {
        let stream = try await send(Request(.get, "/stream/5"))
        #expect(stream.headers["Transfer-Encoding"] == "chunked")
        #expect(stream.text?.split(separator: "\n").count == 5)
        let bytes = try await send(Request(.get, "/bytes/64?seed=7"))
        #expect(bytes.body == Data(DeterministicBytes.random(count: 64, seed: 7)))
    }

    @Test("/drip spreads its body over the requested duration")
    func drip() async throws {
        let started = ContinuousClock.now
        let response = try await send(Request(.get, "/drip?numbytes=20&duration=0.5"))
        #expect(response.body == Data(repeating: UInt8(ascii: "*"), count: 20))
        #expect(ContinuousClock.now - started >= .milliseconds(400))
    }

    @Test("method-specific endpoints refuse other methods; unknown paths are 404; bad arguments are 400")
    func refusals() async throws {
        let wrong = try await send(Request(.post, "/get"))
        #expect(wrong.statusCode == 405)
        #expect(wrong.headers["Allow"] == "GET, HEAD")
        #expect(try await send(Request(.get, "/nope")).statusCode == 404)
        #expect(try await send(Request(.get, "/status/abc")).statusCode == 400)
        #expect(try await send(Request(.get, "/bytes/-1")).statusCode == 400)
        #expect(try await send(Request(.get, "/delay/x")).statusCode == 400)
    }

    @Test("numbers are read in decimal only, and a delay past 60 s is refused (hexadecimal and exponents were read, and /delay/90 waited 60 s)",
          arguments: ["/delay/61", "/delay/60.0000000000000000001", "/redirect-to?url=/get&delay=10.00000000000000001", "/drip?numbytes=5.0000000000000000001", "/drip?code=199.99999999999999999", "/drip?code=404.0", "/drip?numbytes=2.0", "/sse?count=1.0", "/delay/0x1", "/delay/1e1", "/drip?numbytes=0x10", "/drip?duration=1e0", "/drip?delay=-1",
                      "/sse?interval=0x1", "/range/10?duration=0x1p1", "/range/10?abort=--1", "/bytes/+5", "/stream/%203", "/status/+200",
                      "/bytes/5?seed=-1", "/bytes/5?seed=abc", "/bytes/5?seed=+1", "/bytes/5?seed=", "/bytes/5?seed=99999999999999999999999",
                      "/delay/0?status=+404", "/delay/0?status=abc", "/delay/0?status=404.0", "/delay/0?status="])
    func decimalNumbersOnly(_ path: String) async throws {
        #expect(try await send(Request(.get, path)).statusCode == 400)
    }

    @Test("a delay's status in digits answers with it, or with 200 when it is out of range (a sign or a fraction was read as a status), and a 204 or 304 with no body")
    func delayStatus() async throws {
        #expect(try await send(Request(.get, "/delay/0?status=404")).statusCode == 404)
        #expect(try await send(Request(.get, "/delay/0?status=700")).statusCode == 200)
        #expect(try await send(Request(.get, "/delay/0?status=99999999999999999999")).statusCode == 200)
        #expect(try await send(Request(.get, "/delay/0")).statusCode == 200)
        // A 204 or 304 carries no body (an echo was sent with them).
        for code in [204, 304] {
            let response = try await send(Request(.get, "/delay/0?status=\(code)"))
            #expect(response.statusCode == code && response.body.isEmpty)
        }
    }

    @Test("a fraction too fine for a double is not read as the whole number it rounds to: zeros after the point are, any other digit is not")
    func decimalFractions() {
        #expect(DemoRequest.decimal("60", in: 0...60) == 60)
        #expect(DemoRequest.decimal("60.000", in: 0...60) == 60)
        #expect(DemoRequest.decimal("060.", in: 0...60) == 60)
        #expect(DemoRequest.decimal("59.5", in: 0...60) == 59.5)
        #expect(DemoRequest.decimal("60.0000000000000000001", in: 0...60) == nil)
        #expect(DemoRequest.decimal("59.99999999999999999999", in: 0...60) == nil)
        #expect(DemoRequest.decimal("199.99999999999999999", in: 200...599) == nil)
        #expect(DemoRequest.decimal("0.5", in: 0...0.5) == 0.5)
    }

    @Test("/status/{code} answers with that code", arguments: [200, 201, 204, 301, 404, 418, 500, 503])
    func status(_ code: Int) async throws {
        #expect(try await send(Request(.get, "/status/\(code)")).statusCode == code)
    }

    @Test("the server records what it received and binds only loopback by default")
    func recording() async throws {
        let server = try await TestServer.shared()
        #expect(server.host == "127.0.0.1")
        let tag = uniqueTag()
        _ = try await send(Request(.post, "/anything/\(tag)", headers: ["X-Tag": tag]))
        let received = try #require(server.receivedRequests.last { $0.uri.contains(tag) })
        #expect(received.method == "POST")
        #expect(received.header("x-tag") == tag)
    }

    @Test("binding a port already in use fails with an error")
    func portInUse() async throws {
        let server = try await TestServer.shared()
        await #expect(throws: (any Error).self) { try await DemoServer.start(port: server.port) }
    }

    @Test("/sse reads a hostile Last-Event-ID without trapping or looping: past the end sends nothing, below it starts over",
          arguments: [("9223372036854775807", false), ("99", false), ("99999999999999999999999", false), ("-9000000000000000000", true), ("x", true)])
    func hostileLastEventID(_ id: String, startsOver: Bool) async throws {
        let response = try await send(Request(.get, "/sse?count=2&interval=0", headers: ["Last-Event-ID": id]))
        #expect(response.statusCode == 200)
        #expect(String(decoding: response.body, as: UTF8.self).contains("id: 1\n") == startsOver)
        #expect(String(decoding: response.body, as: UTF8.self).contains("id: 3") == false)
    }
}

/// A TCP connection to `port` on 127.0.0.1, as a descriptor the caller closes.
private func loopbackConnection(port: Int) throws -> Int32 {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else {
        close(descriptor)
        throw POSIXError(.ECONNREFUSED)
    }
    return descriptor
}

/// Reads a response from a raw connection as fast as the socket gives it, counting its bytes,
/// until told to stop or the server closes: a client faster than the server's loop writes.
private final class RawDownload: @unchecked Sendable {
    private let descriptor: Int32
    private let state = Locked((received: 0, stopping: false))

    init(port: Int, path: String) throws {
        descriptor = try loopbackConnection(port: port)
        let head = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        _ = head.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, 0) }
        let thread = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            while !state.withLock({ $0.stopping }) {
                let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { break }
                state.withLock { $0.received += count }
            }
        }
        thread.start()
    }

    /// Closed only once nothing reads it (the reading thread holds this object), so its number
    /// cannot be reused under a read or a shutdown.
    deinit {
        close(descriptor)
    }

    var received: Int { state.withLock { $0.received } }

    /// Stops reading and shuts the connection (the server's next write fails, ending its body).
    func stop() {
        let first = state.withLock { state in
            defer { state.stopping = true }
            return !state.stopping
        }
        if first { shutdown(descriptor, Int32(SHUT_RDWR)) }
    }
}

@Suite("Demo server fairness")
struct DemoServerFairnessTests {
    @Test("a download read as fast as it is sent leaves its event loop to the other connections: a request on the same loop is answered while the download runs (a 4 GiB body overflowed the stack and ended the process)")
    func downloadSharesItsLoop() async throws {
        let server = try await DemoServer.start(ownThread: true)
        let download = try RawDownload(port: server.port, path: "/range/\(8 << 30)")
        defer { download.stop() }
        try await waitUntil(timeout: .seconds(20)) { download.received > 1 << 20 }
        // How far the download got when the answer came, read where the answer is delivered (on
        // the transfer thread), not when this test's task next runs, which a loaded machine
        // delays by seconds.
        var config = NetworkConfig(baseURL: server.baseURL, requestTimeout: .seconds(60))
        config.callbackDelivery = .transferThread
        let answered = Locked<(status: Int, downloaded: Int)?>(nil)
        let agent = Agent(config: config)
        _ = agent.start(Request(.get, "/get")) { result in
            let downloaded = download.received
            answered.withLock { $0 = ((try? result.get().statusCode) ?? 0, downloaded) }
        }
        try await waitUntil(timeout: .seconds(90)) { answered.withLock { $0 } != nil }
        withExtendedLifetime(agent) {}
        let outcome = try #require(answered.withLock { $0 })
        // Held by the download, the loop would have answered only once the whole body was
        // written, and the download would then stop growing within the socket buffers (a few
        // MiB). Answered meanwhile, the download goes on.
        try await waitUntil(timeout: .seconds(10)) { download.received - outcome.downloaded > 16 << 20 }
        download.stop()
        try await server.stop()
        #expect(outcome.status == 200)
    }

    /// Sends `requests` on one connection (then closes its sending side with `halfClose`), and
    /// reads until the server closes it or `heads` heads arrived; what came back, as text. The
    /// blocking reads run on a thread of their own, not on one the test tasks share.
    private func pipelined(_ requests: String, port: Int, heads: Int, halfClose: Bool = false) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try Self.exchange(requests, port: port, heads: heads, halfClose: halfClose) })
            }
        }
    }

    private static func exchange(_ requests: String, port: Int, heads: Int, halfClose: Bool) throws -> String {
        let descriptor = try loopbackConnection(port: port)
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let bytes = Array(requests.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, 0) }
        if halfClose { shutdown(descriptor, Int32(SHUT_WR)) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        // Blank lines seen so far, counted in what each read added (and the three bytes before it).
        var blankLines = 0
        let blank: [UInt8] = [13, 10, 13, 10]
        while blankLines < heads {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            // A read that timed out is a server that neither answered nor closed.
            if count < 0 { throw POSIXError(.ETIMEDOUT) }
            if count == 0 { break }
            let from = max(0, received.count - 3)
            received += buffer[0..<count]
            var index = from
            while index + 4 <= received.count {
                if received[index..<(index + 4)].elementsEqual(blank) { blankLines += 1; index += 4 } else { index += 1 }
            }
        }
        return String(decoding: received, as: UTF8.self)
    }

    @Test("HEAD on a paced or streamed answer gets the head alone: the next answer on the connection follows its blank line",
          arguments: ["/stream/5", "/sse?count=3&interval=0", "/drip?numbytes=10&duration=0", "/sse/drop?count=4&interval=0&after=2"])
    func headOnPacedAnswers(_ path: String) async throws {
        let server = try await TestServer.shared()
        let text = try await pipelined("HEAD \(path) HTTP/1.1\r\nHost: t\r\n\r\nGET /status/204 HTTP/1.1\r\nHost: t\r\n\r\n", port: server.port, heads: 2)
        let parts = text.components(separatedBy: "\r\n\r\n")
        #expect(parts.count >= 2 && parts[0].hasPrefix("HTTP/1.1 200") && parts[1].hasPrefix("HTTP/1.1 204"), "\(text)")
    }

    @Test("requests pipelined on one connection are answered whole and in order, behind a download, a delay or a stream (the second answer came in the middle of the first)",
          arguments: ["/range/2000000", "/delay/1", "/drip?numbytes=10&duration=0.5", "/stream/3?interval=0.2"])
    func pipelinedInOrder(_ path: String) async throws {
        let server = try await TestServer.shared()
        let text = try await pipelined("GET \(path) HTTP/1.1\r\nHost: t\r\n\r\nGET /status/204 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
                                 port: server.port, heads: 3)
        let first = try #require(text.range(of: "HTTP/1.1 200"), "\(text.prefix(300))")
        let second = try #require(text.range(of: "HTTP/1.1 204"), "\(text.suffix(300))")
        #expect(first.lowerBound < second.lowerBound)
        // The whole first answer, then the 204, which ends the text.
        #expect(text.hasSuffix("Connection: close\r\n\r\n"), "\(text.suffix(300))")
        let firstAnswer = String(text[first.lowerBound..<second.lowerBound])
        let firstBody = firstAnswer.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
        switch path {
        case "/range/2000000": #expect(firstBody.utf8.count == 2_000_000)
        case "/delay/1": #expect(firstBody.contains("\"url\""), "\(firstBody)")
        case "/drip?numbytes=10&duration=0.5": #expect(firstBody == "**********", "\(firstBody)")
        default: #expect(firstBody.hasSuffix("0\r\n\r\n") || firstAnswer.hasSuffix("0\r\n\r\n"), "\(firstAnswer)")
        }
    }

    @Test("an HTTP/1.0 client gets a stream's pieces as they are, ended by the close, even when it asked to keep the connection (they came in chunked framing, which HTTP/1.0 cannot read)",
          arguments: [("/stream/3", "{\"id\":2,", ""), ("/sse?count=2&interval=0", "id: 2\n", ""),
                      ("/stream/3", "{\"id\":2,", "Connection: keep-alive\r\n"), ("/sse/drop?count=4&interval=0&after=2", "id: 2\n", "")])
    func streamsOverHTTP10(_ path: String, last: String, extraHeader: String) async throws {
        let server = try await TestServer.shared()
        let text = try await pipelined("GET \(path) HTTP/1.0\r\nHost: t\r\n\(extraHeader)\r\n", port: server.port, heads: 2)
        let parts = text.components(separatedBy: "\r\n\r\n")
        #expect(parts.count == 2 && parts[0].hasPrefix("HTTP/1.1 200") && parts[0].contains("Connection: close"), "\(text)")
        #expect(!text.lowercased().contains("transfer-encoding"), "\(text)")
        // The body is the pieces alone: no chunk sizes, no last chunk.
        #expect(parts.count == 2 && parts[1].hasSuffix(path.hasPrefix("/sse") ? "\n\n" : "}\n") && parts[1].contains(last), "\(text)")
        #expect(!parts.dropFirst().joined().hasSuffix("0\r\n\r\n"), "\(text)")
    }

    @Test("/bytes/{n} is made while it is sent: heads for the largest body follow each other at once (each was made whole first, seconds for 256 MiB, even for HEAD)")
    func largeRandomBodies() async throws {
        let server = try await TestServer.shared()
        let count = 12
        let request = "HEAD /bytes/268435456 HTTP/1.1\r\nHost: t\r\n\r\n"
        // Made whole, the twelve heads took longer than the reader's 10 s wait.
        let text = try await pipelined(String(repeating: request, count: count), port: server.port, heads: count)
        #expect(text.components(separatedBy: "Content-Length: 268435456\r\n").count - 1 == count, "\(text.prefix(400))")
    }

    @Test("a request pipelined after a stall is never answered, and the client's close still closes the connection")
    func stallThenClose() async throws {
        let server = try await TestServer.shared()
        let text = try await pipelined("GET /fault/stall HTTP/1.1\r\nHost: t\r\n\r\nGET /get HTTP/1.1\r\nHost: t\r\n\r\n",
                                       port: server.port, heads: 3, halfClose: true)
        #expect(text.hasPrefix("HTTP/1.1 200") && text.components(separatedBy: "HTTP/1.1").count == 2, "\(text)")
    }

    @Test("thousands of requests pipelined behind a delay are each answered, in order")
    func manyPipelined() async throws {
        let server = try await TestServer.shared()
        let count = 3_000
        let requests = "GET /delay/0.5 HTTP/1.1\r\nHost: t\r\n\r\n" + String(repeating: "GET /status/204 HTTP/1.1\r\nHost: t\r\n\r\n", count: count)
        let text = try await pipelined(requests, port: server.port, heads: count + 1)
        #expect(text.hasPrefix("HTTP/1.1 200"))
        #expect(text.components(separatedBy: "HTTP/1.1 204 No Content\r\n").count - 1 == count)
    }

    @Test("a client that closes its side after sending still gets the whole answer, then the close",
          arguments: [("/range/5000000", 5_000_000), ("/delay/1", 0), ("/drip?numbytes=10&duration=0.5", 10),
                      ("/drip?numbytes=10485760&duration=0", 10_485_760)])
    func halfClosedClient(_ path: String, bodySize: Int) async throws {
        let server = try await TestServer.shared()
        let text = try await pipelined("GET \(path) HTTP/1.1\r\nHost: t\r\n\r\n", port: server.port, heads: 2, halfClose: true)
        let parts = text.components(separatedBy: "\r\n\r\n")
        #expect(parts.count == 2 && parts[0].hasPrefix("HTTP/1.1 200"), "\(text.prefix(300))")
        if bodySize > 0 {
            #expect(parts.count == 2 && parts[1].utf8.count == bodySize, "\(text.utf8.count) bytes")
        } else {
            #expect(parts.count == 2 && parts[1].contains("\"url\""), "\(text.suffix(300))")
        }
    }

    @Test("a large answer closed after it (Connection: close) arrives whole, sent in one write or paced: the close waits for the last write",
          arguments: [("/stream/10000", 338_890), ("/drip?numbytes=10485760&duration=0", 10_485_760), ("/drip?numbytes=10485760&duration=0.3", 10_485_760)])
    func closeAfterLargeWrite(_ path: String, size: Int) async throws {
        let server = try await TestServer.shared()
        let agent = Agent(config: NetworkConfig(baseURL: server.baseURL, requestTimeout: .seconds(30)))
        let response = try await agent.send(Request(.get, path, headers: ["Connection": "close"]))
        #expect(response.body.count == size)
    }

    @Test("the longest streams without an interval arrive whole, in one write (a write a piece held the loop for seconds)",
          arguments: ["/stream/10000", "/sse?count=10000&interval=0"])
    func longStreams(_ path: String) async throws {
        let server = try await TestServer.shared()
        let agent = Agent(config: NetworkConfig(baseURL: server.baseURL, requestTimeout: .seconds(30)))
        let text = try await agent.send(Request(.get, path)).text ?? ""
        let marker = path.hasPrefix("/sse") ? "id: " : "{\"id\":"
        #expect(text.components(separatedBy: marker).count - 1 == 10_000)
        #expect(text.contains(path.hasPrefix("/sse") ? "id: 10000\n" : "{\"id\":9999,"))
    }

    @Test("/drip's delay comes once, before the body (it came between every two pieces: 100 bytes with a 1 s delay took 100 s)")
    func dripDelay() async throws {
        let server = try await TestServer.shared()
        let agent = Agent(config: NetworkConfig(baseURL: server.baseURL, requestTimeout: .seconds(20)))
        let started = ContinuousClock.now
        let response = try await agent.send(Request(.get, "/drip?numbytes=100&duration=0&delay=1"))
        #expect(response.body.count == 100)
        #expect(ContinuousClock.now - started >= .seconds(1))
    }
}
