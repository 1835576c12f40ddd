import CurlewAgent
import Foundation

/// Reads HAR 1.2 files as browsers and other tools write them: a byte-order mark, vendor `_`
/// fields, missing optional fields, timestamps with local offsets. Each entry becomes a debug
/// message (for the log browser and `curlew log`) and a request (for a workspace).
public enum HARImport {
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public var reason: String
        public var description: String { reason }
    }

    /// Headers a browser lists that are not to be sent again: HTTP/2 pseudo-headers, framing
    /// and connection headers the transport sets itself, and `accept-encoding` (the agent asks
    /// for no compression, so a body would come back in a coding it does not decode).
    public static let headersNotToResend: Set<String> = [":method", ":path", ":scheme", ":authority", "content-length", "host", "transfer-encoding",
                                                  "connection", "keep-alive", "te", "upgrade", "proxy-connection", "accept-encoding"]

    /// Each entry as a debug message, numbered from 1. An entry without a request method and URL
    /// (HAR requires both) refuses the file, naming the entry: a row made up for it would show a
    /// request nobody sent. Both may be empty in an entry that failed before anything was sent
    /// (no status, and an `_error` text, as Curlew's export writes a request refused before it
    /// was composed).
    public static func messages(_ data: Data) throws(Failure) -> [DebugMessage] {
        try entries(data).enumerated().map { (index, entry) throws(Failure) in try message(entry, id: UInt64(index + 1)) }
    }

    /// Each entry as a request to keep in a workspace, with its host as the folder.
    public static func collection(_ data: Data) throws(Failure) -> ImportedCollection {
        var collection = ImportedCollection()
        collection.isLiteral = true
        for message in try messages(data) {
            guard let original = message.original, !original.method.isEmpty, !original.url.isEmpty else {
                collection.notes.append("entry \(message.requestID) failed before it was sent and has no \(message.original?.url.isEmpty == false ? "method" : "URL"); it is left out")
                continue
            }
            let name = ImportedCollection.defaultName(method: original.method, url: original.url, sentWith: original.headers)
            var request = Request.url(original.url, method: HTTPMethod(rawValue: original.method))
            // A value hidden when the HAR was written is not the value to send: such headers
            // are left out, and a hidden value elsewhere is pointed out.
            let redacted = original.headers.filter { $0.value.contains(RedactionPolicy.marker) }
            if !redacted.isEmpty {
                collection.notes.append("\(name): \(redacted.map(\.name).joined(separator: ", ")) had redacted values and \(redacted.count == 1 ? "is" : "are") left out")
            }
            request.headers = HTTPHeaders(original.headers.filter { !headersNotToResend.contains($0.name.lowercased()) && !$0.value.contains(RedactionPolicy.marker) })
            if original.url.contains(RedactionPolicy.marker) || original.url.contains(Parameters.percentEncode(RedactionPolicy.marker)) {
                collection.notes.append("\(name): the URL holds a redacted value; replace \(RedactionPolicy.marker) before sending it")
            }
            if let body = original.body, !body.data.isEmpty {
                if body.data.range(of: Data(RedactionPolicy.marker.utf8)) != nil {
                    collection.notes.append("\(name): the body holds a redacted value; replace \(RedactionPolicy.marker) before sending it")
                }
                request.requestSerializer = .raw(body.data, contentType: body.contentType ?? "application/octet-stream")
            }
            collection.items.append(.init(name: name, folder: URLComponents(string: original.url)?.host, request: request))
        }
        return collection
    }

    private static func entries(_ data: Data) throws(Failure) -> [JSONValue] {
        let document: JSONValue
        do { document = try JSONValue.parse(data.withoutByteOrderMark) } catch {
            throw Failure(reason: "not JSON: \(error)")
        }
        guard case .array(let entries)? = document["log"]?["entries"] else { throw Failure(reason: "not a HAR file: no log.entries list") }
        return entries
    }

    static func message(_ entry: JSONValue, id: UInt64) throws(Failure) -> DebugMessage {
        guard case .object = entry else { throw Failure(reason: "entry \(id) is not an object") }
        guard let request = entry["request"], case .object = request else {
            throw Failure(reason: "entry \(id) has no request (a HAR entry needs one, with its method and URL)")
        }
        let response = entry["response"]
        let status = number(response?["status"]).flatMap { (0...999).contains($0) ? Int($0) : nil } ?? 0
        // No answer, and the error Curlew's export writes for it.
        let failedUnsent = status == 0 && response?["_error"]?.stringValue != nil
        guard let method = request["method"]?.stringValue, !method.isEmpty || failedUnsent else {
            throw Failure(reason: "entry \(id)'s request has no method")
        }
        guard let url = request["url"]?.stringValue, !url.isEmpty || failedUnsent else {
            throw Failure(reason: "entry \(id)'s request has no URL")
        }
        let requestHeaders = headers(request["headers"])
        var requestBody: BodySnapshot?
        if let post = request["postData"] {
            let type = post["mimeType"]?.stringValue
            var bytes = Data((post["text"]?.stringValue ?? "").utf8)
            if bytes.isEmpty, case .array(let params)? = post["params"] {
                bytes = Data(params.map { "\($0["name"]?.textValue ?? "")=\($0["value"]?.textValue ?? "")" }.joined(separator: "&").utf8)
            }
            if !bytes.isEmpty { requestBody = BodySnapshot(kept: bytes, size: Int64(bytes.count), contentType: type) }
        }
        let original = ComposedRequest(method: method, url: url, headers: requestHeaders, params: .null, body: requestBody, timeoutMilliseconds: 0)
        var snapshot: ResponseSnapshot?
        var error: RequestError?
        if status > 0 {
            let content = response?["content"]
            var body = Data((content?["text"]?.stringValue ?? "").utf8)
            if content?["encoding"]?.stringValue == "base64", let decoded = Data(base64Encoded: content?["text"]?.stringValue ?? "") { body = decoded }
            let declared = number(content?["size"]).flatMap { (0...Double(1 << 50)).contains($0) ? Int64($0) : nil }
            // Curlew's own export says whether the text is all of the body (redaction may have made
            // it longer or shorter than its size); another tool's is read from the sizes.
            let said: Bool? = if case .bool(let truncated)? = content?["_truncated"] { truncated } else { nil }
            let size = said == nil ? max(Int64(body.count), declared ?? 0) : declared ?? Int64(body.count)
            let keptBody = BodySnapshot(kept: body, size: size, truncated: said ?? (Int64(body.count) < size), contentType: content?["mimeType"]?.stringValue)
            let version = response?["httpVersion"]?.stringValue ?? ""
            let statusText = response?["statusText"]?.stringValue ?? ""
            snapshot = ResponseSnapshot(statusCode: status, statusLine: "\(version.isEmpty ? "HTTP/1.1" : version) \(status) \(statusText)",
                                        httpVersion: versionNumber(version), headers: headers(response?["headers"]),
                                        body: keptBody)
        }
        // An answer the agent then failed (a check, a chain's capture) has its error beside it,
        // as Curlew's export writes it; no answer always has one.
        // Browsers write `"_error": null` beside every answer: only a text is an error.
        if status == 0 || response?["_error"]?.stringValue != nil { error = Self.error(response?["_error"]?.stringValue) }
        let state: RequestState = error.map { $0.kind == .cancelled ? .cancelled : .failed } ?? .succeeded
        return DebugMessage(requestID: id, name: entry["_name"]?.stringValue, state: state,
                            startedAt: date(entry["startedDateTime"]?.stringValue) ?? Date(timeIntervalSince1970: 0),
                            original: original, sent: nil, response: snapshot, error: error, timings: timings(entry["timings"], time: entry["time"]),
                            connection: nil, callbackQueue: "har")
    }

    /// The error Curlew's HAR export wrote in `_error` (`kind: message (code N)`) as it was;
    /// another tool's text as an error of kind `other`.
    static func error(_ text: String?) -> RequestError {
        guard let text else { return RequestError(.other, "no response") }
        guard let colon = text.range(of: ": "), let kind = RequestError.Kind(rawValue: String(text[..<colon.lowerBound])) else {
            return RequestError(.other, text)
        }
        var message = String(text[colon.upperBound...])
        var code: Int?
        if message.hasSuffix(")"), let open = message.range(of: " (code ", options: .backwards),
           let number = Int(message[open.upperBound..<message.index(before: message.endIndex)]) {
            code = number
            message = String(message[..<open.lowerBound])
        }
        return RequestError(kind, message, code: code)
    }

    /// A HAR's `httpVersion` (`HTTP/1.1`, `http/2.0`, `h2`, `h3`) as the agent names versions:
    /// `1.1`, `2`, `3`; anything else as it is.
    static func versionNumber(_ version: String) -> String {
        let lowered = version.lowercased()
        let number = lowered.hasPrefix("http/") ? String(lowered.dropFirst(5)) : lowered == "h2" ? "2" : lowered == "h3" ? "3" : version
        return number == "2.0" ? "2" : number == "3.0" ? "3" : number
    }

    /// HAR's phases (milliseconds, -1 for none, `ssl` inside `connect`) as Curlew's (microseconds).
    static func timings(_ value: JSONValue?, time: JSONValue?) -> TimingBreakdown? {
        // Curlew's export of an exchange never measured (refused before sending).
        guard let value, value["_unmeasured"] != .bool(true) else { return nil }
        func phase(_ key: String) -> Int64? {
            guard let ms = number(value[key]), ms >= 0, ms < 1e9 else { return nil }
            return Int64((ms * 1000).rounded())
        }
        let ssl = phase("ssl")
        let connect = phase("connect").map { max(0, $0 - (ssl ?? 0)) }
        let send = phase("send") ?? 0, wait = phase("wait") ?? 0, receive = phase("receive") ?? 0
        // `_redirect`: the redirects before the last hop, as Curlew's HAR export writes them.
        let redirect = phase("_redirect")
        let phases = [phase("dns"), connect, ssl, send, wait, receive, redirect].compactMap { $0 }.reduce(0, +)
        let total = number(time).flatMap { $0 >= 0 && $0 < 1e9 ? Int64(($0 * 1000).rounded()) : nil }.map { max($0 - (phase("blocked") ?? 0), phases) } ?? phases
        return TimingBreakdown(queued: phase("blocked") ?? 0, dns: phase("dns"), connect: connect, tls: ssl, send: send, wait: wait,
                               receive: receive, redirect: redirect, total: total)
    }

    private static func headers(_ value: JSONValue?) -> [HeaderField] {
        guard case .array(let fields)? = value else { return [] }
        return fields.compactMap { field in
            guard let name = field["name"]?.stringValue else { return nil }
            return HeaderField(name: name, value: field["value"]?.textValue ?? "")
        }
    }

    private static func number(_ value: JSONValue?) -> Double? {
        switch value {
        case .int(let number)?: Double(number)
        case .double(let number)? where number.isFinite: number
        default: nil
        }
    }

    /// ISO 8601 with or without fractional seconds, with `Z` or a local offset. The fraction is
    /// read whole (the formatter keeps its first three digits, cut: `.6316` would show as
    /// `.631` where a session log's `.6316` shows as `.632`).
    static func date(_ text: String?) -> Date? {
        guard let text else { return nil }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        // A fraction follows the seconds only: `YYYY-MM-DDTHH:MM:SS.` puts its dot at offset 19.
        guard let dot = text.firstIndex(of: ".") else { return formatter.date(from: text) }
        guard text.utf8.distance(from: text.startIndex, to: dot) == 19 else { return nil }
        let digitsStart = text.index(after: dot)
        let digitsEnd = text[digitsStart...].firstIndex { !($0.isASCII && $0.isNumber) } ?? text.endIndex
        let digits = text[digitsStart..<digitsEnd]
        guard !digits.isEmpty, let whole = formatter.date(from: String(text[..<dot]) + String(text[digitsEnd...])) else { return nil }
        // The seconds and their fraction read as one number, the nearest a `Double` holds.
        let seconds = Int64(whole.timeIntervalSince1970.rounded())
        guard seconds >= 0, let exact = Double("\(seconds).\(digits)") else { return Double("0." + digits).map(whole.addingTimeInterval) }
        return Date(timeIntervalSince1970: exact)
    }
}
