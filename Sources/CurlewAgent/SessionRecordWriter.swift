import Foundation

/// Writes session log records as JSON bytes directly. The logger writes one record per request,
/// and JSONEncoder cost more than the request itself; the output has the same keys and formats,
/// so the Codable reader reads it unchanged.
struct SessionRecordWriter {
    private(set) var bytes: [UInt8] = []

    init() {
        bytes.reserveCapacity(2048)
    }

    /// One debug message as a `"type":"message"` line, with a delegate's `custom` data if any.
    static func messageLine(_ message: DebugMessage, custom: JSONValue?) -> [UInt8] {
        var writer = SessionRecordWriter()
        writer.object { object in
            object.field("type") { $0.string("message") }
            object.field("requestID") { $0.integer(Int64(message.requestID)) }
            if let name = message.name { object.field("name") { $0.string(name) } }
            if let groupID = message.groupID { object.field("groupID") { $0.integer(Int64(groupID)) } }
            if let step = message.step { object.field("step") { $0.integer(Int64(step)) } }
            object.field("state") { $0.string(message.state.rawValue) }
            object.field("startedAt") { $0.date(message.startedAt) }
            if let original = message.original { object.field("original") { $0.composed(original) } }
            if let sent = message.sent {
                object.field("sent") { writer in
                    writer.object { sentObject in
                        sentObject.field("head") { $0.string(sent.head) }
                        if let body = sent.body { sentObject.field("body") { $0.body(body) } }
                    }
                }
            }
            if let response = message.response { object.field("response") { $0.response(response) } }
            if let error = message.error {
                object.field("error") { writer in
                    writer.object { errorObject in
                        errorObject.field("kind") { $0.string(error.kind.rawValue) }
                        errorObject.field("message") { $0.string(error.message) }
                        if let code = error.code { errorObject.field("code") { $0.integer(Int64(code)) } }
                    }
                }
            }
            if let timings = message.timings { object.field("timings") { $0.timings(timings) } }
            if let connection = message.connection { object.field("connection") { $0.connection(connection) } }
            object.field("callbackQueue") { $0.string(message.callbackQueue) }
            if let custom { object.field("custom") { $0.json(custom) } }
        }
        writer.bytes.append(0x0A)
        return writer.bytes
    }

    // MARK: Structure

    /// Writes `{...}`; `body` adds fields through the object writer.
    mutating func object(_ body: (inout ObjectWriter) -> Void) {
        var object = ObjectWriter(writer: self)
        bytes = []
        object.writer.bytes.append(UInt8(ascii: "{"))
        body(&object)
        object.writer.bytes.append(UInt8(ascii: "}"))
        self = object.writer
    }

    struct ObjectWriter {
        var writer: SessionRecordWriter
        private var first = true

        init(writer: SessionRecordWriter) {
            self.writer = writer
        }

        mutating func field(_ name: String, _ value: (inout SessionRecordWriter) -> Void) {
            if !first { writer.bytes.append(UInt8(ascii: ",")) }
            first = false
            writer.string(name)
            writer.bytes.append(UInt8(ascii: ":"))
            value(&writer)
        }
    }

    mutating func array<Element>(_ elements: [Element], _ write: (inout SessionRecordWriter, Element) -> Void) {
        bytes.append(UInt8(ascii: "["))
        for (index, element) in elements.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            write(&self, element)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    // MARK: Values

    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var runStart = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard byte < 0x20 || byte == 0x22 || byte == 0x5C else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                appendEscaped(byte)
                runStart = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func appendEscaped(_ byte: UInt8) {
        switch byte {
        case 0x22: bytes.append(contentsOf: [0x5C, 0x22])
        case 0x5C: bytes.append(contentsOf: [0x5C, 0x5C])
        case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
        case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
        case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
        default:
            let hex = Array("0123456789abcdef".utf8)
            bytes.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
        }
    }

    mutating func integer(_ value: Int64) {
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func boolean(_ value: Bool) {
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    mutating func json(_ value: JSONValue) {
        bytes.append(contentsOf: value.serialized().utf8)
    }

    /// ISO 8601 in UTC with milliseconds: 2026-11-21T06:37:59.308Z.
    mutating func date(_ date: Date) {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var seconds = time_t(milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000)
        let fraction = Int(milliseconds - Int64(seconds) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func digits(_ value: Int, _ count: Int) {
            var divisor = 1
            for _ in 1..<count { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor % 10))
                rest %= divisor
                divisor /= 10
            }
        }
        bytes.append(UInt8(ascii: "\""))
        digits(Int(parts.tm_year) + 1900, 4)
        bytes.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mon) + 1, 2)
        bytes.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mday), 2)
        bytes.append(UInt8(ascii: "T"))
        digits(Int(parts.tm_hour), 2)
        bytes.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_min), 2)
        bytes.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_sec), 2)
        bytes.append(UInt8(ascii: "."))
        digits(fraction, 3)
        bytes.append(contentsOf: "Z\"".utf8)
    }

    mutating func headers(_ fields: [HeaderField]) {
        array(fields) { writer, field in
            writer.object { object in
                object.field("name") { $0.string(field.name) }
                object.field("value") { $0.string(field.value) }
            }
        }
    }

    mutating func body(_ body: BodySnapshot) {
        object { object in
            object.field("size") { $0.integer(body.size) }
            if let type = body.contentType { object.field("contentType") { $0.string(type) } }
            if let text = body.text {
                object.field("encoding") { $0.string("utf8") }
                object.field("content") { $0.string(text) }
            } else {
                object.field("encoding") { $0.string("base64") }
                object.field("content") { $0.string(body.data.base64EncodedString()) }
            }
            object.field("truncated") { $0.boolean(body.isTruncated) }
        }
    }

    mutating func composed(_ request: ComposedRequest) {
        object { object in
            object.field("method") { $0.string(request.method) }
            object.field("url") { $0.string(request.url) }
            object.field("headers") { $0.headers(request.headers) }
            object.field("params") { $0.json(request.params) }
            if let body = request.body { object.field("body") { $0.body(body) } }
            object.field("timeoutMilliseconds") { $0.integer(request.timeoutMilliseconds) }
        }
    }

    mutating func response(_ response: ResponseSnapshot) {
        object { object in
            object.field("statusCode") { $0.integer(Int64(response.statusCode)) }
            object.field("statusLine") { $0.string(response.statusLine) }
            object.field("httpVersion") { $0.string(response.httpVersion) }
            object.field("headers") { $0.headers(response.headers) }
            object.field("body") { $0.body(response.body) }
        }
    }

    mutating func timings(_ timings: TimingBreakdown) {
        object { object in
            object.field("queued") { $0.integer(timings.queued) }
            if let dns = timings.dns { object.field("dns") { $0.integer(dns) } }
            if let connect = timings.connect { object.field("connect") { $0.integer(connect) } }
            if let tls = timings.tls { object.field("tls") { $0.integer(tls) } }
            object.field("send") { $0.integer(timings.send) }
            object.field("wait") { $0.integer(timings.wait) }
            object.field("receive") { $0.integer(timings.receive) }
            if let redirect = timings.redirect { object.field("redirect") { $0.integer(redirect) } }
            object.field("total") { $0.integer(timings.total) }
        }
    }

    mutating func connection(_ connection: ConnectionInfo) {
        object { object in
            object.field("httpVersion") { $0.string(connection.httpVersion) }
            object.field("remoteIP") { $0.string(connection.remoteIP) }
            object.field("remotePort") { $0.integer(Int64(connection.remotePort)) }
            object.field("localIP") { $0.string(connection.localIP) }
            object.field("localPort") { $0.integer(Int64(connection.localPort)) }
            object.field("reused") { $0.boolean(connection.reused) }
            object.field("newConnections") { $0.integer(Int64(connection.newConnections)) }
            object.field("redirectCount") { $0.integer(Int64(connection.redirectCount)) }
            object.field("effectiveURL") { $0.string(connection.effectiveURL) }
            object.field("bytesSent") { $0.integer(connection.bytesSent) }
            object.field("bytesReceived") { $0.integer(connection.bytesReceived) }
        }
    }
}
