import ArgumentParser
import CurlewAgent

@main
struct Curlew: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "curlew",
        abstract: "A terminal network inspector and HTTP request workbench.",
        discussion: "With no subcommand, opens the interface on the embedded demo server (as `curlew demo tui`).",
        version: CurlewVersion.current,
        subcommands: [TUICommand.self, SendCommand.self, RunCommand.self, ImportCommand.self, ExportCommand.self, LogCommand.self, DemoCommand.self, DemoServerCommand.self]
    )

    func run() async throws {
        // The defaults come from the parser, like any command's options. (An option group on this
        // root command would also capture the subcommands' options of the same name, such as
        // `demo batch --sessions`.) `curlew demo tui` takes the options.
        try await InterfaceLauncher.openOnDemo(InterfaceOptions.parse([]))
    }
}
