import CurlewAgent
@testable import CurlewSessions
import CurlewTestSupport
import Foundation
import Testing

/// A fresh directory under the system's temporary folder.
private func temporaryDirectory() throws -> String {
    let path = NSTemporaryDirectory() + "curlew-tests-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// Runs `requests` through an agent with a logger writing to a new file, and returns its path.
private func writeSession(_ requests: [Request], config: NetworkLoggerConfig = NetworkLoggerConfig(), delegate: (any NetworkLoggerDelegate)? = nil) async throws -> String {
    let server = try await TestServer.shared()
    var config = config
    config.logFilePath = try temporaryDirectory() + "/session.jsonl"
    let agent = Agent(config: NetworkConfig(baseURL: server.baseURL))
    let logger = try NetworkLogger(config: config, delegate: delegate)
    agent.addObserver(logger)
    for request in requests { _ = try? await agent.send(request) }
    await agent.waitForObservers()
    try logger.close()
    return config.logFilePath!
}

@Suite("Session logs")
struct SessionLogTests {
    @Test("a log has the header first, then one complete line per request with every field")
    func roundTrip() async throws {
        let path = try await writeSession([
            Request(.get, "/get", name: "first"),
            Request(.post, "/post", name: "second", params: ["x": 1], requestSerializer: .json),
            Request(.get, "/status/500", name: "third"),
        ], config: NetworkLoggerConfig(channelID: "ch-1", appKey: "key", appName: "TestApp", appVersion: "9.9", serviceType: "qa"))
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines[0].contains("\"type\":\"header\""))

        let log = try SessionLogReader.read(path: path)
        let header = try #require(log.header)
        #expect(header.appName == "TestApp")
        #expect(header.appVersion == "9.9")
        #expect(header.channelID == "ch-1")
        #expect(header.appKey == "key")
        #expect(header.serviceType == "qa")
        #expect(header.libcurlVersion.hasPrefix("libcurl/"))
        #expect(!header.hostName.isEmpty && !header.osVersion.isEmpty)
        #expect(log.skipped.isEmpty)
        #expect(log.messages.map(\.name) == ["first", "second", "third"])
        let second = log.messages[1]
        #expect(second.original?.body?.text == "{\"x\":1}")
        #expect(second.sent?.head.hasPrefix("POST /post HTTP/1.1") == true)
        #expect(second.response?.statusCode == 200)
        #expect(second.timings != nil && second.connection != nil)
        #expect(log.messages[2].error?.kind == .unacceptableStatus)
        #expect(log.messages[2].response?.body.text?.contains("500") == true)
    }

    /// A log of one entry written by the logger: its path (for the caller to remove), its bytes
    /// and its message line.
    private func oneEntryLog() throws -> (path: String, data: Data, message: Data) {
        let path = NSTemporaryDirectory() + "curlew-overlong-\(UUID().uuidString).jsonl"
        let logger = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: path))
        logger.requestDidProduce(Fixtures.message(id: 1))
        try logger.close()
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return (path, data, Data(try #require(data.split(separator: 0x0A).last)))
    }

    @Test("params nested hundreds deep or tens of thousands of values long are read back as written, with no value tried as every kind in turn (found by review: a 1.6 MB line of nested arrays took over ten minutes to read)")
    func hostileParamsReadBack() throws {
        var deepArray: JSONValue = 1
        for _ in 0..<400 { deepArray = [deepArray] }
        var deepObject: JSONValue = "x"
        for _ in 0..<400 { deepObject = ["a": deepObject] }
        let wide = JSONValue.array((0..<50_000).map { .int(Int64($0)) })
        // Members in their order, numbers as written (found by review: a short object came back in hash order).
        let params: JSONValue = ["deep": [deepArray, deepObject], "wide": wide, "mixed": ["s", 1, 2.5, true, nil, ["k": "v", "k": "w"]],
                                 "b": 1, "a": 2, "d": 3, "c": 1.5]
        let path = NSTemporaryDirectory() + "curlew-deep-params-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let logger = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: path))
        var message = Fixtures.message(id: 1)
        message.original?.params = params
        logger.requestDidProduce(message)
        logger.requestDidProduce(Fixtures.message(id: 2))
        try logger.close()
        let log = try SessionLogReader.read(path: path)
        #expect(log.skipped.isEmpty, "\(log.skipped)")
        #expect(log.messages.count == 2)
        #expect(log.messages.first?.original?.params == params)
        #expect(log.messages.last?.original?.params == Fixtures.message(id: 2).original?.params, "the next line is read as usual")
        var ordered = Fixtures.message(id: 3)
        ordered.original?.params = ["b": 1, "a": 2, "d": 3, "c": 4, "e": ["z": 1, "y": 2]]
        let small = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: path + ".small"))
        defer { try? FileManager.default.removeItem(atPath: path + ".small") }
        small.requestDidProduce(ordered)
        try small.close()
        #expect(try SessionLogReader.read(path: path + ".small").messages.first?.original?.params == ordered.original?.params, "a small object keeps its order too")
    }

    @Test("a valid JSON line with a fraction where a whole number goes is said to be valid JSON the record cannot hold, not JSON that is corrupt (found by a new user's trial)")
    func fractionWhereWholeNumberGoes() throws {
        let (path, written, message) = try oneEntryLog()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let text = String(decoding: message, as: UTF8.self)
        let changed = try #require(text.range(of: #""wait":\d+"#, options: .regularExpression).map { text.replacingCharacters(in: $0, with: #""wait":1.5"#) })
        let log = SessionLogReader.read(data: written + Data((changed + "\n").utf8))
        #expect(log.messages.count == 1)
        #expect(log.skipped.first?.reason.hasPrefix("valid JSON with a value the record cannot hold") == true, "\(log.skipped)")
        let corrupt = SessionLogReader.read(data: written + Data((String(text.dropLast(2)) + "x}\n").utf8))
        #expect(corrupt.skipped.first?.reason.hasPrefix("not valid JSON") == true, "\(corrupt.skipped)")
        // Params nested past what the decoder reads: said so, not called corrupt (found by a new user's trial).
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        let nested = try #require(text.range(of: #""params":{}"#).map { text.replacingCharacters(in: $0, with: #""params":"# + deep) })
        let tooDeep = SessionLogReader.read(data: written + Data((nested + "\n").utf8))
        #expect(tooDeep.skipped.first?.reason == "nested deeper than the 512 levels a record is read to", "\(tooDeep.skipped)")
    }

    @Test("a line longer than 64 MiB is skipped as too long, unread, and the lines around it are read (found by a new user's trial: it was parsed, then called not JSON)")
    func overlongLine() throws {
        let (path, written, message) = try oneEntryLog()
        defer { try? FileManager.default.removeItem(atPath: path) }
        var data = written
        // The header line and the message line, then a line too long, then the message again.
        data.append(Data(#"{"type":"message","x":""#.utf8))
        data.append(Data(repeating: UInt8(ascii: "a"), count: 64 << 20))
        data.append(Data("\"}\n".utf8))
        data.append(message)
        let log = SessionLogReader.read(data: data)
        #expect(log.messages.count == 2)
        #expect(log.skipped.map(\.line) == [3] && log.skipped.first?.reason == "line longer than 64 MiB")
    }

    @Test("a message line just over 64 MiB that the index's buffer holds whole is skipped there too, so the index and the reader number the same entries (found by a new user's trial: the browser's entry 3 was `log show`'s 2)")
    func overlongLineNumberedAlike() throws {
        let (path, written, message) = try oneEntryLog()
        defer { try? FileManager.default.removeItem(atPath: path) }
        var data = written
        // The message again, its summary first as the index reads it, padded past the limit.
        var long = Data(message.dropLast())
        long.append(Data(#","pad":""#.utf8))
        long.append(Data(repeating: UInt8(ascii: "a"), count: (64 << 20) + 1 - long.count - 2))
        long.append(Data("\"}".utf8))
        #expect(long.count == (64 << 20) + 1)
        data.append(long + Data("\n".utf8) + message + Data("\n".utf8))
        try data.write(to: URL(fileURLWithPath: path))
        let log = try SessionLogReader.read(path: path)
        let index = try SessionLogIndex(path: path)
        #expect(log.messages.count == 2 && log.skipped.map(\.line) == [3])
        #expect(index.entryCount == log.messages.count)
        // The same line last, without its line break (found by review: the index took it).
        try (data.prefix(data.count - message.count - 2) ).write(to: URL(fileURLWithPath: path))
        let cutLog = try SessionLogReader.read(path: path)
        #expect(cutLog.messages.count == 1 && cutLog.skipped.map(\.line) == [3])
        #expect(try SessionLogIndex(path: path).entryCount == 1)
    }

    @Test("a log read from its file a piece at a time reads as its bytes whole do: lines across the pieces, CRLF ends, a line too long between them and a last line without its break")
    func readPieceByPiece() throws {
        let path = NSTemporaryDirectory() + "curlew-pieces-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let logger = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: path))
        // Lines of 7 KB and more, so that many of them straddle the reader's 1 MiB pieces.
        for id in 1...400 {
            var message = Fixtures.message(id: UInt64(id))
            message.original?.params = ["pad": .string(String(repeating: "x", count: 7_000 + id))]
            logger.requestDidProduce(message)
        }
        try logger.close()
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        let message = Data(try #require(data.split(separator: 0x0A).last))
        #expect(data.count > 2 * SessionLogReader.pieceBytes)
        data.append(message + Data("\r\n".utf8))
        data.append(Data(#"{"type":"message","x":""#.utf8) + Data(repeating: UInt8(ascii: "a"), count: 64 << 20) + Data("\"}\n".utf8))
        data.append(Data("not a record\n\n".utf8) + message)
        try data.write(to: URL(fileURLWithPath: path))
        let whole = SessionLogReader.read(data: data)
        let pieces = try SessionLogReader.read(path: path)
        #expect(pieces.messages.count == 402 && pieces.messages == whole.messages)
        #expect(pieces.entryNumbers == whole.entryNumbers && pieces.headers.count == 1)
        #expect(pieces.skipped == whole.skipped && pieces.skipped.map(\.line) == [403, 404], "\(pieces.skipped)")
        #expect(pieces.skipped.first?.reason == "line longer than 64 MiB")
        var numbers: [Int] = []
        _ = try ExchangeFile.forEachExchange(path: path) { _, number in numbers.append(number) }
        #expect(numbers == Array(1...402))
    }

    @Test("a byte order mark before a line (an editor on Windows saved the log; `cat` joined such logs) is read past, by the reader and the index alike (found by a new user's trial: the header was skipped as not JSON)")
    func byteOrderMarks() throws {
        let (path, written, message) = try oneEntryLog()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let bom = Data([0xEF, 0xBB, 0xBF])
        let data = bom + written + bom + message + Data("\r\n".utf8) + bom + message
        try data.write(to: URL(fileURLWithPath: path))
        let log = try SessionLogReader.read(path: path)
        #expect(log.skipped.isEmpty && log.headers.count == 1 && log.messages.count == 3, "\(log.skipped)")
        let index = try SessionLogIndex(path: path)
        #expect(index.entryCount == 3)
        for entry in 0..<3 { #expect(index.summary(at: entry)?.requestID == log.messages[entry].requestID && index.message(at: entry) != nil, "entry \(entry)") }
        // The logger appends to such a log as to any other (it had refused it as not a log).
        let logger = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: path))
        logger.requestDidProduce(Fixtures.message(id: 9))
        try logger.close()
        let appended = try SessionLogReader.read(path: path)
        #expect(appended.skipped.isEmpty && appended.headers.count == 2 && appended.messages.map(\.requestID).last == 9, "\(appended.skipped)")
        // A file of a byte order mark alone (and a line end) is empty to the logger too (found by a
        // new user's trial: refused as not a log; by review, with its line end).
        try (bom + Data("\r\n".utf8)).write(to: URL(fileURLWithPath: path))
        let fresh = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: path))
        fresh.requestDidProduce(Fixtures.message(id: 10))
        try fresh.close()
        #expect(try SessionLogReader.read(path: path).messages.map(\.requestID) == [10])
    }

    @Test("bodies beyond the logger's caps keep their first bytes, their full size and the truncated flag")
    func bodyCap() async throws {
        let path = try await writeSession([
            Request(.get, "/bytes/200000", name: "binary"),
            Request(.get, "/bytes/100", name: "small"),
            Request(.get, "/range/5000", name: "text"),
        ], config: NetworkLoggerConfig(maxBodyBytes: 1000, maxBinaryBodyBytes: 300))
        let log = try SessionLogReader.read(path: path)
        let binary = try #require(log.messages.first { $0.name == "binary" }?.response?.body)
        #expect(binary.size == 200_000 && binary.data.count == 300 && binary.isTruncated)
        let small = try #require(log.messages.first { $0.name == "small" }?.response?.body)
        #expect(small.size == 100 && small.data.count == 100 && !small.isTruncated)
        let text = try #require(log.messages.first { $0.name == "text" }?.response?.body)
        #expect(text.size == 5000 && text.data.count == 1000 && text.text != nil && text.isTruncated)
        #expect(NetworkLoggerConfig().maxBodyBytes == 64 << 10 && NetworkLoggerConfig().maxBinaryBodyBytes == 4 << 10)
    }

    @Test("log files are created readable by the owner only")
    func ownerOnly() async throws {
        let path = try await writeSession([Request(.get, "/get")])
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }

    @Test("credentials, cookies and secret fields are redacted by default")
    func redaction() async throws {
        let secret = "s3cr3t-value"
        let path = try await writeSession([
            Request(.post, "/anything?api_key=\(secret)", headers: ["Authorization": "Bearer \(secret)", "Cookie": "session=\(secret)"]),
            Request(.post, "/login", params: ["username": "ada", "password": .string(secret)], requestSerializer: .json),
        ])
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!text.contains(secret))
        #expect(text.contains(RedactionPolicy.marker))
        let log = try SessionLogReader.read(path: path)
        let first = try #require(log.messages.first)
        #expect(first.original?.headers.first { $0.name == "Authorization" }?.value == RedactionPolicy.marker)
        #expect(first.sent?.head.contains("Authorization: \(RedactionPolicy.marker)") == true)
        let login = log.messages[1]
        #expect(login.response.flatMap { try? JSONValue.parse($0.body.data)["token"] } == .string(RedactionPolicy.marker))
    }

    @Test("declared secret values are hidden wherever they appear; opting out keeps everything")
    func declaredSecretsAndOptOut() async throws {
        let secret = "tok-42-abcdef"
        let redacted = try await writeSession(
            [Request(.get, "/anything/\(secret)", headers: ["X-Custom": secret])],
            config: NetworkLoggerConfig(redaction: RedactionPolicy(secretValues: [secret])))
        #expect(!(try String(contentsOfFile: redacted, encoding: .utf8)).contains(secret))

        let kept = try await writeSession(
            [Request(.get, "/get", headers: ["Authorization": "Bearer \(secret)"])],
            config: NetworkLoggerConfig(redaction: .disabled))
        #expect(try String(contentsOfFile: kept, encoding: .utf8).contains("Bearer \(secret)"))
    }

    @Test("a truncated last line is skipped and counted, and every complete entry is read")
    func truncatedLastLine() async throws {
        let path = try await writeSession([Request(.get, "/get"), Request(.get, "/json")])
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let lines = data.split(separator: 0x0A)
        let truncated = data + lines[1].prefix(lines[1].count / 2)
        try truncated.write(to: URL(fileURLWithPath: path))
        let log = try SessionLogReader.read(path: path)
        #expect(log.messages.count == 2)
        #expect(log.skipped.count == 1)
        #expect(log.skipped.first?.line == 4)
    }

    @Test("a corrupt line in the middle is skipped with its line number and reason")
    func corruptMiddleLine() async throws {
        let path = try await writeSession([Request(.get, "/get"), Request(.get, "/json")])
        var lines = try String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "\n")
        lines.insert("{\"type\":\"message\",\"requestID\":\"not a number\"}", at: 2)
        lines.insert("garbage ]]", at: 2)
        try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let log = try SessionLogReader.read(path: path)
        #expect(log.messages.count == 2)
        #expect(log.skipped.map(\.line) == [3, 4])
        #expect(log.skipped.allSatisfy { !$0.reason.isEmpty })
    }

    @Test("a file that is not a session log, or is missing, gives a clear error")
    func notASessionLog() throws {
        let path = try temporaryDirectory() + "/notes.jsonl"
        try "hello\nworld\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: SessionLogError.self) { try SessionLogReader.read(path: path) }
        do { _ = try SessionLogReader.read(path: path) } catch { #expect(error.kind == .notASessionLog) }
        do { _ = try SessionLogReader.read(path: path + ".missing") } catch { #expect(error.kind == .unreadable) }
    }

    @Test("a second run appending to the same file adds a second header, and both runs' entries read")
    func appendedRuns() async throws {
        let path = try await writeSession([Request(.get, "/get")])
        let agent = Agent(config: NetworkConfig(baseURL: try await TestServer.shared().baseURL))
        let logger = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: path))
        agent.addObserver(logger)
        _ = try await agent.send(Request(.get, "/json"))
        await agent.waitForObservers()
        try logger.close()
        let log = try SessionLogReader.read(path: path)
        #expect(log.headers.count == 2)
        #expect(log.messages.count == 2)
    }

    private final class Delegate: NetworkLoggerDelegate {
        func customInfo(for message: DebugMessage) -> JSONValue? { ["build": "42", "status": .int(Int64(message.response?.statusCode ?? 0))] }
        func customHeader(for config: NetworkLoggerConfig) -> JSONValue? { ["team": "mobile"] }
    }

    @Test("a logger delegate adds its own data to the header and to each entry")
    func delegateCustomData() async throws {
        let path = try await writeSession([Request(.get, "/get")], delegate: Delegate())
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { try JSONValue.parse(String($0)) }
        #expect(lines[0]["custom"]?["team"] == .string("mobile"))
        #expect(lines[1]["custom"]?["status"] == .int(200))
        #expect(try SessionLogReader.read(path: path).header?.custom?["team"] == .string("mobile"))
    }

    @Test("json and plist logger types also export the whole session on close")
    func exports() async throws {
        let jsonPath = try await writeSession([Request(.get, "/get"), Request(.get, "/json")], config: NetworkLoggerConfig(loggerType: .json))
        let array = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: jsonPath.replacingOccurrences(of: ".jsonl", with: ".json"))))
        guard case .array(let records) = array else { Issue.record("expected an array"); return }
        #expect(records.count == 3)
        #expect(records[0]["type"] == .string("header"))

        let plistPath = try await writeSession([Request(.get, "/get")], config: NetworkLoggerConfig(loggerType: .plist))
        let plistData = try Data(contentsOf: URL(fileURLWithPath: plistPath.replacingOccurrences(of: ".jsonl", with: ".plist")))
        let plist = try PropertyListSerialization.propertyList(from: plistData, format: nil) as? [[String: Any]]
        #expect(plist?.count == 2)
        #expect(plist?[1]["type"] as? String == "message")
    }

    @Test("with local logging off no file is created")
    func disabled() throws {
        let directory = try temporaryDirectory()
        let logger = try NetworkLogger(config: NetworkLoggerConfig(enableLocalLog: false, logFilePath: directory + "/x.jsonl"))
        #expect(logger.path == nil)
        #expect(!FileManager.default.fileExists(atPath: directory + "/x.jsonl"))
    }

    @Test("a log path that cannot be created is a clear error, not a crash")
    func unwritablePath() throws {
        let file = try temporaryDirectory() + "/plain-file"
        try "x".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(throws: NetworkLoggerError.self) {
            try NetworkLogger(config: NetworkLoggerConfig(logFilePath: file + "/inside/log.jsonl"))
        }
    }
}
