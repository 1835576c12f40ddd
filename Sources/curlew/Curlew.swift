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

    /// The interface's options, parsed like any subcommand's, so `curlew --no-mouse` works too.
    @OptionGroup var options: InterfaceOptions

    func run() async throws {
        try await InterfaceLauncher.openOnDemo(options)
    }
}
