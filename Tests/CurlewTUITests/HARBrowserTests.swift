import CurlewAgent
import CurlewTestSupport
@testable import CurlewTUI
import Foundation
import Testing

@Suite("HAR files in the log browser")
struct HARBrowserTests {
    static let har = #"{"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": [{"startedDateTime": "2026-01-01T00:00:00Z", "time": 1, "request": {"method": "GET", "url": "http://a.test/x", "httpVersion": "HTTP/1.1", "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0}, "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "headers": [], "cookies": [], "content": {"size": 0, "mimeType": "text/plain"}, "redirectURL": "", "headersSize": -1, "bodySize": 0}, "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}}]}}"#

    @Test(":open FILE.har opens it under its own name (it was refused as not a session log; `curlew tui FILE.har` showed it as 1-FILE.jsonl), and a broken one is refused with the reason")
    func openHAR() throws {
        let directory = NSTemporaryDirectory() + "curlew-har-browser-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Self.har.write(toFile: directory + "/run.har", atomically: true, encoding: .utf8)
        try #"{"log": {"entries": 5}}"#.write(toFile: directory + "/broken.har", atomically: true, encoding: .utf8)
        let model = AppModel(environment: AppEnvironment(agent: nil, name: "logs", sessionLogPath: nil, sessionsDirectory: directory + "/none",
                                                         timeZone: TimeZone(identifier: "UTC")!, processEnvironment: [:]))
        model.handle(.character(":"))
        for character in "open \(directory)/run.har" { model.handle(.character(character)) }
        model.handle(.enter)
        #expect(model.message == "opened run.har")
        let opened = try #require(model.logs.opened)
        #expect(opened.index.entryCount == 1)
        let screen = VirtualScreen(rows: 24, columns: 100)
        screen.present(model.render(rows: 24, columns: 100))
        #expect(screen.text.contains("run.har  1 of 1 entries") && screen.text.contains("http://a.test/x"), "\(screen.text)")
        // Each opened HAR file's session log is removed once another log replaces it, and all of
        // them when the browser ends (found by review: they were left in the temporary directory).
        let converted = opened.path
        #expect(FileManager.default.fileExists(atPath: converted) && converted != directory + "/run.har")
        model.openLog(directory + "/run.har")
        let again = try #require(model.logs.opened?.path)
        #expect(!FileManager.default.fileExists(atPath: converted) && FileManager.default.fileExists(atPath: again))
        model.logs.discardConvertedFiles()
        #expect(!FileManager.default.fileExists(atPath: (again as NSString).deletingLastPathComponent))
        model.openLog(directory + "/broken.har")
        #expect(model.message.contains("broken.har is not a HAR file Curlew can read"), "\(model.message)")
    }
}
