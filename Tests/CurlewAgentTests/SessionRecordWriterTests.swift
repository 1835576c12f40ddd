@testable import CurlewAgent
@testable import CurlewTransport
import Foundation
import Testing

private func sortedMembers(_ value: JSONValue) -> JSONValue {
    switch value {
    case .object(let members): .object(members.map { JSONMember($0.key, sortedMembers($0.value)) }.sorted { $0.key < $1.key })
    case .array(let elements): .array(elements.map(sortedMembers))
    default: value
    }
}

@Suite("Session record writer")
struct SessionRecordWriterTests {
    @Test("timings read back are from zero to a hundred years a phase; a record saying more or less is refused, not summed into an overflow")
    func timingBounds() throws {
        func timings(total: Int64, dns: Int64? = nil) throws -> TimingBreakdown {
            let dnsMember = dns.map { #","dns":\#($0)"# } ?? ""
            return try JSONDecoder().decode(TimingBreakdown.self, from: Data(#"{"queued":1\#(dnsMember),"send":0,"wait":0,"receive":0,"total":\#(total)}"#.utf8))
        }
        let longest = TimingBreakdown.longestPhase
        #expect(try timings(total: longest).elapsed == longest + 1)
        #expect(try timings(total: 5, dns: longest).dns == longest)
        #expect(throws: DecodingError.self) { try timings(total: longest + 1) }
        #expect(throws: DecodingError.self) { try timings(total: -1) }
        #expect(throws: DecodingError.self) { try timings(total: 5, dns: 1 << 62) }
        #expect(throws: DecodingError.self) { try timings(total: 5, dns: -3) }
        // What a record writes reads back as it was.
        let written = TimingBreakdown(queued: 1, dns: 2, connect: 3, tls: nil, send: 4, wait: 5, receive: 6, redirect: 7, total: 8)
        #expect(try JSONDecoder().decode(TimingBreakdown.self, from: JSONEncoder().encode(written)) == written)
    }

    @Test("a composed request's fields, held by reference, still behave as a value: a changed copy leaves the original as it was")
    func composedRequestIsAValue() throws {
        let original = ComposedRequest(method: "GET", url: "http://h.test/a", headers: [HeaderField(name: "A", value: "1")], params: ["k": 1],
                                       body: nil, timeoutMilliseconds: 5, automaticHeaders: ["A"],
                                       transfer: TransferRecord(uploadFile: "/tmp/u", uploadBytes: 1))
        var changed = original
        #expect(changed == original)
        changed.url = "http://h.test/b"
        changed.headers.append(HeaderField(name: "B", value: "2"))
        changed.params = .null
        changed.isAsTyped = true
        #expect(original.url == "http://h.test/a" && original.headers.count == 1 && original.params == ["k": 1] && !original.isAsTyped)
        #expect(changed.url == "http://h.test/b" && changed.headers.map(\.name) == ["A", "B"] && changed.isAsTyped)
        #expect(changed != original)
        // The same fields in two separately made requests are equal.
        changed.url = original.url
        changed.headers = original.headers
        changed.params = original.params
        changed.isAsTyped = false
        #expect(changed == original)
        let (split, record) = original.splittingTransfer()
        #expect(split.transfer == nil && record == original.transfer && original.transfer != nil)
        let decoded = try JSONDecoder().decode(ComposedRequest.self, from: JSONEncoder().encode(split))
        #expect(decoded == split)
        // Printed (as a failed expectation prints it) with its fields, not the block holding them.
        let printed = String(describing: original)
        #expect(printed.contains("url: \"http://h.test/a\"") && printed.contains("timeoutMilliseconds: 5") && !printed.contains("SharedValue"))
    }

    @Test("a written message reads back identical, with escapes, Unicode, binary bodies and every optional field")
    func roundTrip() throws {
        let tricky = "quote \" backslash \\ newline \n tab \t bell \u{7} emoji 😀 名前 slash /"
        let message = DebugMessage(
            requestID: 42, name: tricky, groupID: 7, step: 3, state: .failed,
            startedAt: Date(timeIntervalSince1970: 1_790_000_000.5),
            original: ComposedRequest(method: "POST", url: "http://h.test/a?b=c&d=\"e\"", headers: [HeaderField(name: "X-\(tricky)", value: tricky)],
                                      params: ["n": 1, "nested": ["a": [true, .null, 2.5]]], body: BodySnapshot(data: Data(tricky.utf8), contentType: "text/plain", limit: 10),
                                      timeoutMilliseconds: 15_000),
            sent: WireRequest(head: "POST /a HTTP/1.1\r\nHost: h.test\r\n\r\n", body: BodySnapshot(data: Data([0, 1, 2, 255]), contentType: nil, limit: 100)),
            response: ResponseSnapshot(statusCode: 503, statusLine: "HTTP/1.1 503 Busy", httpVersion: "1.1", headers: [], body: BodySnapshot(data: Data(), contentType: nil, limit: 1)),
            error: RequestError(.unacceptableStatus, tricky, code: 503),
            timings: TimingBreakdown(queued: 1, dns: nil, connect: 3, tls: nil, send: 4, wait: 5, receive: 6, redirect: 7, total: 8),
            connection: ConnectionInfo(httpVersion: "2", remoteIP: "::1", remotePort: 443, localIP: "::1", localPort: 5, reused: true,
                                       newConnections: 0, redirectCount: 1, effectiveURL: "https://h.test/", bytesSent: 10, bytesReceived: 20),
            callbackQueue: "q",
            transfer: TransferRecord(
                uploadFile: "/tmp/u", uploadBytes: 3,
                formParts: [.init(name: tricky, filename: "a \"b\".png", contentType: "image/png", file: "/tmp/\(tricky)", size: 12),
                            .init(name: "n", size: 2, value: tricky)],
                downloadDestination: "/tmp/out", resumeRequestedFrom: 100,
                download: DownloadReport(path: "/tmp/out", completed: false, partialPath: "/tmp/out.curlew-partial", bytesWritten: 50,
                                         fileSize: 150, resumedFrom: 100, restartedFrom: nil, resumable: true),
                bodyInTemporaryFile: true
            ),
            stream: StreamRecord(chunks: 3, bytes: 120, eventCount: 5,
                                 events: [ServerSentEvent(event: tricky, data: "line 1\nline 2", id: "9", retryMilliseconds: 250,
                                                          receivedAt: Date(timeIntervalSince1970: 1_790_000_001.25))],
                                 lastEventID: "9", retryMilliseconds: 250, reconnectAttempt: 2),
            firstExchangeID: 40, requestGoesOn: true
        )
        let line = SessionRecordWriter.messageLine(message, custom: ["build": 9])
        #expect(line.last == 0x0A)
        #expect(!line.dropLast().contains(0x0A), "one line")
        let decoded = try SessionLogFormat.makeDecoder().decode(DebugMessage.self, from: Data(line))
        // The Codable reader cannot keep JSON object member order (JSONDecoder hands keys over
        // unordered), so parameters compare modulo order; everything else must be identical.
        var expected = message
        var actual = decoded
        expected.original?.params = sortedMembers(message.original!.params)
        actual.original?.params = sortedMembers(decoded.original!.params)
        #expect(actual == expected)
        let json = try JSONValue.parse(Data(line.dropLast()))
        #expect(json["type"] == .string("message"))
        #expect(json["custom"]?["build"] == .int(9))
        #expect(json["startedAt"] == .string("2026-09-21T14:13:20.500Z"))
    }

    @Test("integers are written as JSON numbers, the extremes included", arguments: [
        Int64.min, -1_000_000_007, -10, -1, 0, 1, 9, 10, 99, 100, 1_000_000_007, Int64.max,
    ])
    func integers(_ value: Int64) throws {
        var writer = SessionRecordWriter()
        writer.integer(value)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == String(value))
    }

    @Test("every power of ten, and one either side of it, positive and negative, is written as Swift writes it")
    func integersAtEveryLength() {
        // Every pair of digits in every place of a four-digit number, then the lengths.
        var values: [Int64] = Array(-10_000...10_000) + [Int64.min, Int64.min + 1, Int64.max - 1]
        var power: Int64 = 1
        for _ in 0...18 {
            values += [power - 1, power, power + 1, -(power - 1), -power, -(power + 1), power * 5 + 37]
            power = power <= Int64.max / 10 ? power * 10 : power
        }
        for value in values {
            var writer = SessionRecordWriter()
            writer.integer(value)
            #expect(String(decoding: writer.bytes, as: UTF8.self) == String(value), "\(value)")
        }
    }

    @Test("dates are written in UTC to the nearest millisecond, as the interface shows them; a date past the format's four-digit years is written as its last or first millisecond")
    func datesToTheMillisecond() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'"
        // Whole seconds, exact binary fractions, the epoch either side, month and year ends, a leap day.
        let seconds: [Double] = [0, -1.5, -86_400.25, 0.125, 1_790_000_000.5, 951_782_399.875, 951_868_800,
                                 1_704_067_199.999_023_437_5, 4_102_444_800, 253_402_300_799.5]
        for second in seconds {
            var writer = SessionRecordWriter()
            let date = Date(timeIntervalSince1970: second)
            writer.date(date)
            let nearest = Date(timeIntervalSince1970: (second * 1000).rounded() / 1000)
            #expect(String(decoding: writer.bytes, as: UTF8.self) == "\"\(formatter.string(from: nearest))\"", "\(second)")
        }
        for (date, written) in [(Date(timeIntervalSince1970: 253_402_300_800 * 2), "9999-12-31T23:59:59.999Z"),
                                (Date(timeIntervalSince1970: 253_402_300_800), "9999-12-31T23:59:59.999Z"),
                                (Date(timeIntervalSince1970: -62_167_219_200 - 1), "0000-01-01T00:00:00.000Z"),
                                (Date.distantPast, "0000-12-30T00:00:00.000Z"),
                                // A fraction that rounds up carries into the next second, day and year, but never past 9999.
                                (Date(timeIntervalSince1970: 951_868_799.9997), "2000-03-01T00:00:00.000Z"),
                                (Date(timeIntervalSince1970: 1_704_067_199.9996), "2024-01-01T00:00:00.000Z"),
                                (Date(timeIntervalSince1970: 253_402_300_799.9996), "9999-12-31T23:59:59.999Z"),
                                (Date(timeIntervalSince1970: -0.0006), "1969-12-31T23:59:59.999Z"),
                                (Date(timeIntervalSince1970: .nan), "1970-01-01T00:00:00.000Z")] {
            var writer = SessionRecordWriter()
            writer.date(date)
            #expect(String(decoding: writer.bytes, as: UTF8.self) == "\"\(written)\"", "\(date)")
        }
    }

    @Test("a date read back from a record, or from the header an encoder writes, shows the time it showed live, also when its fraction of a millisecond rounds up")
    func dateReadBackShowsTheSameTime() throws {
        for second in [1_790_000_000.123_6, 1_790_000_000.999_7, 1_790_000_000.000_4, 1_790_000_059.999_9, 1_790_000_000.5004] {
            let date = Date(timeIntervalSince1970: second)
            var writer = SessionRecordWriter()
            writer.date(date)
            let decoded = try SessionLogFormat.makeDecoder().decode(Date.self, from: Data(writer.bytes))
            #expect(decoded.clockText == date.clockText, "\(second)")
            #expect(try SessionLogFormat.makeEncoder().encode(date) == Data(writer.bytes), "\(second)")
        }
    }

    @Test("the day and time a history row shows is the record's instant: rounded to the millisecond, carrying into the next second, day and year")
    func dayAndClockTextRounds() {
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        for (second, shown) in [(1_790_000_000.123_6, "2026-09-21 14:13:20.124"),
                                (1_704_067_199.999_6, "2024-01-01 00:00:00.000"),
                                (951_868_799.999_7, "2000-03-01 00:00:00.000"),
                                (-0.000_6, "1969-12-31 23:59:59.999")] {
            let date = Date(timeIntervalSince1970: second)
            var writer = SessionRecordWriter()
            writer.date(date)
            let written = String(decoding: writer.bytes, as: UTF8.self)
            #expect(date.dayAndClockText(using: utc) == shown, "\(second)")
            // The same instant the session log writes (its `T` and `Z` aside).
            #expect(written == "\"" + shown.replacingOccurrences(of: " ", with: "T") + "Z\"", "\(second)")
            #expect(shown.hasSuffix(date.clockText(using: utc)))
        }
    }

    @Test("calendar fields by arithmetic agree with the C library's gmtime_r on every day's edges from year 0 to 9999, and at random seconds between")
    func civilTimeAgreesWithGmtime() {
        func expected(_ seconds: Int64) -> CivilTime {
            var time = time_t(seconds)
            var parts = tm()
            gmtime_r(&time, &parts)
            var civil = CivilTime(secondsSince1970: 0)
            civil.year = Int(parts.tm_year) + 1900
            civil.month = Int(parts.tm_mon) + 1
            civil.day = Int(parts.tm_mday)
            civil.hour = Int(parts.tm_hour)
            civil.minute = Int(parts.tm_min)
            civil.second = Int(parts.tm_sec)
            return civil
        }
        let first: Int64 = -62_167_219_200, last: Int64 = 253_402_300_799
        // Every 59th day, then every day within about 400 days of the start of years around the
        // epoch, with leap days and century rules, at the first and last second of each.
        var days = Array(stride(from: first / 86_400, through: last / 86_400, by: 59))
        for year: Int64 in [0, 100, 400, 1600, 1700, 1900, 1969, 1970, 2000, 2024, 2100, 9999] {
            let start = (year - 1970) * 365 + (year - 1969) / 4 - (year - 1901) / 100 + (year - 1601) / 400
            days += (start - 400)...(start + 400)
        }
        for day in days {
            for seconds in [day * 86_400, day * 86_400 + 86_399] where seconds >= first && seconds <= last {
                #expect(CivilTime(secondsSince1970: seconds) == expected(seconds), "\(seconds)")
            }
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let seconds = Int64.random(in: first...last, using: &generator)
            #expect(CivilTime(secondsSince1970: seconds) == expected(seconds), "\(seconds)")
        }
    }

    @Test("every ASCII byte at every offset of a word, the last bytes of a string included, is escaped exactly when JSON needs it, and reads back")
    func escapesEveryByteAtEveryOffset() throws {
        // Lengths that end in whole words, in a few bytes after them, or within the first word.
        for (length, suffix) in [(19, "é😀"), (9, ""), (16, ""), (21, ""), (5, "")] {
            for byte in UInt8(0)..<0x80 {
                for offset in 0..<length {
                    var text = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    text[offset] = byte
                    text += Array(suffix.utf8)
                    let original = String(decoding: text, as: UTF8.self)
                    var writer = SessionRecordWriter()
                    writer.string(original)
                    let written = writer.bytes
                    #expect(!written.dropFirst().dropLast().contains { $0 < 0x20 }, "no raw control byte")
                    let escapeLength = byte == 0x22 || byte == 0x5C || byte == 0x0A || byte == 0x0D || byte == 0x09 ? 1 : byte < 0x20 ? 5 : 0
                    #expect(written.count == text.count + 2 + escapeLength, "only the byte that needs it is escaped")
                    let decoded = try JSONSerialization.jsonObject(with: Data(written), options: .fragmentsAllowed) as? String
                    #expect(decoded == original, "byte \(byte) at offset \(offset) of \(length)")
                }
            }
        }
    }

    @Test("strings dense with bytes to escape, next to each other and to multibyte characters, come out exactly as a plain escaper writes them")
    func denseEscapes() throws {
        let alphabet: [String] = ["\"", "\\", "\n", "\r", "\t", "\u{1}", "\u{1F}", "a", " ", "é", "😀", "名", "\u{7F}", "/"]
        func reference(_ text: String) -> [UInt8] {
            var output: [UInt8] = [0x22]
            for byte in text.utf8 {
                switch byte {
                case 0x22: output += Array(#"\""#.utf8)
                case 0x5C: output += Array(#"\\"#.utf8)
                case 0x0A: output += Array(#"\n"#.utf8)
                case 0x0D: output += Array(#"\r"#.utf8)
                case 0x09: output += Array(#"\t"#.utf8)
                case ..<0x20: output += Array(String(format: #"\u%04x"#, Int(byte)).utf8)
                default: output.append(byte)
                }
            }
            return output + [0x22]
        }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<3_000 {
            var text = ""
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            for _ in 0..<Int(state >> 58) {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                text += alphabet[Int(state >> 33) % alphabet.count]
            }
            var writer = SessionRecordWriter()
            writer.string(text)
            #expect(writer.bytes == reference(text), "\(Array(text.utf8))")
        }
    }

    @Test("bodies are capped as they are written: text keeps its first bytes, binary a base64 preview, both their full size")
    func capsBodies() throws {
        let text = BodySnapshot(data: Data(String(repeating: "t", count: 100).utf8), contentType: "text/plain", limit: 1 << 20)
        let binary = BodySnapshot(data: Data((0..<100).map { UInt8(128 + $0 % 100) }), contentType: nil, limit: 1 << 20)
        let message = DebugMessage(requestID: 1, name: nil, state: .succeeded, startedAt: Date(timeIntervalSince1970: 0),
                                   original: nil, sent: WireRequest(head: "GET / HTTP/1.1\r\n\r\n", body: binary),
                                   response: ResponseSnapshot(statusCode: 200, statusLine: "HTTP/1.1 200 OK", httpVersion: "1.1", headers: [], body: text),
                                   error: nil, timings: nil, connection: nil, callbackQueue: "q")
        let output = AppendBuffer()
        SessionRecordWriter.appendMessageLine(message, custom: nil, to: output, textBodyLimit: 10, binaryBodyLimit: 4)
        let decoded = try SessionLogFormat.makeDecoder().decode(DebugMessage.self, from: Data(output.array))
        #expect(decoded.response?.body.data == Data(String(repeating: "t", count: 10).utf8))
        #expect(decoded.response?.body.size == 100)
        #expect(decoded.sent?.body?.data == binary.data.prefix(4))
        #expect(decoded.sent?.body?.size == 100)
        #expect(decoded.sent?.body?.isTruncated == true)
    }

    @Test("the part of a body a log keeps follows the rule: text up to one limit, else binary up to the other, cut characters dropped")
    func keptPartRule() {
        func reference(_ data: Data, size: Int64, textLimit: Int, binaryLimit: Int) -> BodySnapshot.KeptPart {
            func textLength(_ kept: Data, truncated: Bool) -> Int? {
                if String(validating: kept, as: UTF8.self) != nil { return kept.count }
                guard truncated else { return nil }
                for cut in 1...3 where kept.count >= cut && String(validating: kept.dropLast(cut), as: UTF8.self) != nil { return kept.count - cut }
                return nil
            }
            var kept = data.count > textLimit ? Data(data.prefix(textLimit)) : data
            if kept.count > binaryLimit, textLength(kept, truncated: Int64(kept.count) < size) == nil { kept = Data(kept.prefix(binaryLimit)) }
            let truncated = Int64(kept.count) < size
            return BodySnapshot.KeptPart(count: kept.count, textLength: textLength(kept, truncated: truncated), truncated: truncated)
        }
        let pieces: [[UInt8]] = [Array("a".utf8), Array("é".utf8), Array("😀".utf8), [0xFF], [0x80], Array("名".utf8), [0x00]]
        var state: UInt64 = 42
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33)
        }
        for _ in 0..<4_000 {
            var bytes: [UInt8] = []
            let pieceCount = next() % 24
            let binaryEvery = [0, 3, 50][next() % 3]
            for index in 0..<pieceCount {
                let piece = pieces[next() % (binaryEvery > 0 && index % binaryEvery == 0 ? pieces.count : 3)]
                bytes += piece
            }
            let data = Data(bytes)
            let size = Int64(data.count) + Int64([0, 0, 5][next() % 3])
            let textLimit = next() % 30, binaryLimit = next() % 30
            let expected = reference(data, size: size, textLimit: textLimit, binaryLimit: binaryLimit)
            let actual = data.withUnsafeBytes { BodySnapshot.keptPart(of: $0, truncated: Int64(data.count) < size, textLimit: textLimit, binaryLimit: binaryLimit) }
            #expect(actual == expected, "\(bytes) size \(size) limits \(textLimit) \(binaryLimit)")
        }
    }

    @Test("a text body cut inside a character keeps the whole characters before the cut")
    func capsInsideACharacter() throws {
        let body = BodySnapshot(data: Data(String(repeating: "é", count: 100).utf8), contentType: "text/plain", limit: 1 << 20)
        let message = DebugMessage(requestID: 1, name: nil, state: .succeeded, startedAt: Date(timeIntervalSince1970: 0), original: nil, sent: nil,
                                   response: ResponseSnapshot(statusCode: 200, statusLine: "HTTP/1.1 200 OK", httpVersion: "1.1", headers: [], body: body),
                                   error: nil, timings: nil, connection: nil, callbackQueue: "q")
        let output = AppendBuffer()
        SessionRecordWriter.appendMessageLine(message, custom: nil, to: output, textBodyLimit: 11, binaryBodyLimit: 4)
        let json = try JSONValue.parse(Data(output.array.dropLast()))
        #expect(json["response"]?["body"]?["encoding"] == .string("utf8"))
        #expect(json["response"]?["body"]?["content"] == .string(String(repeating: "é", count: 5)))
        #expect(json["response"]?["body"]?["size"] == .int(200))
    }

    @Test("a message with nothing to hide is not copied by redaction; one with a secret is")
    func redactedOnlyWhenNeeded() {
        func message(url: String) -> DebugMessage {
            DebugMessage(requestID: 1, name: nil, state: .succeeded, startedAt: Date(timeIntervalSince1970: 0),
                         original: ComposedRequest(method: "GET", url: url, headers: [], params: .object([]), body: nil, timeoutMilliseconds: 1),
                         sent: nil, response: nil, error: nil, timings: nil, connection: nil, callbackQueue: "q")
        }
        #expect(RedactionPolicy().redactedIfNeeded(message(url: "http://h/p?page=1")) == nil)
        #expect(RedactionPolicy().redactedIfNeeded(message(url: "http://h/p?token=t"))?.original?.url == "http://h/p?token=\(RedactionPolicy.marker)")
        #expect(RedactionPolicy.disabled.redactedIfNeeded(message(url: "http://h/p?token=t")) == nil)
    }

    @Test("a secret in a body that is not UTF-8 as a whole never reaches the log through the cap's text prefix")
    func secretBeforeAnInvalidByte() throws {
        var json = Array(#"{"password":"hunter2-secret","note":""#.utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: 5_000)
        json += [0xE9] + Array(#""}"#.utf8)
        var binary = [UInt8](repeating: 0xFF, count: 100) + Array("tok-literal-9".utf8)
        binary += [UInt8](repeating: 0xFE, count: 100)
        let path = NSTemporaryDirectory() + "curlew-redaction-cap-\(getpid()).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let logger = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: path, redaction: RedactionPolicy(secretValues: ["tok-literal-9"]),
                                                                   maxBodyBytes: 64 << 10, maxBinaryBodyBytes: 4 << 10))
        logger.requestDidProduce(DebugMessage(
            requestID: 1, name: nil, state: .succeeded, startedAt: Date(timeIntervalSince1970: 0), original: nil,
            sent: WireRequest(head: "POST / HTTP/1.1\r\n\r\n", body: BodySnapshot(data: Data(binary), contentType: "application/octet-stream", limit: 1 << 20)),
            response: ResponseSnapshot(statusCode: 200, statusLine: "HTTP/1.1 200 OK", httpVersion: "1.1", headers: [],
                                       body: BodySnapshot(data: Data(json), contentType: "application/json", limit: 1 << 20)),
            error: nil, timings: nil, connection: nil, callbackQueue: "q"))
        try logger.close()
        let log = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!log.contains("hunter2-secret"))
        #expect(!log.contains("tok-literal-9"))
        #expect(!log.contains(Data("tok-literal-9".utf8).base64EncodedString().prefix(12)))
        #expect(log.contains(RedactionPolicy.marker))
        let entry = try JSONValue.parse(Data(log.split(separator: "\n")[1].utf8))
        #expect(entry["sent"]?["body"]?["encoding"] == .string("base64"), "a binary body stays binary")
    }

    @Test("a redacted body is logged with the size it had on the wire, in its record and its summary, whole or cut as it was")
    func redactedBodySizes() throws {
        let secret = String(repeating: "s", count: 60)
        let body = #"{"token":"\#(secret)","n":1}"#
        let path = NSTemporaryDirectory() + "curlew-redacted-size-\(getpid()).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let logger = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: path, maxBodyBytes: 64 << 10))
        let request = BodySnapshot(data: Data("user=a&password=\(secret)".utf8), contentType: "application/x-www-form-urlencoded", limit: 1 << 20)
        let response = BodySnapshot(data: Data(body.utf8), contentType: "application/json", limit: 1 << 20)
        logger.requestDidProduce(DebugMessage(
            requestID: 1, name: nil, state: .succeeded, startedAt: Date(timeIntervalSince1970: 0), original: nil,
            sent: WireRequest(head: "POST / HTTP/1.1\r\n\r\n", body: request),
            response: ResponseSnapshot(statusCode: 200, statusLine: "HTTP/1.1 200 OK", httpVersion: "1.1", headers: [], body: response),
            error: nil, timings: nil, connection: nil, callbackQueue: "q"))
        try logger.close()
        let line = try #require(try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").dropFirst().first)
        #expect(!line.contains(secret))
        let summary = try #require(Array(line.utf8).withUnsafeBufferPointer { SessionRecordSummary.read($0) })
        #expect(summary.responseSize == Int64(body.utf8.count), "the size the live view shows")
        let decoded = try SessionLogFormat.makeDecoder().decode(DebugMessage.self, from: Data(line.utf8))
        #expect(decoded.response?.body.size == Int64(body.utf8.count))
        #expect(decoded.response?.body.isTruncated == false, "a whole body whose secret shrank is still whole")
        #expect(decoded.sent?.body?.size == request.size)
        #expect(decoded.sent?.body?.isTruncated == false)
        #expect(decoded.response?.body.text?.contains(RedactionPolicy.marker) == true)
    }

    @Test("a body read back keeps what its record's `truncated` says, a record without it is read from its sizes, and a negative size is refused by the record and its summary alike")
    func truncatedFieldRead() throws {
        func body(_ json: String) throws -> BodySnapshot { try SessionLogFormat.makeDecoder().decode(BodySnapshot.self, from: Data(json.utf8)) }
        #expect(try body(#"{"size":10,"encoding":"utf8","content":"abc","truncated":false}"#).isTruncated == false)
        #expect(try body(#"{"size":2,"encoding":"utf8","content":"abc","truncated":true}"#).isTruncated == true)
        #expect(try body(#"{"size":10,"encoding":"utf8","content":"abc"}"#).isTruncated == true)
        #expect(try body(#"{"size":3,"encoding":"utf8","content":"abc"}"#).isTruncated == false)
        #expect(throws: DecodingError.self) { try body(#"{"size":-1,"encoding":"utf8","content":"abc","truncated":false}"#) }
        func summary(size: String) -> SessionRecordSummary? {
            Array(#"{"type":"message","summary":{"id":1,"status":200,"elapsed":null,"size":\#(size),"failed":false,"method":"GET","url":"u"},"x":1}"#.utf8)
                .withUnsafeBufferPointer { SessionRecordSummary.read($0) }
        }
        #expect(summary(size: "5")?.responseSize == 5)
        #expect(summary(size: "null") != nil)
        #expect(summary(size: "-5") == nil, "a line the record's reader refuses is not indexed as an entry")
    }

    @Test("a response's fields kept as received are written and checked for secrets from their bytes exactly as their strings would be: plain, folded, beyond ASCII, not UTF-8, escaped")
    func receivedHeadersAsTheirStrings() throws {
        let heads: [[[UInt8]]] = [
            [],
            [Array("Server: nginx\r\n".utf8), Array("Content-Length: 81\r\n".utf8), Array("X-Empty:\r\n".utf8)],
            [Array("X-Quote: a \"b\" \\ c\u{1}\td  \r\n".utf8), Array("Location: https://h/cb?access_token=abc\r\n".utf8)],
            [Array("Set-Cookie: sid=s3cr3t; Path=/\r\n".utf8), Array("Referer: http://u:pw@h/\r\n".utf8)],
            [Array("X-Folded: one\r\n".utf8), Array("  two\r\n".utf8), Array("Authorization: Bearer t\r\n".utf8)],
            [Array("X-Name: caf\u{E9}\r\n".utf8), Array("X-Bad: ".utf8) + [0xFF, 0xFE] + Array("\r\n".utf8)],
            // Plain fields written as they are until one needs an escape, or is beyond ASCII.
            [Array("Server: nginx\r\n".utf8), Array("X-Tab: a\tb\r\n".utf8), Array("X-Slash: a\\b\r\n".utf8)],
            [Array("Server: nginx \t\r\n".utf8), Array("X-Name: caf\u{E9}\r\n".utf8)],
            [Array("HTTP/1.1 200 OK\r\n".utf8), Array("Date: Fri, 04 Dec 2026 22:49:52 GMT\r\n".utf8), Array("X-Long-Plain-Value: 0123456789abcdefghij\r\n".utf8), Array("\r\n".utf8)],
        ]
        // Noted as the lines arrive (the wire capture's exchanges), or looked at when read.
        for (head, noting) in heads.flatMap({ head in [(head, true), (head, false)] }) {
            var received = ReceivedHeaders()
            for line in head {
                line.withUnsafeBytes { bytes in
                    received.append(bytes, as: ResponseHeaderLine(bytes), notingPlainText: noting)
                }
            }
            func message(_ response: ResponseSnapshot) -> DebugMessage {
                DebugMessage(requestID: 1, name: nil, state: .succeeded, startedAt: Date(timeIntervalSince1970: 0), original: nil, sent: nil,
                             response: response, error: nil, timings: nil, connection: nil, callbackQueue: "q")
            }
            let body = BodySnapshot(data: Data("{}".utf8), contentType: "application/json", limit: 1 << 20)
            let asReceived = message(ResponseSnapshot(statusCode: 200, statusLine: "HTTP/1.1 200 OK", httpVersion: "1.1", fields: HTTPHeaders(received: received), body: body))
            let asFields = message(ResponseSnapshot(statusCode: 200, statusLine: "HTTP/1.1 200 OK", httpVersion: "1.1", headers: received.fields, body: body))
            #expect(asReceived == asFields)
            let line = SessionRecordWriter.messageLine(asReceived, custom: nil)
            #expect(String(decoding: line, as: UTF8.self) == String(decoding: SessionRecordWriter.messageLine(asFields, custom: nil), as: UTF8.self), "\(head)")
            #expect(try SessionLogFormat.makeDecoder().decode(DebugMessage.self, from: Data(line)) == asFields)
            for policy in [RedactionPolicy(), RedactionPolicy(headerNames: ["x-quote"])] {
                #expect(policy.redactedIfNeeded(asReceived) == policy.redactedIfNeeded(asFields), "\(head)")
            }
        }
    }

    @Test("the minimal message omits absent fields")
    func minimal() throws {
        let message = DebugMessage(requestID: 1, name: nil, state: .cancelled, startedAt: Date(timeIntervalSince1970: 0), original: nil, sent: nil,
                                   response: nil, error: nil, timings: nil, connection: nil, callbackQueue: "q")
        let line = SessionRecordWriter.messageLine(message, custom: nil)
        #expect(String(decoding: line, as: UTF8.self) == #"{"type":"message","summary":{"id":1,"status":0,"elapsed":null,"size":null,"failed":false,"method":"?","url":""},"requestID":1,"state":"cancelled","startedAt":"1970-01-01T00:00:00.000Z","callbackQueue":"q"}"# + "\n")
        #expect(try SessionLogFormat.makeDecoder().decode(DebugMessage.self, from: Data(line)) == message)
    }
}

