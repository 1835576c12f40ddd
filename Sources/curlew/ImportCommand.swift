import ArgumentParser
import CurlewAgent
import CurlewSessions
import CurlewOpenAPI
import CurlewWorkspace
import Foundation

/// `curlew import FORMAT FILE`: brings requests into a workspace, merged without clobbering.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Add requests from another tool's format to a workspace.",
        discussion: """
        Formats:
          curl      curl commands, as "Copy as cURL" writes them for bash or cmd
          har       a HAR 1.2 file from a browser or another tool, a request an entry
          http      a JetBrains / VS Code REST Client .http file (named requests
                    that use {{name.response.body.$.path}} become a chain)
          postman   a Postman collection v2.1, or a Postman environment export
          openapi   an OpenAPI 3.0 or 3.1 document, JSON or YAML

        New requests go at the end of the workspace's requests; a name already taken gets a \
        number, and variables and environments already defined are kept as they are. Comments and \
        everything else in the file stay as written. Secret values go to curlew.secrets.yaml.
        """
    )

    @Argument(help: "The format: curl, har, http, postman or openapi.")
    var format: ImportFormat

    @Argument(help: "The file to import, or - for standard input.")
    var file: String

    @Option(name: .shortAndLong, help: "The workspace to add to (default: curlew.yaml here; created when missing).")
    var output: String?

    /// Names as a list, the first `most` of them and a count of the rest: an import of thousands
    /// of requests printed every name on one line.
    static func listed(_ names: [String], most: Int = 20) -> String {
        let shown = names.prefix(most).joined(separator: ", ")
        return names.count > most ? "\(shown) and \(names.count - most) more" : shown
    }

    func run() throws {
        let data: Data
        if file == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            do { data = Data(try YAMLDocument.readText(path: file).utf8) } catch { throw RunCommand.usageFailure("\(error)") }
        }
        let directory = file == "-" ? "." : LocalFile.directory(of: file)
        let collection: ImportedCollection
        do {
            collection = try format.read(data, directory: directory)
        } catch {
            throw RunCommand.usageFailure("\(file): \(error)")
        }
        for note in collection.notes { print("note: \(note)") }
        let target = output ?? Workspace.fileName
        do {
            let summary = try WorkspaceWriter.add(collection, to: target)
            var parts = ["\(summary.requests.count) request\(summary.requests.count == 1 ? "" : "s")"]
            if !summary.groups.isEmpty { parts.append("group \(Self.listed(summary.groups))") }
            if !summary.variables.isEmpty { parts.append("variables \(Self.listed(summary.variables))") }
            if !summary.environments.isEmpty { parts.append("environments \(Self.listed(summary.environments))") }
            if !summary.secrets.isEmpty { parts.append("secrets \(Self.listed(summary.secrets)) (values in \(Workspace.secretsFileName))") }
            print("Added to \(target): \(parts.joined(separator: "; "))")
            if !summary.requests.isEmpty { print("Requests: \(Self.listed(summary.requests))") }
            if !summary.kept.isEmpty { print("Already defined, kept as they were: \(Self.listed(summary.kept))") }
        } catch {
            throw RunCommand.usageFailure("\(error)")
        }
    }
}
