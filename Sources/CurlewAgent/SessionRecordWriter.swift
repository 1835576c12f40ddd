import Foundation
import CurlewTransport

/// Writes session log records as JSON bytes directly. The logger writes one record per request,
/// and JSONEncoder cost more than the request itself; the output has the same keys and formats,
/// so the Codable reader reads it unchanged.
struct SessionRecordWriter {
    let output: AppendBuffer
    /// Whether the innermost open object or array has no member yet (no comma before the next).
    private var atFirstMember = true
    /// Bytes of a body kept when they read as text, and when they do not (written as base64).
    private var textBodyLimit = Int.max
    private var binaryBodyLimit = Int.max

    init(into output: AppendBuffer = AppendBuffer()) {
        self.output = output
    }

    /// What was written, as an array.
    var bytes: [UInt8] { output.array }

    /// One debug message as a `"type":"message"` line, with a delegate's `custom` data if any.
    static func messageLine(_ message: DebugMessage, custom: JSONValue?) -> [UInt8] {
        let output = AppendBuffer()
        appendMessageLine(message, custom: custom, to: output)
        return output.array
    }

    /// Appends the line for `message` to `output`, each body keeping at most `textBodyLimit`
    /// bytes when they read as text and `binaryBodyLimit` when they do not (with its full size
    /// and `truncated`).
    static func appendMessageLine(_ message: DebugMessage, custom: JSONValue?, to output: AppendBuffer,
                                  textBodyLimit: Int = .max, binaryBodyLimit: Int = .max) {
        var writer = SessionRecordWriter(into: output)
        writer.textBodyLimit = textBodyLimit
        writer.binaryBodyLimit = binaryBodyLimit
        writer.message(message, custom: custom)
        output.append(0x0A)
    }

    private mutating func message(_ message: borrowing DebugMessage, custom: JSONValue?) {
        openObject()
        key("type"); string("message")
        SessionRecordSummary(message).write(to: &self)
        key("requestID"); integer(Int64(message.requestID))
        if let first = message.firstExchangeID { key("firstExchangeID"); integer(Int64(first)) }
        if message.requestGoesOn == true { key("requestGoesOn"); boolean(true) }
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
        output.append(UInt8(ascii: "{"))
        atFirstMember = true
    }

    mutating func closeObject() {
        output.append(UInt8(ascii: "}"))
        atFirstMember = false
    }

    /// A member name and its colon, after a comma unless it is the object's first member.
    /// Inlined: each call site's name is a constant, so its length and bytes are known there.
    @inline(__always)
    mutating func key(_ name: StaticString) {
        let length = name.utf8CodeUnitCount
        let room = output.reserve(length + 4)
        var at = 0
        if !atFirstMember { room[0] = UInt8(ascii: ","); at = 1 }
        atFirstMember = false
        room[at] = UInt8(ascii: "\"")
        UnsafeMutableRawPointer(room + at + 1).copyMemory(from: name.utf8Start, byteCount: length)
        room[at + 1 + length] = UInt8(ascii: "\"")
        room[at + 2 + length] = UInt8(ascii: ":")
        output.commit(at + 3 + length)
    }

    mutating func array<Element>(_ elements: [Element], _ write: (inout SessionRecordWriter, Element) -> Void) {
        output.append(UInt8(ascii: "["))
        for (index, element) in elements.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            write(&self, element)
        }
        output.append(UInt8(ascii: "]"))
        atFirstMember = false
    }

    // MARK: Values

    mutating func string(_ text: String) {
        text.withUTF8Bytes { string(utf8: UnsafeRawBufferPointer($0)) }
    }

    /// A JSON string from UTF-8 bytes, escaping quotes, backslashes and control characters. The
    /// bytes are read and stored eight at a time in one pass: a word with nothing to escape is
    /// stored as it was loaded, so no run is copied a second time (a `memcpy` call per run cost
    /// more than the short strings of a record). One reservation holds the quotes, the bytes and
    /// room for some escapes, written in place; a string with more escapes than that reserves
    /// again. Pointers and wrapping arithmetic: the bounds are checked once, by the reservation,
    /// not at every step of the loops.
    private mutating func string(utf8 source: UnsafeRawBufferPointer) {
        guard let start = source.baseAddress, source.count > 0 else {
            output.append("\"\"" as StaticString)
            return
        }
        let end = start + source.count
        // Each escape writes at most five bytes beyond its own; a word store may write seven
        // bytes past what it commits.
        func reserve(for rest: Int) -> (room: UnsafeMutablePointer<UInt8>, slack: Int) {
            let slack = 16 &+ rest / 4
            return (output.reserve(rest &+ 1 &+ 7 &+ slack), slack)
        }
        var (room, slack) = reserve(for: source.count &+ 1)
        room[0] = UInt8(ascii: "\"")
        var written = 1
        var next = start
        while true {
            // Whole words while eight bytes are left, then byte by byte.
            var escape: UInt8? = nil
            while end - next >= 8 {
                let word = next.loadUnaligned(as: UInt64.self)
                // Stored whole even when it holds an escape: only the bytes before it count.
                UnsafeMutableRawPointer(room + written).storeBytes(of: word, as: UInt64.self)
                let flagged = ASCII.bytesJSONEscapes(in: UInt64(littleEndian: word))
                if flagged != 0 {
                    // The lowest flagged byte is always one to escape (a false flag only ever
                    // sits above a true one).
                    let clean = flagged.trailingZeroBitCount &>> 3
                    written &+= clean
                    next += clean
                    escape = next.load(as: UInt8.self)
                    break
                }
                written &+= 8
                next += 8
            }
            if escape == nil {
                while next < end {
                    let byte = next.load(as: UInt8.self)
                    if byte < 0x20 || byte == 0x22 || byte == 0x5C { escape = byte; break }
                    room[written] = byte
                    written &+= 1
                    next += 1
                }
            }
            guard let byte = escape else { break }
            if slack < 5 {
                output.commit(written)
                (room, slack) = reserve(for: end - next)
                written = 0
            }
            let length = Self.writeEscape(byte, to: room + written)
            written &+= length
            slack &-= length &- 1
            next += 1
        }
        room[written] = UInt8(ascii: "\"")
        output.commit(written &+ 1)
    }


    /// The escape for one byte, stored at `room` (which has six bytes for it); its length. A
    /// call that copies a two-byte literal cost more than the bytes, and a JSON body escapes every
    /// quote it has.
    @inline(__always)
    private static func writeEscape(_ byte: UInt8, to room: UnsafeMutablePointer<UInt8>) -> Int {
        room[0] = UInt8(ascii: "\\")
        switch byte {
        case 0x22, 0x5C: room[1] = byte
        case 0x0A: room[1] = UInt8(ascii: "n")
        case 0x0D: room[1] = UInt8(ascii: "r")
        case 0x09: room[1] = UInt8(ascii: "t")
        default:
            let hex: StaticString = "0123456789abcdef"
            room[1] = UInt8(ascii: "u")
            room[2] = UInt8(ascii: "0")
            room[3] = UInt8(ascii: "0")
            room[4] = hex.utf8Start[Int(byte >> 4)]
            room[5] = hex.utf8Start[Int(byte & 0x0F)]
            return 6
        }
        return 2
    }

    /// Decimal digits written straight into the buffer (no String made per number), two at a
    /// time from a table of the hundred pairs, the length found first by comparisons. Wrapping
    /// arithmetic: a magnitude has at most twenty digits, and the room is reserved for them.
    mutating func integer(_ value: Int64) {
        let room = output.reserve(20)
        var magnitude = value.magnitude
        var length = 0
        if value < 0 { room[0] = UInt8(ascii: "-"); length = 1 }
        guard magnitude >= 10 else {
            room[length] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude)
            output.commit(length &+ 1)
            return
        }
        var digits = 2
        var bound: UInt64 = 100
        // The magnitude is at most 2^63, nineteen digits, so `bound` stops at 10^19, which fits.
        while magnitude >= bound {
            digits &+= 1
            bound &*= 10
        }
        length &+= digits
        var position = length
        let pairs = Self.digitPairs.utf8Start
        while magnitude >= 100 {
            let pair = Int(truncatingIfNeeded: magnitude % 100) &* 2
            magnitude /= 100
            position &-= 2
            room[position] = pairs[pair]
            room[position &+ 1] = pairs[pair &+ 1]
        }
        if magnitude >= 10 {
            let pair = Int(truncatingIfNeeded: magnitude) &* 2
            room[position &- 2] = pairs[pair]
            room[position &- 1] = pairs[pair &+ 1]
        } else {
            room[position &- 1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude)
        }
        output.commit(length)
    }

    /// "00" to "99", each pair's two digits at twice its value.
    private static let digitPairs: StaticString = """
        00010203040506070809101112131415161718192021222324252627282930313233343536373839\
        40414243444546474849505152535455565758596061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """

    mutating func optionalInteger(_ value: Int64?) {
        if let value { integer(value) } else { output.append("null" as StaticString) }
    }

    mutating func boolean(_ value: Bool) {
        output.append(value ? ("true" as StaticString) : "false")
    }

    mutating func json(_ value: JSONValue) {
        if case .object(let members) = value, members.isEmpty {
            output.append("{}" as StaticString)
        } else {
            output.append(contentsOf: value.serialized())
        }
    }

    /// `date` as a record writes it, without the quotes: for the dates an encoder writes (the
    /// header's), so that every date in a log follows one rule.
    static func dateText(_ date: Date) -> String {
        var writer = SessionRecordWriter()
        writer.date(date)
        return String(decoding: writer.bytes.dropFirst().dropLast(), as: UTF8.self)
    }

    /// ISO 8601 in UTC with milliseconds: 2026-11-21T06:37:59.308Z, the date's nearest
    /// millisecond (`Date.millisecondsSince1970`, as the interface shows it). The format has four
    /// digits for the year: a date past 9999 is written as the last millisecond of 9999, one
    /// before year 0 as the first of year 0.
    mutating func date(_ date: Date) {
        let nearest = date.millisecondsSince1970
        let milliseconds = nearest.isNaN ? 0 : Int64(min(max(nearest, Double(Self.firstMillisecond)), Double(Self.lastMillisecond)))
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let fraction = Int(milliseconds - seconds * 1000)
        let parts = CivilTime(secondsSince1970: seconds)
        let room = output.reserve(26)
        let pairs = Self.digitPairs.utf8Start
        func pair(_ value: Int, at offset: Int) {
            let index = value &* 2
            room[offset] = pairs[index]
            room[offset &+ 1] = pairs[index &+ 1]
        }
        room[0] = UInt8(ascii: "\"")
        pair(parts.year / 100, at: 1)
        pair(parts.year % 100, at: 3)
        room[5] = UInt8(ascii: "-")
        pair(parts.month, at: 6)
        room[8] = UInt8(ascii: "-")
        pair(parts.day, at: 9)
        room[11] = UInt8(ascii: "T")
        pair(parts.hour, at: 12)
        room[14] = UInt8(ascii: ":")
        pair(parts.minute, at: 15)
        room[17] = UInt8(ascii: ":")
        pair(parts.second, at: 18)
        room[20] = UInt8(ascii: ".")
        room[21] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: fraction / 100)
        pair(fraction % 100, at: 22)
        room[24] = UInt8(ascii: "Z")
        room[25] = UInt8(ascii: "\"")
        output.commit(26)
    }

    /// 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z, in milliseconds since 1970.
    private static let firstMillisecond: Int64 = -62_167_219_200_000
    private static let lastMillisecond: Int64 = 253_402_300_799_999

    /// Fields as the transport received them, written from their bytes as `headers(_:)` writes
    /// their strings. False, with nothing written, when they must be made into strings first
    /// (see `ReceivedHeaders.forEachPlainField`).
    private mutating func headers(received: ReceivedHeaders) -> Bool {
        var written = 0
        let verbatim = received.fieldsArePlainJSONText
        let plain = received.forEachPlainField { name, value in
            output.append(UInt8(ascii: written == 0 ? "[" : ","))
            written += 1
            if verbatim {
                plainField(name: name, value: value)
            } else {
                openObject()
                key("name"); string(utf8: name)
                key("value"); string(utf8: value)
                closeObject()
            }
        }
        guard plain else { return false }
        output.append(written == 0 ? "[]" as StaticString : "]" as StaticString)
        atFirstMember = false
        return true
    }

    /// `{"name":"…","value":"…"}` for a field whose bytes JSON holds as they are
    /// (`ASCII.isPlainJSONText`): copied in, not looked at again.
    private mutating func plainField(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        let opening: StaticString = #"{"name":""#
        let middle: StaticString = #"","value":""#
        let length = opening.utf8CodeUnitCount + name.count + middle.utf8CodeUnitCount + value.count + 2
        var room = UnsafeMutableRawPointer(output.reserve(length))
        func copy(_ start: UnsafeRawPointer?, _ count: Int) {
            guard let start, count > 0 else { return }
            room.copyMemory(from: start, byteCount: count)
            room += count
        }
        copy(opening.utf8Start, opening.utf8CodeUnitCount)
        copy(name.baseAddress, name.count)
        copy(middle.utf8Start, middle.utf8CodeUnitCount)
        copy(value.baseAddress, value.count)
        room.storeBytes(of: UInt8(ascii: "\""), as: UInt8.self)
        (room + 1).storeBytes(of: UInt8(ascii: "}"), as: UInt8.self)
        output.commit(length)
        atFirstMember = false
    }

    mutating func headers(_ fields: [HeaderField]) {
        array(fields) { writer, field in
            writer.openObject()
            writer.key("name"); writer.string(field.name)
            writer.key("value"); writer.string(field.value)
            writer.closeObject()
        }
    }

    /// A body as text when its kept bytes are UTF-8, else as base64; capped at the writer's limits
    /// (`BodySnapshot.keptPart`), on the bytes where they lie.
    mutating func body(_ body: BodySnapshot) {
        openObject()
        key("size"); integer(body.size)
        if let type = body.contentType { key("contentType"); string(type) }
        let truncated = body.data.withUnsafeBytes { (all: UnsafeRawBufferPointer) -> Bool in
            let part = BodySnapshot.keptPart(of: all, truncated: body.isTruncated, textLimit: textBodyLimit, binaryLimit: binaryBodyLimit)
            if let length = part.textLength {
                key("encoding"); output.append(#""utf8""#)
                key("content"); string(utf8: UnsafeRawBufferPointer(rebasing: all[0..<length]))
            } else {
                key("encoding"); output.append(#""base64""#)
                // Base64's alphabet needs no escaping in JSON: written as it is.
                key("content")
                output.append(UInt8(ascii: "\""))
                let length = Base64Text.encodedLength(of: part.count)
                Base64Text.encode(UnsafeRawBufferPointer(rebasing: all[0..<part.count]), into: output.reserve(length))
                output.commit(length)
                output.append(UInt8(ascii: "\""))
            }
            return part.truncated
        }
        key("truncated"); boolean(truncated)
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
        if request.isAsTyped { key("asTyped"); boolean(true) }
        closeObject()
    }

    mutating func response(_ response: ResponseSnapshot) {
        openObject()
        key("statusCode"); integer(Int64(response.statusCode))
        key("statusLine"); string(response.statusLine)
        key("httpVersion"); string(response.httpVersion)
        key("headers")
        if let received = response.receivedHeaders, headers(received: received) {} else { headers(response.headers) }
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
