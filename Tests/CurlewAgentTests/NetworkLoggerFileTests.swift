import CurlewAgent
import Foundation
import Testing

@Suite("Session log file")
struct NetworkLoggerFileTests {
    private static func path(_ name: String) -> String {
        NSTemporaryDirectory() + "curlew-logger-file-\(getpid())-\(UInt32.random(in: 0...UInt32.max))-\(name)"
    }

    @Test("an existing file that is not a session log is refused, its content and mode untouched")
    func refusesOtherFiles() throws {
        let path = Self.path("notes.txt")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data("notes\n".utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o644)
        #expect {
            try NetworkLogger(config: NetworkLoggerConfig(logFilePath: path))
        } throws: { error in
            "\(error)".contains("not a session log")
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "notes\n")
        var status = stat()
        #expect(stat(path, &status) == 0 && status.st_mode & 0o777 == 0o644)
    }

    @Test("an existing session log is appended to with a second header, and an empty file is taken as a new log")
    func appendsToLogsAndEmptyFiles() throws {
        let log = Self.path("session.jsonl")
        let empty = Self.path("empty.jsonl")
        defer { for path in [log, empty] { try? FileManager.default.removeItem(atPath: path) } }
        for _ in 0..<2 {
            let logger = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: log))
            logger.requestDidProduce(DebugMessage(requestID: 1, name: nil, state: .succeeded, startedAt: Date(), original: nil, sent: nil,
                                                  response: nil, error: nil, timings: nil, connection: nil, callbackQueue: "test"))
            try logger.close()
        }
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines.filter { $0.contains(#""type":"header""#) }.count == 2)

        #expect(FileManager.default.createFile(atPath: empty, contents: nil))
        let logger = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: empty))
        try logger.close()
        #expect(try String(contentsOfFile: empty, encoding: .utf8).hasPrefix("{"))
    }

    @Test("a log whose last line was cut gets a line end before the next session's header, which stays whole and readable (found by a new user's trial: it was glued to the fragment and lost)")
    func appendsAfterACutLine() throws {
        let log = Self.path("cut.jsonl")
        defer { try? FileManager.default.removeItem(atPath: log) }
        let first = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: log))
        first.requestDidProduce(DebugMessage(requestID: 1, name: nil, state: .succeeded, startedAt: Date(), original: nil, sent: nil,
                                             response: nil, error: nil, timings: nil, connection: nil, callbackQueue: "test"))
        try first.close()
        let whole = try Data(contentsOf: URL(fileURLWithPath: log))
        try whole.prefix(whole.count - 10).write(to: URL(fileURLWithPath: log))
        try NetworkLogger(config: NetworkLoggerConfig(logFilePath: log)).close()
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 4 && lines[3].isEmpty, "\(lines.count)")
        #expect(lines[1].hasPrefix("{") && !lines[1].contains(#""type":"header""#), "the fragment keeps its own line")
        #expect((try? JSONSerialization.jsonObject(with: Data(lines[2].utf8)) as? [String: Any])?["type"] as? String == "header")
    }

    @Test("a header that cannot be written names the log's path and the system's reason")
    func headerFailureNamesThePath() throws {
        #expect {
            try NetworkLogger(config: NetworkLoggerConfig(logFilePath: "/dev/full"))
        } throws: { error in
            let text = "\(error)"
            return text.hasPrefix("session log /dev/full: cannot write the header: ") && text.contains("No space left") && !text.contains("session log :")
        }
    }
}
