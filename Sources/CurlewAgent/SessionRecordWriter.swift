import Foundation

/// Writes session log records as JSON bytes directly. The logger writes one record per request,
/// and JSONEncoder cost more than the request itself; the output has the same keys and formats,
/// so the Codable reader reads it unchanged.
struct SessionRecordWriter {
    private(set) var bytes: [UInt8]
    /// Whether the innermost open object or array has no member yet (no comma before the next).
    private var atFirstMember = true

    init(appendingTo bytes: [UInt8] = []) {
        self.bytes = bytes
    }

    /// One debug message as a `"type":"message"` line, with a delegate's `custom` data if any.
    static func messageLine(_ message: DebugMessage, custom: JSONValue?) -> [UInt8] {
        var bytes: [UInt8] = []
        appendMessageLine(message, custom: custom, to: &bytes)
        return bytes
    }

    /// Appends the line for `message` to `bytes`, building it in place.
    static func appendMessageLine(_ message: DebugMessage, custom: JSONValue?, to bytes: inout [UInt8]) {
        var writer = SessionRecordWriter(appendingTo: bytes)
        bytes = []
        writer.message(message, custom: custom)
        writer.bytes.append(0x0A)
        bytes = writer.bytes
    }

    private mutating func message(_ message: DebugMessage, custom: JSONValue?) {
        openObject()
        key("type"); string("message")
        SessionRecordSummary(message).write(to: &self)
        key("requestID"); integer(Int64(message.requestID))
        if let name = message.name { key("name"); string(name) }
        if let groupID = message.groupID { key("groupID"); integer(Int64(groupID)) }
        if let step = message.step { key("step"); integer(Int64(step)) }
        key("state"); string(message.state.rawValue)
        key("startedAt"); date(message.startedAt)
        if let original = message.original { key("original"); composed(original) }
        if let sent = message.sent {
            key("sent")
            openObject()
            key("head"); string(sent.head)
            if let body = sent.body { key("body"); self.body(body) }
            closeObject()
        }
        if let response = message.response { key("response"); self.response(response) }
        if let error = message.error {
            key("error")
            openObject()
            key("kind"); string(error.kind.rawValue)
            key("message"); string(error.message)
            if let code = error.code { key("code"); integer(Int64(code)) }
            closeObject()
        }
        if let timings = message.timings { key("timings"); self.timings(timings) }
        if let connection = message.connection { key("connection"); self.connection(connection) }
        key("callbackQueue"); string(message.callbackQueue)
        if let pipeline = message.pipeline { key("pipeline"); self.pipeline(pipeline) }
        if let transfer = message.transfer { key("transfer"); self.transfer(transfer) }
        if let stream = message.stream { key("stream"); self.stream(stream) }
        if let custom { key("custom"); json(custom) }
        closeObject()
    }

    // MARK: Structure

    mutating func openObject() {
        bytes.append(UInt8(ascii: "{"))
        atFirstMember = true
    }

    mutating func closeObject() {
        bytes.append(UInt8(ascii: "}"))
        atFirstMember = false
    }

    /// A member name and its colon, after a comma unless it is the object's first member.
    mutating func key(_ name: StaticString) {
        if !atFirstMember { bytes.append(UInt8(ascii: ",")) }
        atFirstMember = false
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    mutating func array<Element>(_ elements: [Element], _ write: (inout SessionRecordWriter, Element) -> Void) {
        bytes.append(UInt8(ascii: "["))
        for (index, element) in elements.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            write(&self, element)
        }
        bytes.append(UInt8(ascii: "]"))
        atFirstMember = false
    }

    // MARK: Values

    mutating func string(_ text: String) {
        var text = text
        text.withUTF8 { string(utf8: $0) }
    }

    /// A JSON string from UTF-8 bytes, escaping quotes, backslashes and control characters.
    private mutating func string(utf8: UnsafeBufferPointer<UInt8>) {
        bytes.append(UInt8(ascii: "\""))
        var runStart = 0
        for index in 0..<utf8.count {
            let byte = utf8[index]
            guard byte < 0x20 || byte == 0x22 || byte == 0x5C else { continue }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
            appendEscaped(byte)
            runStart = index + 1
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count]))
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

    /// Decimal digits written straight into the buffer (no String made per number).
    mutating func integer(_ value: Int64) {
        guard value != 0 else { bytes.append(UInt8(ascii: "0")); return }
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // room for 24 digits (19 at most), on the stack
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            while magnitude > 0 {
                buffer[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            }
            for index in stride(from: count - 1, through: 0, by: -1) { bytes.append(buffer[index]) }
        }
    }

    mutating func optionalInteger(_ value: Int64?) {
        if let value { integer(value) } else { bytes.append(contentsOf: "null".utf8) }
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
            writer.openObject()
            writer.key("name"); writer.string(field.name)
            writer.key("value"); writer.string(field.value)
            writer.closeObject()
        }
    }

    /// A body as text when its kept bytes are UTF-8, else as base64.
    mutating func body(_ body: BodySnapshot) {
        openObject()
        key("size"); integer(body.size)
        if let type = body.contentType { key("contentType"); string(type) }
        if let text = body.text {
            key("encoding"); string("utf8")
            key("content"); string(text)
        } else {
            key("encoding"); string("base64")
            key("content"); string(body.data.base64EncodedString())
        }
        key("truncated"); boolean(body.isTruncated)
        closeObject()
    }

    mutating func composed(_ request: ComposedRequest) {
        openObject()
        key("method"); string(request.method)
        key("url"); string(request.url)
        key("headers"); headers(request.headers)
        key("params"); json(request.params)
        if let body = request.body { key("body"); self.body(body) }
        key("timeoutMilliseconds"); integer(request.timeoutMilliseconds)
        if !request.automaticHeaders.isEmpty {
            key("automaticHeaders"); array(request.automaticHeaders) { $0.string($1) }
        }
        closeObject()
    }

    mutating func response(_ response: ResponseSnapshot) {
        openObject()
        key("statusCode"); integer(Int64(response.statusCode))
        key("statusLine"); string(response.statusLine)
        key("httpVersion"); string(response.httpVersion)
        key("headers"); headers(response.headers)
        key("body"); body(response.body)
        closeObject()
    }

    mutating func timings(_ timings: TimingBreakdown) {
        openObject()
        key("queued"); integer(timings.queued)
        if let dns = timings.dns { key("dns"); integer(dns) }
        if let connect = timings.connect { key("connect"); integer(connect) }
        if let tls = timings.tls { key("tls"); integer(tls) }
        key("send"); integer(timings.send)
        key("wait"); integer(timings.wait)
        key("receive"); integer(timings.receive)
        if let redirect = timings.redirect { key("redirect"); integer(redirect) }
        key("total"); integer(timings.total)
        closeObject()
    }

    /// The pipeline record with `PipelineRecord`'s Codable keys (absent optionals left out).
    mutating func pipeline(_ record: PipelineRecord) {
        openObject()
        key("source"); string(record.source.rawValue)
        key("cache"); array(record.cache) { $0.string($1.rawValue) }
        if let cacheKey = record.cacheKey { key("cacheKey"); string(cacheKey) }
        if let mock = record.mock { key("mock"); string(mock) }
        key("attempt"); integer(Int64(record.attempt))
        key("attempts"); array(record.attempts) { writer, attempt in
            writer.openObject()
            writer.key("number"); writer.integer(Int64(attempt.number))
            writer.key("requestID"); writer.integer(Int64(attempt.requestID))
            if let status = attempt.status { writer.key("status"); writer.integer(Int64(status)) }
            if let error = attempt.error { writer.key("error"); writer.string(error) }
            if let delay = attempt.delayBeforeNextMilliseconds { writer.key("delayBeforeNextMilliseconds"); writer.integer(delay) }
            writer.key("decision"); writer.string(attempt.decision)
            writer.closeObject()
        }
        if let signer = record.signer { key("signer"); string(signer) }
        key("filters"); array(record.filters) { $0.string($1) }
        key("plugins"); array(record.plugins) { $0.string($1) }
        if let duplicate = record.duplicate { key("duplicate"); string(duplicate) }
        if let reachability = record.reachability { key("reachability"); string(reachability) }
        key("checks"); array(record.checks) { $0.string($1) }
        key("notes"); array(record.notes) { $0.string($1) }
        closeObject()
    }

    /// The stream record with `StreamRecord`'s Codable keys (absent optionals left out).
    mutating func stream(_ record: StreamRecord) {
        openObject()
        key("chunks"); integer(Int64(record.chunks))
        key("bytes"); integer(record.bytes)
        key("eventCount"); integer(Int64(record.eventCount))
        key("events"); array(record.events) { writer, event in
            writer.openObject()
            writer.key("event"); writer.string(event.event)
            writer.key("data"); writer.string(event.data)
            if let id = event.id { writer.key("id"); writer.string(id) }
            if let retry = event.retryMilliseconds { writer.key("retryMilliseconds"); writer.integer(Int64(retry)) }
            writer.key("receivedAt"); writer.date(event.receivedAt)
            writer.closeObject()
        }
        if let id = record.lastEventID { key("lastEventID"); string(id) }
        if let retry = record.retryMilliseconds { key("retryMilliseconds"); integer(Int64(retry)) }
        key("reconnectAttempt"); integer(Int64(record.reconnectAttempt))
        closeObject()
    }

    /// The transfer record with `TransferRecord`'s Codable keys (absent optionals left out).
    mutating func transfer(_ record: TransferRecord) {
        openObject()
        if let file = record.uploadFile { key("uploadFile"); string(file) }
        if let bytes = record.uploadBytes { key("uploadBytes"); integer(bytes) }
        key("formParts"); array(record.formParts) { writer, part in
            writer.openObject()
            writer.key("name"); writer.string(part.name)
            if let filename = part.filename { writer.key("filename"); writer.string(filename) }
            if let type = part.contentType { writer.key("contentType"); writer.string(type) }
            if let file = part.file { writer.key("file"); writer.string(file) }
            writer.key("size"); writer.integer(part.size)
            if let value = part.value { writer.key("value"); writer.string(value) }
            writer.closeObject()
        }
        if let destination = record.downloadDestination { key("downloadDestination"); string(destination) }
        if let offset = record.resumeRequestedFrom { key("resumeRequestedFrom"); integer(offset) }
        if let download = record.download {
            key("download")
            openObject()
            key("path"); string(download.path)
            key("completed"); boolean(download.completed)
            key("partialPath"); string(download.partialPath)
            key("bytesWritten"); integer(download.bytesWritten)
            key("fileSize"); integer(download.fileSize)
            if let offset = download.resumedFrom { key("resumedFrom"); integer(offset) }
            if let offset = download.restartedFrom { key("restartedFrom"); integer(offset) }
            key("resumable"); boolean(download.resumable)
            closeObject()
        }
        key("bodyInTemporaryFile"); boolean(record.bodyInTemporaryFile)
        closeObject()
    }

    mutating func connection(_ connection: ConnectionInfo) {
        openObject()
        key("httpVersion"); string(connection.httpVersion)
        key("remoteIP"); string(connection.remoteIP)
        key("remotePort"); integer(Int64(connection.remotePort))
        key("localIP"); string(connection.localIP)
        key("localPort"); integer(Int64(connection.localPort))
        key("reused"); boolean(connection.reused)
        key("newConnections"); integer(Int64(connection.newConnections))
        key("redirectCount"); integer(Int64(connection.redirectCount))
        key("effectiveURL"); string(connection.effectiveURL)
        key("bytesSent"); integer(connection.bytesSent)
        key("bytesReceived"); integer(connection.bytesReceived)
        if let uses = connection.requestsOnConnection { key("requestsOnConnection"); integer(Int64(uses)) }
        if let tls = connection.tls {
            key("tls")
            openObject()
            key("version"); string(tls.version)
            key("cipher"); string(tls.cipher)
            key("alpn"); string(tls.alpn)
            key("certificates"); array(tls.certificates) { writer, certificate in
                writer.openObject()
                writer.key("subject"); writer.string(certificate.subject)
                writer.key("issuer"); writer.string(certificate.issuer)
                writer.key("alternativeNames"); writer.array(certificate.alternativeNames) { $0.string($1) }
                writer.key("notBefore"); writer.string(certificate.notBefore)
                writer.key("notAfter"); writer.string(certificate.notAfter)
                writer.key("publicKeyPin"); writer.string(certificate.publicKeyPin)
                writer.closeObject()
            }
            closeObject()
        }
        closeObject()
    }
}
