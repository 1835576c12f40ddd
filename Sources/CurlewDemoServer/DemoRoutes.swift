import Foundation
import CurlewLocking

/// The httpbin-like endpoints. Pure request-to-action mapping, except for the login tokens it issues.
final class DemoRoutes: Sendable {
    /// Tokens issued by `/login`, mapped to the user name they were issued for.
    private let tokens = Locked<[String: String]>([:])
    /// Requests per path, for `/counter`, and per-key state of `/flaky` and `/retry-after`.
    let counters = DemoCounters()
    /// Upper bound for `/bytes/{n}`, as httpbin-like servers have one.
    static let maxGeneratedBytes = 256 << 20
    /// Bodies generated while they are sent (`/range`) may be this large.
    static let maxStreamedBytes = 8 << 30
    /// The longest `/delay/{seconds}`.
    static let longestDelay = 60.0

    func action(for request: DemoRequest) -> DemoAction {
        let segments = request.segments
        if segments.first != "counter" { counters.count(path: request.path) }
        guard let first = segments.first else {
            return .respond(.json(["endpoints": Self.endpointList]))
        }
        let argument = segments.count > 1 ? String(segments[1]) : nil
        switch first {
        case "get": return methodEcho(request, allowed: ["GET", "HEAD"])
        case "post": return methodEcho(request, allowed: ["POST"])
        case "put": return methodEcho(request, allowed: ["PUT"])
        case "patch": return methodEcho(request, allowed: ["PATCH"])
        case "delete": return methodEcho(request, allowed: ["DELETE"])
        case "anything": return .respond(.json(echo(request)))
        case "headers": return .respond(.json(["headers": headerObject(request)]))
        case "json": return .respond(.json(Self.sampleDocument))
        case "status": return status(argument)
        case "delay": return delay(request, argument)
        case "bytes": return bytes(argument, request)
        case "stream": return stream(request, argument)
        case "drip": return drip(request)
        case "redirect": return redirect(request, argument)
        case "redirect-to": return redirectTo(request)
        case "basic-auth": return basicAuth(request, segments)
        case "bearer": return bearer(request)
        case "etag": return etag(request, argument)
        case "range": return range(request, argument)
        case "login": return login(request)
        case "me": return me(request)
        case "fault": return fault(argument)
        case "cache": return cache(request, argument)
        case "counter": return counter(request)
        case "flaky": return flaky(request, argument)
        case "retry-after": return retryAfter(request, argument)
        case "signed": return signed(request)
        case "upload": return upload(request)
        case "sse": return serverSentEvents(request, drops: segments.dropFirst().first == "drop")
        case "cookies": return cookies(request, segments.dropFirst().first.map(String.init))
        default: return .respond(.json(["error": "no such endpoint", "path": request.path], status: 404))
        }
    }

    static let endpointList = [
        "/get", "/post", "/put", "/patch", "/delete", "/anything", "/headers", "/json", "/status/{code}",
        "/delay/{seconds}", "/bytes/{n}", "/stream/{n}", "/drip", "/redirect/{n}", "/redirect-to?url=", "/basic-auth/{user}/{pass}",
        "/bearer", "/etag/{tag}", "/range/{n}", "/login", "/me",
    ] + faults.map { "/fault/" + $0 } + [
        "/cache/{seconds}", "/counter?path=", "/flaky/{n}", "/retry-after/{seconds}", "/signed", "/upload", "/sse?count=&interval=&retry=", "/sse/drop?count=&after=", "/cookies", "/cookies/set?name=value", "/cookies/delete?name",
    ]

    static var sampleDocument: [String: Any] {
        [
        "slideshow": [
            "author": "Curlew",
            "date": "2026-01-01",
            "title": "Sample Slide Show",
            "slides": [
                ["title": "Wake up to wire truth", "type": "all"],
                ["title": "Overview", "type": "all", "items": ["Why timings matter", "Who reuses connections"]],
            ],
        ],
        ]
    }

    // MARK: Echo

    private func methodEcho(_ request: DemoRequest, allowed: Set<String>) -> DemoAction {
        guard allowed.contains(request.method) else {
            return .respond(.json(["error": "method not allowed", "method": request.method], status: 405,
                                  headers: [("Allow", allowed.sorted().joined(separator: ", "))]))
        }
        return .respond(.json(echo(request)))
    }

    private func echo(_ request: DemoRequest) -> [String: Any] {
        var object: [String: Any] = [
            "method": request.method,
            "url": request.uri,
            "args": argsObject(request),
            "headers": headerObject(request),
            "origin": request.remoteAddress,
        ]
        let contentType = request.header("Content-Type")?.lowercased() ?? ""
        // Text as it came; anything else as a data URL, as httpbin does (repairing invalid UTF-8
        // would cost the event loop a second on a few hundred kilobytes).
        let bodyText = String(validating: request.body, as: UTF8.self)
        if !contentType.contains("multipart/form-data") {
            object["data"] = bodyText ?? "data:application/octet-stream;base64," + Data(request.body).base64EncodedString()
        }
        object["bodyLength"] = request.body.count
        if contentType.contains("json"), let json = try? JSONSerialization.jsonObject(with: Data(request.body), options: [.fragmentsAllowed]) {
            object["json"] = json
        } else {
            object["json"] = NSNull()
        }
        if contentType.contains("application/x-www-form-urlencoded"), let bodyText {
            object["form"] = Self.formFields(bodyText)
        }
        if contentType.contains("multipart/form-data") {
            if let parsed = MultipartFormParser(body: request.body, contentType: request.header("Content-Type") ?? "") {
                object["form"] = parsed.fields
                object["files"] = parsed.files.mapValues { file -> [String: Any] in
                    ["filename": file.filename, "contentType": file.contentType ?? NSNull(), "size": file.size, "sha256": file.sha256, "headers": file.headers]
                }
            } else {
                object["formError"] = "the multipart body is not well formed"
            }
        }
        return object
    }

    /// Fields of an `application/x-www-form-urlencoded` body; `+` is a space, a field without `=` is empty.
    static func formFields(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            // Empty pieces are kept: "=" is a field with an empty name, not nothing at all.
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
            }
            fields[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return fields
    }

    /// The query as httpbin's `args`: a name given once maps to its value, one given again to
    /// the list of its values. Grouped first, so a name repeated by the thousand is not copied
    /// once per repeat.
    private func argsObject(_ request: DemoRequest) -> [String: Any] {
        var values: [String: [String]] = [:]
        for item in request.query { values[item.name, default: []].append(item.value) }
        return values.mapValues { $0.count == 1 ? $0[0] as Any : $0 as Any }
    }

    private func headerObject(_ request: DemoRequest) -> [String: String] {
        var headers: [String: String] = [:]
        for header in request.headers {
            headers[header.name] = headers[header.name].map { "\($0), \(header.value)" } ?? header.value
        }
        return headers
    }

    // MARK: Status, delay, generated bodies

    private func status(_ argument: String?) -> DemoAction {
        guard let argument, let code = DemoRequest.wholeNumber(argument), (200...599).contains(code) else {
            return .respond(.json(["error": "status must be a code from 200 to 599"], status: 400))
        }
        if (300..<400).contains(code), code != 304 {
            return .respond(DemoResponse(status: code, headers: [("Location", "/get")]))
        }
        return .respond(Self.answer(status: code, json: ["status": code]))
    }

    /// A JSON answer with `status`, but none for a 204 or 304, which carry no body.
    private static func answer(status: Int, json: @autoclosure () -> Any) -> DemoResponse {
        status == 204 || status == 304 ? DemoResponse(status: status) : .json(json(), status: status)
    }

    private func delay(_ request: DemoRequest, _ argument: String?) -> DemoAction {
        guard let argument, let seconds = DemoRequest.decimal(argument, in: 0...Self.longestDelay) else {
            return .respond(.json(["error": "delay must be a number of seconds from 0 to \(Int(Self.longestDelay))"], status: 400))
        }
        // A status in digits alone, as every number here; one out of range answers 200.
        var status = 200
        if let text = request.queryValue("status") {
            guard let requested = DemoRequest.position(text) else {
                return .respond(.json(["error": "status must be a code in digits; one outside 200 to 599 answers 200"], status: 400))
            }
            if (200...599).contains(requested) { status = requested }
        }
        return .delay(seconds: seconds, Self.answer(status: status, json: echo(request)))
    }

    private func bytes(_ argument: String?, _ request: DemoRequest) -> DemoAction {
        guard let argument, let count = DemoRequest.wholeNumber(argument), count <= Self.maxGeneratedBytes else {
            return .respond(.json(["error": "n must be from 0 to \(Self.maxGeneratedBytes)"], status: 400))
        }
        var seed: UInt64 = 42
        if let text = request.queryValue("seed") {
            guard let value = DemoRequest.wholeNumber(text, as: UInt64.self) else {
                return .respond(.json(["error": "seed must be a whole number from 0 to \(UInt64.max)"], status: 400))
            }
            seed = value
        }
        // Made while it is sent: made whole first, 256 MiB held the event loop for seconds.
        return .generated(DemoResponse(status: 200, headers: [("Content-Type", "application/octet-stream"), ("Content-Length", "\(count)")]),
                          GeneratedBody(first: 0, count: count, content: .random(seed: seed)))
    }

    private func stream(_ request: DemoRequest, _ argument: String?) -> DemoAction {
        guard let argument, let count = DemoRequest.wholeNumber(argument), (0...10_000).contains(count),
              let interval = request.number("interval", default: 0, in: 0...60) else {
            return .respond(.json(["error": "n must be from 0 to 10000, interval seconds from 0 to 60"], status: 400))
        }
        let pieces = (0..<count).map { index in
            Array("{\"id\":\(index),\"url\":\"\(request.uri)\"}\n".utf8)
        }
        let head = DemoResponse(status: 200, headers: [("Content-Type", "application/x-ndjson"), ("Transfer-Encoding", "chunked")])
        return .paced(head, pieces: pieces, interval: interval, chunked: true)
    }

    private func drip(_ request: DemoRequest) -> DemoAction {
        guard let count = request.wholeNumber("numbytes", default: 10, in: 0...10_485_760),
              let duration = request.number("duration", default: 2, in: 0...60),
              let code = request.wholeNumber("code", default: 200, in: 200...599),
              let initialDelay = request.number("delay", default: 0, in: 0...60) else {
            return .respond(.json(["error": "numbytes must be a whole number from 0 to \(10 << 20), duration and delay seconds from 0 to 60, code from 200 to 599"], status: 400))
        }
        let pieceCount = max(1, min(count, 100))
        let pieces = (0..<pieceCount).map { index -> [UInt8] in
            let size = count / pieceCount + (index < count % pieceCount ? 1 : 0)
            return [UInt8](repeating: UInt8(ascii: "*"), count: size)
        }
        let head = DemoResponse(status: code, headers: [("Content-Type", "application/octet-stream"), ("Content-Length", "\(count)")])
        return .paced(head, pieces: count == 0 ? [] : pieces, interval: duration / Double(pieceCount), chunked: false, delay: initialDelay)
    }

    private func redirect(_ request: DemoRequest, _ argument: String?) -> DemoAction {
        guard let argument, let hops = DemoRequest.wholeNumber(argument), hops >= 1, hops <= 100 else {
            return .respond(.json(["error": "n must be from 1 to 100"], status: 400))
        }
        let location = hops == 1 ? "/get" : "/redirect/\(hops - 1)"
        return .respond(DemoResponse(status: 302, headers: [("Location", location)]))
    }

    /// A redirect to any URL (another origin, another scheme), as httpbin's: for testing what a
    /// client does with hostile redirects.
    private func redirectTo(_ request: DemoRequest) -> DemoAction {
        guard let target = request.queryValue("url"), !target.isEmpty,
              !target.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }),
              let code = request.wholeNumber("status_code", default: 302, in: 300...399),
              let delay = request.number("delay", default: 0, in: 0...10) else {
            return .respond(.json(["error": "use /redirect-to?url=URL[&status_code=3xx][&delay=SECONDS up to 10]"], status: 400))
        }
        let response = DemoResponse(status: code, headers: [("Location", target)])
        return delay > 0 ? .delay(seconds: delay, response) : .respond(response)
    }

    // MARK: Authentication

    private func basicAuth(_ request: DemoRequest, _ segments: [Substring]) -> DemoAction {
        guard segments.count == 3 else {
            return .respond(.json(["error": "use /basic-auth/{user}/{password}"], status: 400))
        }
        let user = String(segments[1])
        let expected = Data("\(user):\(segments[2])".utf8).base64EncodedString()
        // The scheme's name in any case, as RFC 9110 (section 11.1) has it; the credentials as sent.
        let given = (request.header("Authorization") ?? "").split(separator: " ", maxSplits: 1).map(String.init)
        guard given.count == 2, given[0].lowercased() == "basic", given[1].trimmingCharacters(in: .whitespaces) == expected else {
            return .respond(.json(["authenticated": false], status: 401, headers: [("WWW-Authenticate", "Basic realm=\"curlew-demo\"")]))
        }
        return .respond(.json(["authenticated": true, "user": user]))
    }

    private func bearerToken(_ request: DemoRequest) -> String? {
        guard let authorization = request.header("Authorization"), authorization.hasPrefix("Bearer ") else { return nil }
        let token = authorization.dropFirst("Bearer ".count).trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }

    private func bearer(_ request: DemoRequest) -> DemoAction {
        guard let token = bearerToken(request) else {
            return .respond(.json(["authenticated": false], status: 401, headers: [("WWW-Authenticate", "Bearer")]))
        }
        return .respond(.json(["authenticated": true, "token": token]))
    }

    private func login(_ request: DemoRequest) -> DemoAction {
        guard request.method == "POST" else {
            return .respond(.json(["error": "POST a username and password"], status: 405, headers: [("Allow", "POST")]))
        }
        var fields: [String: String] = [:]
        if let json = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any] {
            for (key, value) in json { fields[key] = value as? String }
        } else {
            fields = Self.formFields(String(validating: request.body, as: UTF8.self) ?? "")
        }
        guard let user = fields["username"], !user.isEmpty, let password = fields["password"], !password.isEmpty else {
            return .respond(.json(["error": "username and password are required"], status: 401))
        }
        let token = "demo-" + UUID().uuidString.lowercased()
        tokens.withLock { $0[token] = user }
        return .respond(.json(["token": token, "user": user, "expiresIn": 3600]))
    }

    private func me(_ request: DemoRequest) -> DemoAction {
        guard let token = bearerToken(request), let user = tokens.withLock({ $0[token] }) else {
            return .respond(.json(["error": "log in first: POST /login, then send Authorization: Bearer <token>"],
                                  status: 401, headers: [("WWW-Authenticate", "Bearer")]))
        }
        return .respond(.json(["user": user, "id": abs(user.hashValue % 100_000), "roles": ["developer"]]))
    }

    // MARK: Caching and ranges

    private func etag(_ request: DemoRequest, _ argument: String?) -> DemoAction {
        guard let tag = argument else { return .respond(.json(["error": "use /etag/{tag}"], status: 400)) }
        let quoted = "\"\(tag)\""
        let candidates = Self.entityTags(request.header("If-None-Match"))
        if candidates.contains(quoted) || candidates.contains("*") {
            return .respond(DemoResponse(status: 304, headers: [("ETag", quoted)]))
        }
        let matches = Self.entityTags(request.header("If-Match"))
        if !matches.isEmpty, !matches.contains(quoted), !matches.contains("*") {
            return .respond(DemoResponse(status: 412))
        }
        return .respond(.json(echo(request), headers: [("ETag", quoted)]))
    }

    private static func entityTags(_ header: String?) -> [String] {
        (header ?? "").split(separator: ",").map {
            let tag = $0.trimmingCharacters(in: .whitespaces)
            return tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag
        }
    }

    /// `n` bytes of the alphabet (shifted by `?v=`, which also changes the ETag), generated as
    /// they are sent so any size up to 8 GiB costs no memory. Honours `Range` and `If-Range`;
    /// `?duration=` spreads the body over that many seconds; `?abort=` closes the connection after
    /// that many body bytes and `?reset=` resets it (RST), so a download can be interrupted and
    /// resumed.
    private func range(_ request: DemoRequest, _ argument: String?) -> DemoAction {
        guard let argument, let size = DemoRequest.wholeNumber(argument), size <= Self.maxStreamedBytes,
              let version = request.wholeNumber("v", default: 0, in: 0...1_000_000),
              let duration = request.number("duration", default: 0, in: 0...600),
              let abort = request.wholeNumber("abort", default: -1, in: -1...Self.maxStreamedBytes),
              let reset = request.wholeNumber("reset", default: -1, in: -1...Self.maxStreamedBytes),
              abort < 0 || reset < 0 else {
            return .respond(.json(["error": "use /range/{n up to \(Self.maxStreamedBytes)}[?v=version][&duration=seconds][&abort=bytes | &reset=bytes]"], status: 400))
        }
        let etag = "\"range-\(size)-\(version)\""
        var headers: [(name: String, value: String)] = [
            ("Content-Type", "application/octet-stream"), ("ETag", etag), ("Last-Modified", "Thu, 01 Jan 2026 00:00:00 GMT"), ("Accept-Ranges", "bytes"),
        ]
        let ifRange = request.header("If-Range")
        let ifRangeAllows = ifRange.map { $0 == etag } ?? true
        var first = 0
        var count = size
        var status = 200
        // Ranges apply to GET (and HEAD, which answers as GET would); other methods get the whole.
        if let rangeHeader = request.header("Range"), ifRangeAllows, request.method == "GET" || request.method == "HEAD" {
            switch RangeRequest(header: rangeHeader, size: size) {
            case .whole:
                break
            case .unsatisfiable:
                return .respond(DemoResponse(status: 416, headers: [("Content-Range", "bytes */\(size)")]))
            case .part(let start, let last):
                headers.append(("Content-Range", "bytes \(start)-\(last)/\(size)"))
                first = start
                count = last - start + 1
                status = 206
            }
        }
        headers.append(("Content-Length", "\(count)"))
        let cut = max(abort, reset)
        let body = GeneratedBody(first: first, count: count, content: .alphabet(shift: version % 26), duration: duration, abortAfter: cut >= 0 ? cut : nil,
                                 abortsWithReset: reset >= 0)
        return .generated(DemoResponse(status: status, headers: headers), body)
    }

    /// A streamed upload (POST or PUT, any size): the body is digested as it arrives, never kept.
    private func upload(_ request: DemoRequest) -> DemoAction {
        guard request.method == "POST" || request.method == "PUT", let digest = request.streamedBody else {
            return .respond(.json(["error": "method not allowed", "method": request.method], status: 405, headers: [("Allow", "POST, PUT")]))
        }
        return .respond(.json([
            "method": request.method, "bytes": digest.bytes, "sha256": digest.sha256,
            "contentType": request.header("Content-Type") ?? NSNull(), "headers": headerObject(request),
        ]))
    }

    /// httpbin's cookie endpoints: `/cookies` lists the cookies the request carried;
    /// `/cookies/set?name=value` sets them (HttpOnly, path /, and `Max-Age` from `max_age=`)
    /// and `/cookies/delete?name` expires them, both redirecting to `/cookies`.
    private func cookies(_ request: DemoRequest, _ action: String?) -> DemoAction {
        var sent: [String: String] = [:]
        for pair in (request.header("Cookie") ?? "").split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if let name = parts.first, !name.isEmpty { sent[name] = parts.count > 1 ? parts[1] : "" }
        }
        let safe = { (text: String) in !text.isEmpty && text.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F && !";,=\"".unicodeScalars.contains($0) } }
        switch action {
        case nil:
            return .respond(.json(["cookies": sent]))
        case "set"?:
            let maxAge = request.queryValue("max_age").flatMap(Int.init)
            let items = request.query.filter { $0.name != "max_age" }
            guard !items.isEmpty, items.allSatisfy({ safe($0.name) && ($0.value.isEmpty || safe($0.value)) }) else {
                return .respond(.json(["error": "use /cookies/set?name=value (names and values without spaces, ;, = or quotes)"], status: 400))
            }
            let headers = items.map { ("Set-Cookie", "\($0.name)=\($0.value); Path=/; HttpOnly" + (maxAge.map { "; Max-Age=\($0)" } ?? "")) }
            return .respond(DemoResponse(status: 302, headers: headers + [("Location", "/cookies")]))
        case "delete"?:
            let names = request.query.map(\.name).filter(safe)
            return .respond(DemoResponse(status: 302, headers: names.map { ("Set-Cookie", "\($0)=; Path=/; Max-Age=0") } + [("Location", "/cookies")]))
        default:
            return .respond(.json(["error": "no such endpoint", "path": request.path], status: 404))
        }
    }

    /// A `text/event-stream` of `count` events (`id: n`, `event: tick`, `data: {"n":n}`), one every
    /// `interval` seconds, after a comment and, with `retry=`, a reconnection time. It continues
    /// after a numeric `Last-Event-ID`. `/sse/drop` closes the connection after `after` events of
    /// each connection (half of what is left by default), without ending the stream, so a client
    /// must reconnect for the rest.
    private func serverSentEvents(_ request: DemoRequest, drops: Bool) -> DemoAction {
        guard let count = request.wholeNumber("count", default: 5, in: 0...10_000),
              let interval = request.number("interval", default: 0.2, in: 0...60),
              let retry = request.wholeNumber("retry", default: -1, in: -1...600_000),
              let after = request.wholeNumber("after", default: -1, in: -1...10_000) else {
            return .respond(.json(["error": "use /sse?count=0...10000&interval=0...60&retry=milliseconds, /sse/drop?...&after=events"], status: 400))
        }
        // Only an ID this stream could have sent counts; anything else starts from the beginning.
        // A number past the largest integer is past the end too.
        let resumed = request.header("Last-Event-ID").flatMap(DemoRequest.position).map { min($0, count) } ?? 0
        let first = resumed + 1
        let remaining = max(0, count - first + 1)
        let sent = drops ? min(remaining, after >= 0 ? after : max(1, remaining / 2)) : remaining
        var opening = ": curlew demo event stream\n"
        if retry >= 0 { opening += "retry: \(retry)\n" }
        var pieces: [[UInt8]] = [Array((opening + "\n").utf8)]
        for number in first..<(first + sent) {
            pieces.append(Array("id: \(number)\nevent: tick\ndata: {\"n\":\(number),\"of\":\(count)}\n\n".utf8))
        }
        let head = DemoResponse(status: 200, headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache"), ("Transfer-Encoding", "chunked")])
        return drops && sent < remaining
            ? .pacedThenDrop(head, pieces: pieces, interval: interval)
            : .paced(head, pieces: pieces, interval: interval, chunked: true)
    }

    // MARK: Caching, counting, flakiness and signatures

    /// A cacheable response: `Cache-Control: max-age=seconds` (or `no-store` with `?store=no`),
    /// an `ETag` and `Last-Modified` that change only with `?v=`, and 304 to a matching
    /// `If-None-Match` or `If-Modified-Since`; `?cookie=1` adds a `Set-Cookie`. The body says how
    /// often this URL was served with a body.
    private func cache(_ request: DemoRequest, _ argument: String?) -> DemoAction {
        guard let argument, let seconds = DemoRequest.wholeNumber(argument), (0...86_400).contains(seconds) else {
            return .respond(.json(["error": "use /cache/{seconds from 0 to 86400}[?v=version][&store=no]"], status: 400))
        }
        let version = request.queryValue("v") ?? "1"
        let etag = "\"cache-\(seconds)-\(Self.tagSafe(version))\""
        let lastModified = "Thu, 01 Jan 2026 00:00:00 GMT"
        let control = request.queryValue("store") == "no" ? "no-store" : "max-age=\(seconds)"
        var validators: [(name: String, value: String)] = [("Cache-Control", control), ("ETag", etag), ("Last-Modified", lastModified)]
        if request.queryValue("cookie") == "1" { validators.append(("Set-Cookie", "session=demo-cache-cookie; HttpOnly")) }
        if Self.entityTags(request.header("If-None-Match")).contains(etag) || request.header("If-Modified-Since") == lastModified {
            return .respond(DemoResponse(status: 304, headers: validators))
        }
        let served = counters.next(key: "cache " + request.uri)
        return .respond(.json(["path": request.path, "version": version, "served": served], headers: validators))
    }

    private static func tagSafe(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0.isASCII && $0 != "\"" && $0.value > 0x20 && $0.value < 0x7F }.prefix(64).map(Character.init))
    }

    /// How many requests a path has had (`?path=/cache/60`), or every path's count; `DELETE` resets.
    private func counter(_ request: DemoRequest) -> DemoAction {
        if request.method == "DELETE" {
            counters.reset()
            return .respond(.json(["reset": true]))
        }
        if let path = request.queryValue("path") {
            return .respond(.json(["path": path, "hits": counters.hits(path: path)]))
        }
        return .respond(.json(["hits": counters.allHits()]))
    }

    /// Fails `n` times with 503 (or `?status=`), then succeeds, counted per `?key=` (default: the path).
    private func flaky(_ request: DemoRequest, _ argument: String?) -> DemoAction {
        guard let argument, let failures = DemoRequest.wholeNumber(argument), (0...1000).contains(failures),
              let status = request.wholeNumber("status", default: 503, in: 400...599) else {
            return .respond(.json(["error": "use /flaky/{n from 0 to 1000}[?key=K][&status=4xx|5xx]"], status: 400))
        }
        let attempt = counters.next(key: "flaky " + (request.queryValue("key") ?? request.path))
        if attempt <= failures {
            return .respond(.json(["attempt": attempt, "failing": true, "failuresLeft": failures - attempt], status: status))
        }
        return .respond(.json(["attempt": attempt, "failing": false]))
    }

    /// Answers 503 with `Retry-After: seconds` (an HTTP date with `?date=1`) to the first request
    /// per `?key=`, then 200.
    private func retryAfter(_ request: DemoRequest, _ argument: String?) -> DemoAction {
        guard let argument, let seconds = DemoRequest.wholeNumber(argument), (0...3600).contains(seconds) else {
            return .respond(.json(["error": "use /retry-after/{seconds from 0 to 3600}[?key=K][&date=1]"], status: 400))
        }
        let attempt = counters.next(key: "retry-after " + (request.queryValue("key") ?? request.path))
        guard attempt == 1 else { return .respond(.json(["attempt": attempt, "retried": true])) }
        let value = request.queryValue("date") == "1" ? Self.httpDate(Date().addingTimeInterval(Double(seconds))) : String(seconds)
        return .respond(.json(["attempt": attempt, "retryAfter": value], status: 503, headers: [("Retry-After", value)]))
    }

    private static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    /// Checks an HMAC-SHA256 request signature (see `DemoSignature`): 200 when valid, 401 saying why not.
    private func signed(_ request: DemoRequest) -> DemoAction {
        switch DemoSignature.verify(request) {
        case .success(let keyID):
            return .respond(.json(["valid": true, "keyID": keyID, "method": request.method, "target": request.uri]))
        case .failure(let failure):
            return .respond(.json(["valid": false, "reason": failure.reason, "canonical": failure.canonical], status: 401))
        }
    }

    // MARK: Faults

    static let faults = ["reset", "close", "stall", "bad-chunked", "terminal", "bad-status", "no-status", "huge-header", "many-headers", "two-lengths", "lenient-length", "repeated-length", "informational-only", "informational-storm", "drop-reused"]

    private func fault(_ argument: String?) -> DemoAction {
        let head = DemoResponse(status: 200, headers: [("Content-Type", "text/plain"), ("Content-Length", "1000")])
        switch argument {
        case "reset": return .resetMidBody(head, sentBytes: 100)
        case "close": return .closeWithoutResponse
        case "stall": return .stallAfterHead(head)
        case "bad-chunked":
            let bytes = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nZZ\r\nnot a chunk\r\n"
            return .rawThenClose(Array(bytes.utf8))
        case "terminal":
            // Escape sequences that retitle the window, clear the screen and switch to the
            // alternate screen, in the status line, a header and the body.
            let hostile = "\u{1B}]0;pwned\u{07}\u{1B}[2J\u{1B}[?1049h"
            let body = "before" + hostile + "after\u{9B}31m\n"
            let bytes = "HTTP/1.1 200 OK\(hostile)\r\nContent-Type: text/plain\r\nX-Hostile: \(hostile)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
            return .rawThenClose(Array(bytes.utf8))
        case "bad-status":
            return .rawThenClose(Array("HTTP/1.1 abc OK\r\nContent-Length: 2\r\n\r\nhi".utf8))
        case "no-status":
            // An HTTP/0.9 answer: a body without a status line or headers.
            return .rawThenClose(Array("just a body, no status line\n".utf8))
        case "huge-header":
            let bytes = "HTTP/1.1 200 OK\r\nX-Huge: " + String(repeating: "a", count: 200 * 1024) + "\r\nContent-Length: 2\r\n\r\nhi"
            return .rawThenClose(Array(bytes.utf8))
        case "many-headers":
            // Each line short, the head as a whole past what libcurl reads.
            let fields = (0..<3_000).map { "X-Filler-\($0): " + String(repeating: "f", count: 90) + "\r\n" }.joined()
            return .rawThenClose(Array(("HTTP/1.1 200 OK\r\n" + fields + "Content-Length: 2\r\n\r\nhi").utf8))
        case "two-lengths":
            // Which length frames the body is a guess; a response smuggled behind it is the attack.
            return .rawThenClose(Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 5\r\n\r\nhello".utf8))
        case "lenient-length":
            // The second length is one libcurl reads (`+5` is 5 to it) and a strict reader does not.
            return .rawThenClose(Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: +5\r\n\r\nhello".utf8))
        case "repeated-length":
            // The same length twice, once as a list: one length, which a recipient may accept.
            return .rawThenClose(Array("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5, 5\r\n\r\nhello".utf8))
        case "informational-only":
            // A 1xx status (which a final answer must follow), then a body with no status line.
            return .rawThenClose(Array("HTTP/1.1 150 Weird\r\nContent-Length: 2\r\n\r\nhi".utf8))
        case "informational-storm":
            // Informational answers only, thousands of them, then the close: no final answer.
            return .rawThenClose(Array(String(repeating: "HTTP/1.1 100 Continue\r\n\r\n", count: 5_000).utf8))
        case "drop-reused":
            // A server whose idle timeout strikes just as a kept connection is used again.
            return .respondThenDropNext(.json(["dropsNextRequest": true]))
        default:
            return .respond(.json(["error": "faults: \(Self.faults.joined(separator: ", "))"], status: 404))
        }
    }
}

/// What a `Range` header asks of a body, read as RFC 9110 (section 14.2) has a server read it.
enum RangeRequest: Equatable {
    /// Ignored: a unit other than bytes, which a server must ignore, or several ranges, which it
    /// may answer with the whole body.
    case whole
    /// One range of the body, both ends included.
    case part(first: Int, last: Int)
    /// A byte range the body cannot give (past its end, or not a range at all): 416.
    case unsatisfiable

    init(header: String, size: Int) {
        guard let equals = header.firstIndex(of: "="),
              header[..<equals].trimmingCharacters(in: .whitespaces).lowercased() == "bytes" else {
            self = .whole
            return
        }
        let spec = header[header.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        guard !spec.contains(",") else {
            self = .whole
            return
        }
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard size > 0, parts.count == 2 else {
            self = .unsatisfiable
            return
        }
        if parts[0].isEmpty {
            guard let suffix = DemoRequest.position(parts[1]), suffix > 0 else {
                self = .unsatisfiable
                return
            }
            self = .part(first: max(0, size - suffix), last: size - 1)
        } else {
            // An end past the largest integer means the body's end (RFC 9110, section 14.1.1).
            guard let start = DemoRequest.position(parts[0]), start < size,
                  let end = parts[1].isEmpty ? size - 1 : DemoRequest.position(parts[1]).map({ min($0, size - 1) }), end >= start else {
                self = .unsatisfiable
                return
            }
            self = .part(first: start, last: end)
        }
    }
}

/// Reproducible bodies, so a test can compare what it downloaded with what it should have.
public enum DeterministicBytes {
    /// Pseudo-random bytes from a seed: run `i` of eight bytes is SplitMix64's `i + 1`th output
    /// for the seed, so any stretch of the sequence is made without the bytes before it (the demo
    /// server sends a large body piece by piece as it makes it).
    public static func random(count: Int, seed: UInt64) -> [UInt8] {
        random(seed: seed, from: 0, count: count)
    }

    /// The bytes `from ..< from + count` of the sequence `random(count:seed:)` starts.
    public static func random(seed: UInt64, from start: Int, count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var position = start
            var index = 0
            while index < count {
                let word = mixed(seed &+ (UInt64(position / 8) &+ 1) &* 0x9E37_79B9_7F4A_7C15)
                let skip = position % 8
                let take = min(8 - skip, count - index)
                for byte in 0..<take {
                    buffer[index + byte] = UInt8(truncatingIfNeeded: word >> UInt64((skip + byte) * 8))
                }
                index += take
                position += take
            }
            initialized = count
        }
    }

    /// SplitMix64's finalizer.
    private static func mixed(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// "abcdefghijklmnopqrstuvwxyz" repeated to `count` bytes.
    public static func alphabet(count: Int) -> [UInt8] {
        (0..<count).map { UInt8(ascii: "a") + UInt8($0 % 26) }
    }
}
