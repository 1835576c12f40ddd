import Foundation

/// A response the demo server writes byte for byte, so the fault endpoints can break HTTP on purpose.
struct DemoResponse: Sendable {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    static func json(_ object: Any, status: Int = 200, headers: [(name: String, value: String)] = []) -> DemoResponse {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return DemoResponse(status: status, headers: [("Content-Type", "application/json")] + headers, body: Array(data) + [0x0A])
    }

    static func text(_ text: String, status: Int = 200) -> DemoResponse {
        DemoResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Array(text.utf8))
    }

    /// Status line and header block. `Content-Length` is added unless a framing header is present.
    func head(keepAlive: Bool, bodyLength: Int?) -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(Self.reason(for: status))\r\n"
        for header in headers { text += "\(header.name): \(header.value)\r\n" }
        let framed = headers.contains { ["content-length", "transfer-encoding"].contains($0.name.lowercased()) }
        if !framed, let bodyLength { text += "Content-Length: \(bodyLength)\r\n" }
        text += "Server: curlew-demo\r\n"
        text += keepAlive ? "Connection: keep-alive\r\n" : "Connection: close\r\n"
        text += "\r\n"
        return Array(text.utf8)
    }

    static func reason(for status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        case 412: "Precondition Failed"
        case 413: "Payload Too Large"
        case 416: "Range Not Satisfiable"
        case 418: "I'm a teapot"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "Status \(status)"
        }
    }
}

/// What the connection handler does for one request.
enum DemoAction: Sendable {
    case respond(DemoResponse)
    /// Waits, then responds.
    case delay(seconds: Double, DemoResponse)
    /// Sends the head, waits `delay` seconds, then sends the pieces one by one with `interval`
    /// between them (all in one write without an interval). `chunked` frames them with chunked
    /// transfer encoding; otherwise the head carries the full Content-Length.
    case paced(DemoResponse, pieces: [[UInt8]], interval: Double, chunked: Bool, delay: Double = 0)
    /// As `paced` with chunked framing, then closes the connection without the last chunk: a
    /// stream that drops.
    case pacedThenDrop(DemoResponse, pieces: [[UInt8]], interval: Double)
    /// Sends the head and part of the body, then resets the connection (RST).
    case resetMidBody(DemoResponse, sentBytes: Int)
    /// Closes the connection without a response.
    case closeWithoutResponse
    /// Responds, keeping the connection open, then closes it without an answer when the next
    /// request arrives on it.
    case respondThenDropNext(DemoResponse)
    /// Sends the head, then nothing, keeping the connection open.
    case stallAfterHead(DemoResponse)
    /// Writes these bytes as they are, then closes.
    case rawThenClose([UInt8])
    /// Sends the head (which carries the Content-Length), then the body as it is generated,
    /// each piece after the previous one left, paced and cut as the body says.
    case generated(DemoResponse, GeneratedBody)
}
