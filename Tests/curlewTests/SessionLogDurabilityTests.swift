import CurlewAgent
import CurlewSessions
import CurlewTestSupport
import Foundation
import Testing

@Suite("Session log durability")
struct SessionLogDurabilityTests {
    @Test("a process killed with SIGKILL after N completed requests leaves all N entries readable")
    func sigkill() async throws {
        let server = try await TestServer.shared()
        let directory = NSTemporaryDirectory() + "curlew-kill-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/session.jsonl"
        let completed = 25
        let child = try CurlewProcess(["send", "--repeat", "100000", "--log", path, "\(server.baseURL)/get"])
        try await child.waitForOutput(containing: "#\(completed) ")
        child.kill()
        _ = try await child.wait()

        let log = try SessionLogReader.read(path: path)
        #expect(log.header != nil)
        #expect(log.messages.count >= completed)
        #expect(log.skipped.isEmpty, "every write was one complete line: \(log.skipped)")
        #expect(log.messages.prefix(completed).allSatisfy { $0.response?.statusCode == 200 })
    }

    @Test("log show, stats and diff escape control characters a logged field holds, piped or not (found by a new user's trial: a captured header's ESC sequences reached the terminal through a refused step's URL)")
    func showEscapesControls() async throws {
        let path = NSTemporaryDirectory() + "curlew-escapes-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let logger = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: path))
        logger.requestDidProduce(Fixtures.message(id: 1, name: "step\u{07}", url: "http://api.example.test/a/\u{1B}]0;pwned\u{07}\u{1B}[2J",
                                                  responseBody: "{\"k\\u001b]0;pwned\\u0007\": 1}"))
        logger.requestDidProduce(Fixtures.message(id: 2, url: "http://api.example.test/b"))
        // A tab would move the columns after it (found by a new user's trial): it is written `\t`.
        logger.requestDidProduce(Fixtures.message(id: 3, url: "http://api.example.test/c\td"))
        try logger.close()
        for command in [["log", "show", path], ["log", "stats", path], ["log", "diff", "\(path)#1", "\(path)#2", "--all"]] {
            let shown = try await CurlewProcess.run(command)
            #expect(shown.status == 0, "\(command) \(shown.error)")
            #expect(!shown.output.contains("\u{1B}") && !shown.output.contains("\u{07}"), "\(command): \(shown.output)")
            #expect(shown.output.contains(#"\e]0;pwned"#), "\(command): \(shown.output)")
            #expect(!shown.output.contains("\t"), "\(command): \(shown.output)")
        }
        #expect(try await CurlewProcess.run(["log", "show", path]).output.contains(#"http://api.example.test/c\td"#))
    }

    @Test("export curl and http leave out, saying why, an exchange no run could send; log show keeps its columns for a method too long for them (found by a new user's trial: `curl 'javascript:alert(1)'`)")
    func unsendableExchangesLeftOut() async throws {
        let path = NSTemporaryDirectory() + "curlew-unsendable-\(UUID().uuidString).har"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let entries = [("GET /x HTTP/1.1", "http://h.test/a"), ("GET", "javascript:alert(1)"), ("GET", "http://[::1/x"), ("PROPFIND", "http://h.test/dav"),
                       ("GET", "http://h.test/ok")]
            .map { #"{"request": {"method": "\#($0.0)", "url": "\#($0.1)"}, "response": {"status": 200}}"# }
            + [#"{"request": {"method": "GET", "url": "http://h.test/bad-header", "headers": [{"name": "X Bad", "value": "v"}]}, "response": {"status": 200}}"#,
               // A browser's or Curlew's own HAR carries the headers the transport sets: kept (found by review).
               #"{"request": {"method": "POST", "url": "http://h.test/posted", "headers": [{"name": ":method", "value": "POST"}, {"name": "Content-Length", "value": "2"}], "postData": {"mimeType": "text/plain", "text": "hi"}}, "response": {"status": 200}}"#]
        let document = #"{"log": {"entries": ["# + entries.joined(separator: ",") + "]}}"
        try document.write(toFile: path, atomically: true, encoding: .utf8)
        let curl = try await CurlewProcess.run(["export", "curl", path])
        #expect(curl.status == 0 && curl.output.hasPrefix("curl -X PROPFIND http://h.test/dav\n\ncurl http://h.test/ok\n\ncurl") && curl.output.contains("http://h.test/posted"), "\(curl.output)")
        #expect(curl.error.components(separatedBy: "which no run could send").count == 5 && curl.error.contains("left out exchange 2 of"), "\(curl.error)")
        #expect(curl.error.contains("X Bad"), "\(curl.error)")
        #expect(curl.error.contains("is not an HTTP token") && curl.error.contains("is not an http or https URL") && curl.error.contains("IPv6"))
        let http = try await CurlewProcess.run(["export", "http", path])
        #expect(http.status == 0 && !http.output.contains("javascript") && http.output.contains("http://h.test/ok"), "\(http.output)")
        // Records are exported whole: a HAR of a HAR keeps every entry.
        let har = try await CurlewProcess.run(["export", "har", path])
        #expect(har.output.contains("javascript:alert(1)"))
        let shown = try await CurlewProcess.run(["log", "show", path]).output.split(separator: "\n")
        let statusColumns = shown.dropFirst().prefix(5).map { $0.range(of: "200")?.lowerBound.utf16Offset(in: $0) }
        #expect(Set(statusColumns).count == 1 && shown[1].contains("GET /x HTTP…") && shown[4].contains("PROPFIND"), "\(shown)")
    }

    @Test("log show pads and cuts by the cells a terminal gives each character: a wide (CJK) method keeps the columns after it in place (found by a new user's trial)")
    func wideMethodColumns() async throws {
        let path = NSTemporaryDirectory() + "curlew-wide-method-\(UUID().uuidString).har"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let entries = ["取得", "GET", "取得取得取得取得"].map { #"{"request": {"method": "\#($0)", "url": "http://h.test/x"}, "response": {"status": 200}}"# }
        try (#"{"log": {"entries": ["# + entries.joined(separator: ",") + "]}}").write(toFile: path, atomically: true, encoding: .utf8)
        let shown = try await CurlewProcess.run(["log", "show", path]).output.split(separator: "\n")
        func cells(_ text: Substring) -> Int { text.reduce(0) { $0 + (($1.unicodeScalars.first.map { (0x4E00...0x9FFF).contains($0.value) } ?? false) ? 2 : 1) } }
        let statusColumns = shown.dropFirst().prefix(3).map { line in line.range(of: "200").map { cells(line[..<$0.lowerBound]) } }
        #expect(statusColumns.count == 3 && Set(statusColumns).count == 1, "\(shown)")
        #expect(shown[3].contains("取得取得取…"), "cut by cells, within the column's 12: \(shown)")
    }

    @Test("a line whose timings are past a hundred years or below zero is skipped by log show, stats and diff, never summed into a crash (found by a new user's trial: 2^62 µs stopped log show and the interface on an arithmetic overflow)",
          arguments: ["4611686018427387904", "-7000"])
    func damagedTimings(_ total: String) async throws {
        let path = NSTemporaryDirectory() + "curlew-timings-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let logger = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: path))
        logger.requestDidProduce(Fixtures.message(id: 1, url: "http://h.test/kept"))
        logger.requestDidProduce(Fixtures.message(id: 2, url: "http://h.test/damaged"))
        logger.requestDidProduce(Fixtures.message(id: 3, url: "http://h.test/also-kept"))
        try logger.close()
        // The second entry's total, and the summary's elapsed made from it, rewritten.
        var lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let damaged = try #require(lines.firstIndex { $0.contains("h.test/damaged") })
        lines[damaged] = lines[damaged].replacing(/"total":\d+/, with: "\"total\":\(total)")
        lines[damaged] = lines[damaged].replacing(/"elapsed":\d+/, with: "\"elapsed\":\(total)")
        try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        for command in [["log", "show", path], ["log", "show", path, "--filter", "~dur >1ms"], ["log", "stats", path],
                        ["log", "diff", "\(path)#1", "\(path)#2", "--all"]] {
            let shown = try await CurlewProcess.run(command)
            #expect(shown.status == 0 || shown.status == 1, "\(command) \(shown.status) \(shown.error)")
            #expect(!shown.output.contains("h.test/damaged"), "\(command): \(shown.output)")
        }
        let shown = try await CurlewProcess.run(["log", "show", path])
        #expect(shown.output.contains("h.test/kept") && shown.output.contains("h.test/also-kept"), "\(shown.output)")
        #expect(shown.error.contains("skipped") || shown.output.contains("skipped"), "\(shown.output) \(shown.error)")
    }

    @Test("log show and log diff hide the secrets of a log written with --no-redact, as exports and the log browser do; their --no-redact shows them (found by a new user's trial)")
    func logToolsRedactAgain() async throws {
        let path = NSTemporaryDirectory() + "curlew-noredact-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        var config = NetworkLoggerConfig(logFilePath: path)
        config.redaction = .disabled
        let logger = try NetworkLogger(config: config)
        for id in 1...2 {
            logger.requestDidProduce(Fixtures.message(id: UInt64(id), method: "POST", url: "http://h.test/anything?token=Tok99secret\(id)",
                                                      requestHeaders: [HeaderField(name: "Cookie", value: "sid=Cookie99sec\(id)")],
                                                      requestBody: #"{"password":"Json99secret\#(id)"}"#))
        }
        try logger.close()
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains("Tok99secret1"), "the log holds them")
        for command in [["log", "show", path], ["log", "diff", "\(path)#1", "\(path)#2", "--all"]] {
            let shown = try await CurlewProcess.run(command)
            #expect(shown.status == 0, "\(command) \(shown.error)")
            for secret in ["Tok99secret", "Cookie99sec", "Json99secret"] { #expect(!shown.output.contains(secret), "\(command): \(shown.output)") }
            let open = try await CurlewProcess.run(command + ["--no-redact"])
            #expect(open.output.contains("Tok99secret1"), "\(command) --no-redact: \(open.output)")
        }
        // log stats names endpoints by their paths, which may repeat a credential (found by review).
        let basic = NSTemporaryDirectory() + "curlew-noredact-basic-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: basic) }
        var basicConfig = config
        basicConfig.logFilePath = basic
        let basicLogger = try NetworkLogger(config: basicConfig)
        basicLogger.requestDidProduce(Fixtures.message(id: 1, url: "http://h.test/basic-auth/bob/Basic99secret",
                                                       requestHeaders: [HeaderField(name: "Authorization", value: HTTPHeaders.basicAuthorization("bob:Basic99secret"))]))
        try basicLogger.close()
        let stats = try await CurlewProcess.run(["log", "stats", basic])
        #expect(stats.status == 0 && stats.output.contains("/basic-auth/bob/") && !stats.output.contains("Basic99secret"), "\(stats.output) \(stats.error)")
        #expect(try await CurlewProcess.run(["log", "stats", basic, "--no-redact"]).output.contains("Basic99secret"))
    }

    @Test("log show's duration is the elapsed time the interface shows, queued time included")
    func showDuration() async throws {
        let path = NSTemporaryDirectory() + "curlew-show-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let logger = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: path))
        let message = Fixtures.message(elapsedMicros: 7_250)
        logger.requestDidProduce(message)
        try logger.close()
        let shown = try await CurlewProcess.run(["log", "show", path])
        #expect(shown.status == 0)
        #expect(message.timings?.elapsed == 7_250)
        #expect(shown.output.contains(TimingBreakdown.format(7_250)), "\(shown.output)")
    }

    @Test("log show's sizes read as the interface's: an empty body is 0 B, not \"Zero KB\" (found by a new user's trial)")
    func showSizes() async throws {
        let path = NSTemporaryDirectory() + "curlew-show-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let logger = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: path))
        logger.requestDidProduce(Fixtures.message(id: 1, responseBody: ""))
        logger.requestDidProduce(Fixtures.message(id: 2, responseBody: String(repeating: "x", count: 3_072)))
        try logger.close()
        let shown = try await CurlewProcess.run(["log", "show", path])
        #expect(shown.output.contains(" 0 B ") && shown.output.contains(" 3.0 KiB ") && !shown.output.contains("Zero"), "\(shown.output)")
        #expect(ByteCountText.of(70) == "70 B" && ByteCountText.of(1_572_864) == "1.5 MiB" && ByteCountText.of(3 << 30) == "3.00 GiB")
    }

    @Test("log show --filter numbers each row as in the whole log, the LOG#N diff takes (found by a new user's trial)")
    func filteredNumbers() async throws {
        let path = NSTemporaryDirectory() + "curlew-show-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let logger = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: path))
        logger.requestDidProduce(Fixtures.message(id: 1, url: "http://h.test/first"))
        logger.requestDidProduce(Fixtures.message(id: 2, method: "POST", url: "http://h.test/second"))
        logger.requestDidProduce(Fixtures.message(id: 3, url: "http://h.test/third"))
        logger.requestDidProduce(Fixtures.message(id: 4, method: "POST", url: "http://h.test/fourth"))
        try logger.close()
        let shown = try await CurlewProcess.run(["log", "show", path, "--filter", "~m POST"])
        #expect(shown.status == 0)
        let rows = shown.output.split(separator: "\n").dropFirst().filter { $0.contains("http://") }
        #expect(rows.map { $0.split(separator: " ").first.map(String.init) } == ["2", "4"], "\(shown.output)")
        let diff = try await CurlewProcess.run(["log", "diff", "\(path)#2", "\(path)#4"])
        #expect(diff.output.contains("second") && diff.output.contains("fourth"), "\(diff.output)")
    }

    @Test("log show prints every error kind whole, its column as wide as the longest status")
    func showErrorKinds() async throws {
        let path = NSTemporaryDirectory() + "curlew-show-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let logger = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: path))
        logger.requestDidProduce(Fixtures.message(id: 1))
        logger.requestDidProduce(Fixtures.message(id: 2, status: nil, error: RequestError(.untrustedCertificate, "self-signed")))
        logger.requestDidProduce(Fixtures.message(id: 3, status: nil, error: RequestError(.couldNotResolveHost, "no such host")))
        try logger.close()
        let shown = try await CurlewProcess.run(["log", "show", path])
        #expect(shown.status == 0)
        for kind in ["untrustedCertificate", "couldNotResolveHost"] { #expect(shown.output.contains(kind + "  "), "\(shown.output)") }
        let lines = shown.output.split(separator: "\n")
        // The columns after the status line up on every row.
        let durationEnds = lines.prefix(4).map { line in line.range(of: "ms")?.upperBound.utf16Offset(in: line) }
        #expect(Set(durationEnds.dropFirst().compactMap { $0 }).count == 1, "\(shown.output)")
    }

    @Test("a damaged line whose summary still reads keeps its entry number in log show and diff, as the log browser numbers it (found by review: the numbers after it differed)", .timeLimit(.minutes(1)))
    func damagedEntryKeepsItsNumber() async throws {
        let path = NSTemporaryDirectory() + "curlew-numbers-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        // Entries 2 and 5 (the last) damaged after their summaries: still complete objects whose
        // summaries read, but `state` is no state. Entry 3's line led by a space: no complete
        // object, an entry for neither the browser nor the CLI.
        var lines = try Fixtures.writeEntryLog(count: 5, to: path)
        for line in [2, 5] {
            #expect(lines[line].contains(#""state":"succeeded""#))
            lines[line] = lines[line].replacingOccurrences(of: #""state":"succeeded""#, with: #""state":"melted""#)
        }
        lines[3] = " " + lines[3]
        try Fixtures.writeLines(lines, to: path)

        let index = try SessionLogIndex(path: path)
        index.waitUntilComplete()
        #expect(index.entryCount == 4 && index.message(at: 1) == nil && index.message(at: 2)?.original?.url == "http://h/entry4"
            && index.message(at: 3) == nil)
        let log = SessionLogReader.read(data: try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(log.messages.map(\.requestID) == [1, 4] && log.entryNumbers == [1, 3])
        #expect(log.skipped.map(\.line) == [3, 4, 6] && log.skipped.map(\.entry) == [2, nil, 4])

        let shown = try await CurlewProcess.run(["log", "show", path])
        #expect(shown.status == 0)
        let rows = shown.output.split(separator: "\n").dropFirst().prefix(2).map { $0.split(separator: " ").first.map(String.init) }
        #expect(rows == ["1", "3"], "\(shown.output)")
        #expect(shown.error.contains("entries #2, #4 cannot be read"), "\(shown.error)")
        #expect(shown.output.hasSuffix("2 exchanges (and 2 entries that cannot be read)\n"), "\(shown.output)")
        let third = try await CurlewProcess.run(["log", "diff", path + "#1", path + "#3"])
        #expect(third.status == 0 && third.output.contains("entry4"), "\(third.output)")
        for damaged in [2, 4] {
            let picked = try await CurlewProcess.run(["log", "diff", path + "#1", path + "#\(damaged)"])
            #expect(picked.status != 0 && picked.error.contains("#\(damaged): entry #\(damaged) cannot be read"), "\(picked.error)")
        }
        let past = try await CurlewProcess.run(["log", "diff", path + "#1", path + "#5"])
        #expect(past.status != 0 && past.error.contains("#5: the log has 4 exchanges: #1 to #4"), "\(past.error)")
    }

    @Test("log diff of two logs of 20,000 exchanges each pairs them in time proportional to their length (found by review: each exchange read the other log from its start)", .timeLimit(.minutes(2)))
    func diffOfLongLogs() async throws {
        let directory = NSTemporaryDirectory() + "curlew-long-diff-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        /// A path segment of letters for `number`: numbers in a path are folded when pairing.
        func word(_ number: Int) -> String {
            var number = number
            var letters = ""
            repeat { letters.append(Character(UnicodeScalar(UInt8(97 + number % 26)))); number /= 26 } while number > 0
            return letters
        }
        func log(_ name: String, side: String, count: Int) throws -> String {
            let path = directory + "/" + name
            let logger = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: path))
            for index in 0..<count {
                // Half named, half not, so both passes pair.
                logger.requestDidProduce(Fixtures.message(id: UInt64(index + 1), name: index % 2 == 0 ? "n\(side)\(word(index))" : nil,
                                                          method: "GET", url: "http://h/\(side)\(word(index))"))
            }
            try logger.close()
            return path
        }
        let count = 20_000
        let left = try log("left.jsonl", side: "l", count: count)
        let right = try log("right.jsonl", side: "r", count: count)
        let start = ContinuousClock.now
        let apart = try await CurlewProcess.run(["log", "diff", left, right])
        #expect(apart.status == 0 && apart.output.contains("0 pairs compared, 0 with differences, \(count) only in \(left), \(count) only in \(right)"),
                "\(apart.output.suffix(300))\(apart.error)")
        let same = try await CurlewProcess.run(["log", "diff", left, left])
        #expect(same.status == 0 && same.output.contains("\(count) pairs compared, 0 with differences\n"), "\(same.output.suffix(300))")
        #expect(ContinuousClock.now - start < .seconds(60))
    }

    @Test("log diff of two logs names the exchanges only one of them has, not only the pairs (found by a new user's trial)", .timeLimit(.minutes(1)))
    func diffNamesUnpairedExchanges() async throws {
        let directory = NSTemporaryDirectory() + "curlew-unpaired-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        /// A log of `exchanges` (method and path), named `names` in order where given.
        func log(_ name: String, _ exchanges: [(String, String)], names: [String?] = []) throws -> String {
            let path = directory + "/" + name
            let logger = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: path))
            for (index, (method, path)) in exchanges.enumerated() {
                logger.requestDidProduce(Fixtures.message(id: UInt64(index + 1), name: names.indices.contains(index) ? names[index] : nil,
                                                          method: method, url: "http://h" + path))
            }
            try logger.close()
            return path
        }
        let left = try log("left.jsonl", [("GET", "/a"), ("GET", "/b"), ("GET", "/c")])
        let right = try log("right.jsonl", [("GET", "/a"), ("GET", "/c"), ("POST", "/d")])
        let diffed = try await CurlewProcess.run(["log", "diff", left, right])
        #expect(diffed.status == 0)
        for text in ["== only in \(left): 1 exchange", "  #2 GET /b", "== only in \(right): 1 exchange", "  #3 POST /d",
                     "2 pairs compared, 0 with differences, 1 only in \(left), 1 only in \(right)"] {
            #expect(diffed.output.contains(text), "\(text) in \(diffed.output)")
        }
        let same = try await CurlewProcess.run(["log", "diff", left, left])
        #expect(same.output.contains("3 pairs compared, 0 with differences\n") && !same.output.contains("only in"), "\(same.output)")
        // Nothing in common (an empty log, another run's requests): every exchange listed, as
        // when some pair (found by a new user's trial: exit 2, "no exchange … has a match").
        let empty = directory + "/empty.jsonl"
        #expect(FileManager.default.createFile(atPath: empty, contents: nil))
        let apart = try await CurlewProcess.run(["log", "diff", left, empty])
        #expect(apart.status == 0 && apart.output.contains("== only in \(left): 3 exchanges")
                && apart.output.contains("0 pairs compared, 0 with differences, 3 only in \(left)"), "\(apart.output)\(apart.error)")
        let nothing = try await CurlewProcess.run(["log", "diff", empty, empty])
        #expect(nothing.status == 2 && nothing.error.contains("has an exchange to compare"), "\(nothing.error)")
        // No headings without rows, no lines padded past their text (found by a new user's trial).
        let emptyStats = try await CurlewProcess.run(["log", "stats", empty])
        #expect(emptyStats.status == 0 && emptyStats.output == "no exchanges to count\n", "\(emptyStats.output)")
        let all = try await CurlewProcess.run(["log", "diff", left, right, "--all"])
        #expect(!all.output.isEmpty && !all.output.split(separator: "\n").contains { $0.hasSuffix(" ") }, "\(all.output)")
        // One exchange against a whole log: compared with the one that pairs with it, not the
        // log's first (found by a new user's trial), whichever side names the number.
        let one = try await CurlewProcess.run(["log", "diff", left + "#3", right])
        #expect(one.status == 0 && one.output.contains("== \(left)#3 ↔ \(right)#2\n") && one.output.contains("1 pair compared, 0 with differences"),
                "\(one.output)")
        let flipped = try await CurlewProcess.run(["log", "diff", left, right + "#2"])
        #expect(flipped.status == 0 && flipped.output.contains("== \(left)#3 ↔ \(right)#2\n"), "\(flipped.output)")
        let none = try await CurlewProcess.run(["log", "diff", left + "#2", right])
        #expect(none.status != 0 && none.error.contains("no exchange of \(right) pairs with \(left)#2 (GET /b); name one with \(right)#N"), "\(none.error)")
        // The k-th exchange of an endpoint pairs with the k-th of the other log, as whole logs pair them.
        let twice = try log("twice.jsonl", [("GET", "/a"), ("GET", "/c"), ("GET", "/a")])
        let second = try await CurlewProcess.run(["log", "diff", twice + "#3", left])
        #expect(second.status != 0 && second.error.contains("the 1 exchange of \(left) like \(twice)#3 (GET /a) pairs with others of its log"), "\(second.error)")
        let back = try await CurlewProcess.run(["log", "diff", left + "#1", twice])
        #expect(back.status == 0 && back.output.contains("== \(left)#1 ↔ \(twice)#1\n"), "\(back.output)")
        // In the same log: the one before it of the same endpoint, else the one after, never itself.
        let earlier = try await CurlewProcess.run(["log", "diff", twice + "#3", twice])
        #expect(earlier.status == 0 && earlier.output.contains("== \(twice)#3 ↔ \(twice)#1\n"), "\(earlier.output)")
        let later = try await CurlewProcess.run(["log", "diff", twice, twice + "#1"])
        #expect(later.status == 0 && later.output.contains("== \(twice)#3 ↔ \(twice)#1\n"), "\(later.output)")
        // Named exchanges pair by name with named ones, and by method and path with unnamed ones
        // (found by a new user's trial: `send`'s unnamed exchange found none of a workspace's).
        let namedPath = try log("named.jsonl", [("GET", "/c"), ("GET", "/a")], names: ["list", "first"])
        let unnamed = try await CurlewProcess.run(["log", "diff", left + "#1", namedPath])
        #expect(unnamed.status == 0 && unnamed.output.contains("== \(left)#1 ↔ \(namedPath)#2\n"), "\(unnamed.output)")
        let whole = try await CurlewProcess.run(["log", "diff", namedPath, left])
        #expect(whole.output.contains("2 pairs compared") && whole.output.contains("1 only in \(left)"), "\(whole.output)")
        let byName = try await CurlewProcess.run(["log", "diff", namedPath + "#2", namedPath])
        #expect(byName.status != 0 && byName.error.contains("(named \"first\", or unnamed and GET /a)"), "\(byName.error)")
        // Names pair first, then endpoints, so a whole-log diff and LOG#N agree (found by review:
        // a named exchange took the unnamed one its namesake's partner needed).
        let l = try log("l.jsonl", [("GET", "/a"), ("GET", "/a")], names: ["x", nil])
        let r = try log("r.jsonl", [("GET", "/a"), ("GET", "/b")], names: [nil, "x"])
        let both = try await CurlewProcess.run(["log", "diff", l, r])
        #expect(both.output.contains("2 pairs compared") && !both.output.contains("only in"), "\(both.output)")
        let second2 = try await CurlewProcess.run(["log", "diff", l + "#2", r])
        #expect(second2.output.contains("== \(l)#2 ↔ \(r)#1\n"), "\(second2.output)")
        let l2 = try log("l2.jsonl", [("GET", "/a"), ("GET", "/a")], names: ["x", "y"])
        let r2 = try log("r2.jsonl", [("GET", "/a"), ("GET", "/z")], names: [nil, "y"])
        let byRank = try await CurlewProcess.run(["log", "diff", l2 + "#2", r2])
        #expect(byRank.output.contains("== \(l2)#2 ↔ \(r2)#2\n"), "\(byRank.output)")
        // The same file however it is written (found by a new user's trial: `./a#4 a` compared #4 with itself).
        let spelled = try await CurlewProcess.run(["log", "diff", twice + "#3", directory + "/./twice.jsonl"])
        #expect(spelled.status == 0 && spelled.output.contains("↔ \(directory)/./twice.jsonl#1\n"), "\(spelled.output)")
        let alone = try await CurlewProcess.run(["log", "diff", twice + "#2", twice])
        #expect(alone.status != 0 && alone.error.contains("no other exchange of \(twice) pairs with \(twice)#2 (GET /c)"), "\(alone.error)")
    }

    @Test("log show, stats and diff name the lines they could not read on stderr, once per log, and refuses a named pipe at once instead of waiting on it", .timeLimit(.minutes(1)))
    func unreadableLinesAndPipes() async throws {
        let directory = NSTemporaryDirectory() + "curlew-show-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/cut.jsonl"
        let logger = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: path))
        logger.requestDidProduce(Fixtures.message(elapsedMicros: 1_000))
        logger.requestDidProduce(Fixtures.message(elapsedMicros: 2_000))
        try logger.close()
        // The second entry cut in the middle, as a full disk or a killed copy leaves it.
        var lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        lines[1] = String(lines[1].prefix(120))
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: false, encoding: .utf8)
        for command in [["log", "show", path], ["log", "stats", path]] {
            let shown = try await CurlewProcess.run(command)
            #expect(shown.status == 0)
            #expect(shown.error.contains("1 unreadable line skipped (line 2:"), "\(shown.error)")
        }
        // One log named on both sides of a diff is read, and its warning given, once.
        let diffed = try await CurlewProcess.run(["log", "diff", path + "#1", path + "#1"])
        #expect(diffed.status == 0)
        #expect(diffed.error.components(separatedBy: "unreadable line").count == 2, "\(diffed.error)")
        let zero = try await CurlewProcess.run(["log", "diff", path + "#0", path + "#1"])
        #expect(zero.status != 0 && zero.error.contains("#0: the log has 1 exchange: #1"), "\(zero.error)")
        // A number past Int's range is a number out of range, not part of a file name (found by a new user's trial).
        let huge = try await CurlewProcess.run(["log", "diff", path + "#1", path + "#99999999999999999999"])
        #expect(huge.status != 0 && huge.error.contains("#99999999999999999999: the log has 1 exchange: #1"), "\(huge.error)")
        // Digits are ASCII digits: a combining mark makes the argument a file name.
        let marked = try await CurlewProcess.run(["log", "diff", path + "#1", path + "#1\u{301}"])
        #expect(marked.status != 0 && !marked.error.contains("the log has"), "\(marked.error)")

        let pipe = directory + "/pipe.jsonl"
        #expect(mkfifo(pipe, 0o600) == 0)
        for command in [["log", "show", pipe], ["log", "stats", pipe], ["log", "diff", pipe, path]] {
            let refused = try await CurlewProcess.run(command)
            #expect(refused.status != 0)
            #expect(refused.error.contains("not a regular file"), "\(refused.error)")
        }
    }

    @Test("send --log into a directory that does not exist is refused, and nothing is created")
    func logDirectoryMustExist() async throws {
        let server = try await TestServer.shared()
        let missing = NSTemporaryDirectory() + "curlew-missing-\(UUID().uuidString)"
        let result = try await CurlewProcess.run(["send", "--log", missing + "/deeper/x.jsonl", "\(server.baseURL)/get"])
        #expect(result.status != 0)
        #expect(result.error.contains("does not exist"), "\(result.error)")
        #expect(!FileManager.default.fileExists(atPath: missing))
    }
}
