import ArgumentParser
import CurlewAgent

@main
struct Curlew: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "curlew",
        abstract: "A terminal network inspector and HTTP request workbench.",
        version: CurlewVersion.current,
        subcommands: [SendCommand.self, DemoCommand.self, DemoServerCommand.self],
        defaultSubcommand: DemoCommand.self
    )
}
