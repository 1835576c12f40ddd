import ArgumentParser
import CurlewAgent
import CurlewWorkspace
import Foundation

@main
struct Curlew: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "curlew",
        abstract: "A terminal network inspector and HTTP request workbench.",
        discussion: "With no subcommand, opens the interface on curlew.yaml in the current directory, or else on the embedded demo server (as `curlew demo tui`).",
        version: CurlewVersion.current,
        subcommands: [TUICommand.self, SendCommand.self, RunCommand.self, ImportCommand.self, ExportCommand.self, LogCommand.self, DemoCommand.self, DemoServerCommand.self]
    )

    /// The commands a script or CI job runs, whose usage errors exit 2 (as their other
    /// workspace and file errors do) rather than the parser's 64.
    static let scriptedCommands: Set<String> = ["run", "import", "export", "log"]

    static func main() async {
        // The user's character set, as curl takes it: libcurl converts an international host
        // name to its ASCII form through it. Arguments are UTF-8 here whatever the locale says,
        // so one that is not UTF-8 (cron's, a container's C) is read as C.UTF-8, as the
        // interface does.
        let chosen = setlocale(LC_CTYPE, "").map { String(cString: $0).uppercased() } ?? ""
        if !chosen.contains("UTF-8"), !chosen.contains("UTF8") { setlocale(LC_CTYPE, "C.UTF-8") }
        do {
            var command = try parseAsRoot()
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
            StandardStreams.finish()
        } catch {
            StandardStreams.sayIfOutputFailed()
            let subcommand = CommandLine.arguments.dropFirst().first ?? ""
            if scriptedCommands.contains(subcommand), exitCode(for: error) == .validationFailure {
                StandardStreams.error(fullMessage(for: error) + "\n")
                Foundation.exit(2)
            }
            // A failure while working (not a usage error, which comes with its usage, nor an exit
            // status a command chose after printing its own message) is told as every other
            // failure is: `curlew: ...` on stderr, exit status 1.
            if !(error is ExitCode), exitCode(for: error) == .failure {
                StandardStreams.error("curlew: \(TerminalText.escapingControls(message(for: error)))\n")
                Foundation.exit(1)
            }
            exit(withError: error)
        }
    }

    func run() async throws {
        // The defaults come from the parser, like any command's options. (An option group on this
        // root command would also capture the subcommands' options of the same name, such as
        // `demo batch --sessions`.) `curlew demo tui` takes the options.
        // A curlew.yaml here opens as the workbench; elsewhere the demo does.
        if let path = Workspace.find() {
            try await InterfaceLauncher.openOnWorkspace(path, environment: nil, InterfaceOptions.parse([]))
        } else {
            try await InterfaceLauncher.openOnDemo(InterfaceOptions.parse([]))
        }
    }
}
