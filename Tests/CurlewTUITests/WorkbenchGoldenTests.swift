import CurlewAgent
import CurlewTestSupport
@testable import CurlewTUI
import Foundation
import Testing

/// The workbench's own views on a virtual screen: the group editor, the variables panel and a
/// request's history, at 80x24 and 160x50.
@Suite("Workbench views rendered on a virtual screen")
struct WorkbenchGoldenTests {
    static let workspace = """
    config: {baseURL: "{{base}}"}
    variables: {base: "http://127.0.0.1:9", user: ana}
    secrets: [token]
    requests:
      probe: {url: "/probe?trace={{trace}}"}
      list users:
        folder: api
        url: /users?who={{user}}
        headers: {Authorization: "Bearer {{token}}"}
      log in: {folder: api, url: /login, json: {user: "{{user}}"}}
    groups:
      sign in then list:
        chain:
          - {request: log in, capture: {session: $.token}}
          - list users
        onFailure: continue
    """

    private func model() throws -> AppModel {
        let directory = NSTemporaryDirectory() + "curlew-golden-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Self.workspace.write(toFile: directory + "/curlew.yaml", atomically: true, encoding: .utf8)
        try "variables: {token: s3cret-golden-token}\n".write(toFile: directory + "/curlew.secrets.yaml", atomically: true, encoding: .utf8)
        chmod(directory + "/curlew.secrets.yaml", 0o600)
        let workspace = try ComposeWorkspace(path: directory + "/curlew.yaml")
        return AppModel(environment: AppEnvironment(agent: Agent(config: workspace.session.config), name: "golden", sessionLogPath: nil,
                                                    sessionsDirectory: directory + "/Sessions", timeZone: TimeZone(identifier: "UTC")!,
                                                    workspace: workspace))
    }

    @Test("each workbench view at 80x24 and 160x50 matches its golden text", arguments: ["group-editor", "variables", "history"])
    func views(_ name: String) throws {
        for (rows, columns) in PaneGoldenTests.sizes {
            let model = try model()
            switch name {
            case "group-editor":
                model.handle(.down)
                model.handle(.enter)
                for _ in 0..<6 { model.handle(.down) }
            case "variables":
                model.handle(.down)
                model.handle(.down)
                model.handle(.character("V"))
            default:
                model.handle(.down)
                model.handle(.down)
                model.history = HistoryState(name: "list users", thisSession: Array(TUIFixtures.messages.prefix(2)), earlier: Array(TUIFixtures.messages.dropFirst(2)))
            }
            let screen = VirtualScreen(rows: rows, columns: columns)
            screen.present(model.render(rows: rows, columns: columns))
            #expect(!screen.text.contains("s3cret-golden-token"))
            try expectGolden(screen.text, named: "\(name)-\(columns)x\(rows)")
        }
    }
}
