import CurlewAgent
import CurlewTestSupport
@testable import CurlewTUI
import Testing

@Suite("Panes rendered on a virtual screen")
struct PaneGoldenTests {
    static let sizes = [(24, 80), (50, 160)]

    private func render(_ model: AppModel, _ size: (Int, Int)) -> String {
        let screen = VirtualScreen(rows: size.0, columns: size.1)
        screen.present(model.render(rows: size.0, columns: size.1))
        return screen.text
    }

    @Test("each pane at 80x24 and 160x50 matches its golden text", arguments: ["compose", "live", "groups", "logs", "log-filtered", "detail-response", "detail-timing", "detail-pipeline", "help",
                                                                              "compose-group", "palette", "compare", "latency"])
    func panes(_ name: String) throws {
        for size in Self.sizes {
            // With an agent, as the workbench runs (it sends nothing here): a window without one
            // only browses logs and names no key that sends.
            let model = try TUIFixtures.model(agent: Agent(config: NetworkConfig(baseURL: TUIFixtures.base)))
            TUIFixtures.populate(model)
            switch name {
            case "compose":
                model.handle(.right)
            case "live":
                model.handle(.character("2"))
            case "groups":
                model.handle(.character("3"))
                model.handle(.up)
            case "logs":
                model.handle(.character("4"))
            case "log-filtered":
                model.handle(.character("4"))
                model.handle(.enter)
                model.handle(.character("/"))
                for character in "~c 4xx | ~e" { model.handle(.character(character)) }
                model.handle(.enter)
            case "detail-response":
                model.handle(.character("2"))
                model.handle(.character("g"))
                model.handle(.enter)
            case "detail-timing":
                model.handle(.character("2"))
                model.handle(.character("g"))
                model.handle(.enter)
                model.handle(.character("l"))
                model.handle(.character("l"))
            case "detail-pipeline":
                model.handle(.character("2"))
                model.handle(.character("g"))
                for _ in 0..<3 { model.handle(.down) }
                model.handle(.enter)
                for _ in 0..<3 { model.handle(.character("l")) }
            case "compose-group":
                model.handle(.down)
                model.handle(.down)
            case "palette":
                model.handle(.control("p"))
                for character in "send" { model.handle(.character(character)) }
            case "compare":
                model.handle(.character("2"))
                model.handle(.character("g"))
                model.handle(.character("m"))
                model.handle(.character("j"))
                model.handle(.character("m"))
                model.handle(.character("="))
            case "latency":
                var latency = LatencyState(name: "users", total: 10, groupID: 99)
                for var message in TUIFixtures.messages { message.groupID = 99; latency.take(message) }
                model.latency = latency
            default:
                model.handle(.character("?"))
            }
            try expectGolden(render(model, size), named: "\(name)-\(size.1)x\(size.0)")
        }
    }
}
