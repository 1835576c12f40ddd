import ArgumentParser
import CurlewAgent
import CurlewSessions
import CurlewWorkspace
import Foundation

/// `curlew import curl FILE`: brings requests into a workspace, merged without clobbering.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Add requests from another tool's format to a workspace.",
        discussion: """
        Formats: curl (one or more curl commands, as "Copy as cURL" writes them for bash or cmd).
        Requests are added at the end of the workspace's requests; a name already taken gets a
        number. Everything else in the file, comments included, stays as it was.
        """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case curl
    }

    @Argument(help: "The format: curl.")
    var format: Format

    @Argument(help: "The file to import, or - for standard input.")
    var file: String

    @Option(name: .shortAndLong, help: "The workspace to add to (default: curlew.yaml here; created when missing).")
    var output: String?

    func run() throws {
        let text: String
        if file == "-" {
            text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        } else {
            do { text = try YAMLDocument.readText(path: file) } catch { throw RunCommand.usageFailure("\(error)") }
        }
        let target = output ?? Workspace.fileName
        let imported: [CurlImport.Imported]
        do { imported = try CurlImport.parse(text) } catch { throw RunCommand.usageFailure("\(file): \(error)") }
        for item in imported where !item.ignored.isEmpty {
            print("note: \(WorkspaceWriter.defaultName(item.request)): ignored \(item.ignored.joined(separator: ", "))")
        }
        do {
            let names = try WorkspaceWriter.add(imported.map(\.request), to: target)
            print("Added \(names.count) request\(names.count == 1 ? "" : "s") to \(target): \(names.joined(separator: ", "))")
        } catch {
            throw RunCommand.usageFailure("\(error)")
        }
    }
}
