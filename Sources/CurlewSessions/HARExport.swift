import CurlewAgent
import Foundation

/// HAR 1.2 (the W3C draft browsers export) of debug messages: one entry per exchange, with
/// every required field. Timings follow the format's rules: `ssl` is inside `connect`, a phase
/// that did not happen is -1, and `time` is the sum of the phases that did. A request that got
/// no answer has `status: 0` and its error in `response._error`. Bodies are text, or base64
/// when they are not UTF-8. Pass messages through a `RedactionPolicy` first to keep secrets out.
public enum HARExport {
    /// The HAR document (`{"log": …}`) of the messages that have a request.
    public static func document(_ messages: [DebugMessage]) -> JSONValue {
        [
            "log": [
                "version": "1.2",
                "creator": ["name": "curlew", "version": .string(CurlewVersion.current)],
                "entries": .array(messages.filter { $0.original != nil }.map(entry)),
            ],
        ]
    }

    /// `document(_:)` as pretty-printed JSON.
    public static func data(_ messages: [DebugMessage]) -> Data {
        Data(document(messages).serialized(pretty: true).utf8)
    }

    static func entry(_ message: DebugMessage) -> JSONValue {
        let phases = timings(message.timings)
        var members: [JSONMember] = [
            JSONMember("startedDateTime", .string(startedDateTime(message.startedAt))),
            JSONMember("time", .double(phases.total)),
            JSONMember("request", request(message)),
            JSONMember("response", response(message)),
            JSONMember("cache", [:]),
            JSONMember("timings", phases.value),
        ]
        if let connection = message.connection {
            if !connection.remoteIP.isEmpty { members.append(JSONMember("serverIPAddress", .string(connection.remoteIP))) }
        }
        if let name = message.name { members.append(JSONMember("_name", .string(name))) }
        return .object(members)
    }

    /// `2026-12-03T11:38:02.887Z`: the nearest millisecond, so a HAR read and written again
    /// keeps its times (a cut would take a millisecond off each time).
    static func startedDateTime(_ date: Date) -> String {
        let (second, milliseconds) = date.roundedToMilliseconds
        let text = second.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: false).timeZone(separator: .omitted))
        guard text.hasSuffix("Z") else { return text }
        return text.dropLast() + "." + String(milliseconds + 1000).dropFirst() + "Z"
    }

    static func request(_ message: DebugMessage) -> JSONValue {
        let original = message.original!
        let requestLine = message.sentRequestLine ?? ""
        let httpVersion = requestLine.split(separator: " ").last.map(String.init) ?? "HTTP/1.1"
        let headers = message.sentHeaders
        var members: [JSONMember] = [
            JSONMember("method", .string(original.method)),
            JSONMember("url", .string(original.url)),
            JSONMember("httpVersion", .string(httpVersion.hasPrefix("HTTP/") ? httpVersion : "HTTP/1.1")),
            JSONMember("cookies", .array(cookies(in: headers, header: "cookie"))),
            JSONMember("headers", .array(headers.map { ["name": .string($0.name), "value": .string($0.value)] })),
            JSONMember("queryString", .array(query(of: original.url))),
            JSONMember("headersSize", .int(message.sent.map { Int64($0.head.utf8.count) } ?? -1)),
            JSONMember("bodySize", .int((message.sent?.body ?? original.body)?.size ?? 0)),
        ]
        if let body = message.sent?.body ?? original.body, body.size > 0 {
            // The type the body went out under: the header sent (a multipart body's boundary is
            // only there), else the body's own.
            let type = headerValue(headers, "content-type") ?? body.contentType ?? "application/octet-stream"
            var postData: [JSONMember] = [JSONMember("mimeType", .string(type))]
            postData.append(JSONMember("text", .string(body.text ?? body.data.base64EncodedString())))
            if body.text == nil { postData.append(JSONMember("_encoding", "base64")) }
            members.append(JSONMember("postData", .object(postData)))
        }
        return .object(members)
    }

    static func response(_ message: DebugMessage) -> JSONValue {
        guard let response = message.response else {
            var members: [JSONMember] = [
                JSONMember("status", 0), JSONMember("statusText", ""), JSONMember("httpVersion", ""),
                JSONMember("cookies", []), JSONMember("headers", []),
                JSONMember("content", ["size": 0, "mimeType": "x-unknown"]),
                JSONMember("redirectURL", ""), JSONMember("headersSize", -1), JSONMember("bodySize", -1),
            ]
            if let error = message.error { members.append(JSONMember("_error", .string(error.description))) }
            return .object(members)
        }
        let statusText = response.statusLine.split(separator: " ", maxSplits: 2).dropFirst(2).first.map(String.init) ?? ""
        var content: [JSONMember] = [
            JSONMember("size", .int(response.body.size)),
            JSONMember("mimeType", .string(response.body.contentType ?? headerValue(response.headers, "content-type") ?? "x-unknown")),
        ]
        if !response.body.data.isEmpty {
            if let text = response.body.text {
                content.append(JSONMember("text", .string(text)))
            } else {
                content.append(JSONMember("text", .string(response.body.data.base64EncodedString())))
                content.append(JSONMember("encoding", "base64"))
            }
            if response.body.isTruncated { content.append(JSONMember("comment", .string("the first part of a body of \(response.body.size) bytes"))) }
        }
        // Whether the text is all of the body: its length need not say (redaction changes it).
        content.append(JSONMember("_truncated", .bool(response.body.isTruncated)))
        var members: [JSONMember] = [
            JSONMember("status", .int(Int64(response.statusCode))),
            JSONMember("statusText", .string(statusText)),
            JSONMember("httpVersion", .string(response.httpVersion.hasPrefix("HTTP") ? response.httpVersion : "HTTP/\(response.httpVersion)")),
            JSONMember("cookies", .array(cookies(in: response.headers, header: "set-cookie"))),
            JSONMember("headers", .array(response.headers.map { ["name": .string($0.name), "value": .string($0.value)] })),
            JSONMember("content", .object(content)),
            JSONMember("redirectURL", .string(headerValue(response.headers, "location") ?? "")),
            JSONMember("headersSize", -1),
            JSONMember("bodySize", .int(response.body.size)),
        ]
        if let error = message.error { members.append(JSONMember("_error", .string(error.description))) }
        return .object(members)
    }

    /// HAR's phases in milliseconds: -1 for what did not happen, `connect` including `ssl`. The
    /// redirects libcurl followed before the last hop have no HAR phase: they go in `_redirect`
    /// (HAR's way for a field of its own) and count in the total, so `time` is the exchange's.
    static func timings(_ breakdown: TimingBreakdown?) -> (value: JSONValue, total: Double) {
        guard let timings = breakdown else {
            // HAR wants send, wait and receive; `_unmeasured` says they are not zeros measured.
            return (["blocked": -1, "dns": -1, "connect": -1, "ssl": -1, "send": 0, "wait": 0, "receive": 0, "_unmeasured": true], 0)
        }
        func ms(_ microseconds: Int64) -> Double { (Double(microseconds) / 1000 * 1000).rounded() / 1000 }
        let blocked = timings.queued > 0 ? ms(timings.queued) : -1
        let dns = timings.dns.map(ms) ?? -1
        let ssl = timings.tls.map(ms) ?? -1
        let connect = timings.connect.map { ms($0.addingReportingOverflow(timings.tls ?? 0).overflow ? .max : $0 + (timings.tls ?? 0)) } ?? (timings.tls.map(ms) ?? -1)
        let send = ms(timings.send), wait = ms(timings.wait), receive = ms(timings.receive)
        let redirect = timings.redirect.flatMap { $0 > 0 ? ms($0) : nil }
        let total = [blocked, dns, connect, send, wait, receive, redirect ?? -1].filter { $0 >= 0 }.reduce(0, +)
        var members: [JSONMember] = [
            JSONMember("blocked", .double(blocked)), JSONMember("dns", .double(dns)), JSONMember("connect", .double(connect)),
            JSONMember("ssl", .double(ssl)), JSONMember("send", .double(send)), JSONMember("wait", .double(wait)),
            JSONMember("receive", .double(receive)),
        ]
        if let redirect { members.append(JSONMember("_redirect", .double(redirect))) }
        return (.object(members), (total * 1000).rounded() / 1000)
    }

    private static func headerValue(_ headers: [HeaderField], _ name: String) -> String? {
        headers.first { $0.name.lowercased() == name }?.value
    }

    private static func cookies(in headers: [HeaderField], header: String) -> [JSONValue] {
        headers.filter { $0.name.lowercased() == header }.flatMap { field -> [JSONValue] in
            let pairs = header == "cookie" ? field.value.split(separator: ";").map(String.init) : [String(field.value.split(separator: ";").first ?? "")]
            return pairs.compactMap { pair in
                guard let equals = pair.firstIndex(of: "=") else { return nil }
                return ["name": .string(pair[..<equals].trimmingCharacters(in: .whitespaces)),
                        "value": .string(String(pair[pair.index(after: equals)...]))]
            }
        }
    }

    private static func query(of url: String) -> [JSONValue] {
        guard let components = URLComponents(string: url), let items = components.queryItems else { return [] }
        return items.map { ["name": .string($0.name), "value": .string($0.value ?? "")] }
    }
}
