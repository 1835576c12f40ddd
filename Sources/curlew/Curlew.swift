import ArgumentParser
import CurlewAgent

@main
struct Curlew: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "curlew",
        abstract: "A terminal network inspector and HTTP request workbench.",
        discussion: "With no subcommand, opens the interface on the embedded demo server (as `curlew demo tui`).",
        version: CurlewVersion.current,
        subcommands: [TUICommand.self, SendCommand.self, DemoCommand.self, DemoServerCommand.self]
    )

    func run() async throws {
        try await InterfaceLauncher.openOnDemo(InterfaceOptions())
    }
}
