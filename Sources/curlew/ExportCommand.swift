import ArgumentParser
import CurlewAgent
import CurlewSessions
import Foundation

/// `curlew export har|curl LOG -o FILE`: a session log in another tool's format, secrets hidden.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a session log as HAR 1.2, curl commands, an .http file, or HLNetworking's JSON array or property list.",
        discussion: "Secrets are redacted (again, in case the log was written without) unless --no-redact is given."
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case har, curl, http
        case hlJSON = "hl-json"
        case plist
    }

    @Argument(help: "The format: har, curl, http, hl-json or plist.")
    var format: Format

    @Argument(help: "The session log (.jsonl) or HAR file.")
    var log: String

    @Option(name: .shortAndLong, help: "The file to write (owner-only); - or nothing for standard output.")
    var output: String?

    @Option(help: "Only the exchanges matching this filter (the log browser's language, e.g. '~c 5xx').")
    var filter: String?

    @Flag(help: "Keep secrets as they are in the log.")
    var noRedact = false

    func run() throws {
        var messages = try LogCommand.load(log, filter: filter)
        if !noRedact { messages = messages.map(RedactionPolicy().redact) }
        let data: Data
        switch format {
        case .har: data = HARExport.data(messages)
        case .curl: data = Data((messages.compactMap(CurlExport.command).joined(separator: "\n\n") + "\n").utf8)
        case .http: data = Data(HTTPFileExport.text(messages).utf8)
        case .hlJSON: data = SessionLogExport.jsonArray(messages)
        case .plist:
            do { data = try SessionLogExport.propertyList(messages) } catch { throw RunCommand.usageFailure("cannot write a property list: \(error)") }
        }
        if let output, output != "-" {
            if let failure = RunCommand.write(data, to: output) { throw RunCommand.usageFailure(failure) }
            print("Wrote \(messages.count) exchange\(messages.count == 1 ? "" : "s") to \(output)")
        } else {
            FileHandle.standardOutput.write(data)
        }
    }
}
