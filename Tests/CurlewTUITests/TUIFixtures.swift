import CurlewAgent
import CurlewSessions
import CurlewTestSupport
@testable import CurlewTUI
import Foundation
import Testing

/// A model with fixed content: compose items, live rows, finished groups and a session log on disk,
/// all with fixed times, so rendered screens can be compared with golden text.
enum TUIFixtures {
    static let base = "http://127.0.0.1:8080"

    static var composeItems: [ComposeItem] {
        [
            .request(RequestDraft(Request(.get, "/get", name: "single GET", params: ["lang": "swift"], headers: ["Accept": "application/json"]), baseURL: base)),
            .request(RequestDraft(Request(.post, "/post", name: "JSON POST", params: ["name": "curlew"], requestSerializer: .json), baseURL: base)),
            .group(name: "batch of three", .batch([Request(.get, "/get"), Request(.get, "/status/500"), Request(.get, "/json")], policy: .any)),
        ]
    }

    static var messages: [DebugMessage] {
        [
            Fixtures.message(id: 1, name: "users", url: "http://api.example.test/users/7", responseBody: #"{"id":7,"name":"Ada","roles":["admin"]}"#, elapsedMicros: 4_200),
            Fixtures.message(id: 2, method: "POST", url: "http://api.example.test/login", requestBody: #"{"user":"ada"}"#, responseBody: #"{"token":"t"}"#, elapsedMicros: 12_500, reused: true),
            Fixtures.message(id: 3, url: "http://api.example.test/missing", status: 404, responseBody: #"{"error":"not found"}"#, elapsedMicros: 2_100, reused: true),
            Fixtures.message(id: 4, url: "http://api.example.test/slow", status: 503, responseBody: "busy", contentType: "text/plain",
                             error: RequestError(.unacceptableStatus, "server answered HTTP/1.1 503 Error", code: 503), elapsedMicros: 1_250_000,
                             pipeline: PipelineRecord(cache: [.miss], cacheKey: "3f2a9c81d0e4", attempt: 2, attempts: [
                                 .init(number: 1, requestID: 40, status: 503, error: "unacceptableStatus", delayBeforeNextMilliseconds: 200,
                                       decision: "HTTP 503 is retryable"),
                                 .init(number: 2, requestID: 4, status: 503, error: "unacceptableStatus", delayBeforeNextMilliseconds: nil,
                                       decision: "gave up after 2 attempts"),
                             ], signer: "demo", filters: ["common params app"], checks: [])),
            Fixtures.message(id: 5, url: "http://down.example.test/", status: nil, error: RequestError(.couldNotConnect, "Failed to connect", code: 7), elapsedMicros: 800),
            Fixtures.message(id: 6, url: "http://api.example.test/名前/😀", responseBody: "ok", contentType: "text/plain", elapsedMicros: 900, reused: true),
        ]
    }

    /// Writes the fixture messages as a session log with a fixed modification time.
    static func writeLog(in directory: String) throws -> String {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/2026-01-02_03-04-05.jsonl"
        let logger = try NetworkLogger(config: NetworkLoggerConfig(logFilePath: path), now: Fixtures.epoch)
        for message in messages { logger.requestDidProduce(message) }
        try logger.close()
        try FileManager.default.setAttributes([.modificationDate: Fixtures.epoch], ofItemAtPath: path)
        return path
    }

    /// The text `model` draws on a virtual screen of `rows` by `columns`.
    static func screenText(of model: AppModel, rows: Int = 40, columns: Int = 160) -> String {
        let screen = VirtualScreen(rows: rows, columns: columns)
        screen.present(model.render(rows: rows, columns: columns))
        return screen.text
    }

    /// A model on the log browser with the log at `path` open, wholly indexed and drawn once.
    static func model(browsing path: String) throws -> AppModel {
        let model = try model()
        model.handle(.character("4"))
        model.openLog(path)
        model.logs.opened?.index.waitUntilComplete()
        _ = model.render(rows: 24, columns: 80)
        return model
    }

    /// `workspace`: the workspace the window opens on; without one, Compose lists `composeItems`.
    static func model(agent: Agent? = nil, sessionsDirectory: String? = nil, workspace: ComposeWorkspace? = nil) throws -> AppModel {
        let directory = sessionsDirectory ?? NSTemporaryDirectory() + "curlew-tui-" + UUID().uuidString + "/Sessions"
        if sessionsDirectory == nil { _ = try writeLog(in: directory) }
        let model = AppModel(environment: AppEnvironment(
            agent: agent, name: "demo \(base)", sessionLogPath: "Sessions/now.jsonl", sessionsDirectory: directory,
            composeItems: composeItems, timeZone: TimeZone(identifier: "UTC")!, processEnvironment: ["HOME": "/home/test"], workspace: workspace
        ))
        model.pane = .compose
        model.message = "Ready."
        return model
    }

    /// The fixture messages as live rows, and two finished groups.
    static func populate(_ model: AppModel) {
        model.ingest(messages.map(UIEvent.message))
        let start = ContinuousClock.now
        let batch = GroupInfo(id: 10, name: "batch of three", kind: .batch, parentID: nil, indexInParent: nil, isPriorityGate: false)
        let chain = GroupInfo(id: 20, name: "login -> profile", kind: .chain, parentID: nil, indexInParent: nil, isPriorityGate: false)
        func at(_ milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }
        let events: [GroupEvent] = [
            .created(batch, memberLabels: ["/get", "/status/500", "/json"]),
            .started(batch, at: at(0)),
            .memberChanged(batch, MemberUpdate(index: 0, label: "/get", state: .pending, at: at(0))),
            .memberChanged(batch, MemberUpdate(index: 1, label: "/status/500", state: .pending, at: at(0))),
            .memberChanged(batch, MemberUpdate(index: 2, label: "/json", state: .pending, at: at(0))),
            .memberChanged(batch, MemberUpdate(index: 0, label: "/get", state: .succeeded, statusCode: 200, at: at(40))),
            .memberChanged(batch, MemberUpdate(index: 2, label: "/json", state: .succeeded, statusCode: 200, at: at(60))),
            .memberChanged(batch, MemberUpdate(index: 1, label: "/status/500", state: .failed, statusCode: 500,
                                               error: RequestError(.unacceptableStatus, "server answered 500", code: 500), at: at(100))),
            .finished(batch, verdict: .succeeded, duration: 100_000, failedMembers: [1]),
            .created(chain, memberLabels: ["log in", "profile"]),
            .started(chain, at: at(200)),
            .memberChanged(chain, MemberUpdate(index: 0, label: "log in", state: .pending, at: at(200))),
            .memberChanged(chain, MemberUpdate(index: 0, label: "log in", state: .succeeded, statusCode: 200, at: at(230))),
            .captured(chain, step: 0, name: "token", value: "demo-1234", source: .jsonPath("$.token")),
            .memberChanged(chain, MemberUpdate(index: 1, label: "profile", state: .pending, at: at(230))),
            .memberChanged(chain, MemberUpdate(index: 1, label: "profile", state: .succeeded, statusCode: 200, at: at(250))),
            .finished(chain, verdict: .succeeded, duration: 50_000, failedMembers: []),
        ]
        for event in events { model.groups.apply(event) }
    }
}

/// Compares rendered text with `Goldens/<name>.txt`, a resource of this test target. With
/// CURLEW_UPDATE_GOLDENS=1 it rewrites the file in the source tree instead.
func expectGolden(_ text: String, named name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    if ProcessInfo.processInfo.environment["CURLEW_UPDATE_GOLDENS"] == "1" {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Goldens")
        try (text + "\n").write(to: sources.appendingPathComponent(name + ".txt"), atomically: true, encoding: .utf8)
        return
    }
    let file = try #require(Bundle.module.url(forResource: name, withExtension: "txt", subdirectory: "Goldens"), "no golden \(name)")
    let expected = try String(contentsOf: file, encoding: .utf8)
    #expect(text + "\n" == expected, "screen differs from \(file.lastPathComponent); rerun with CURLEW_UPDATE_GOLDENS=1 to accept", sourceLocation: sourceLocation)
}
