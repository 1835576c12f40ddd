import ArgumentParser
import CurlewAgent
import CurlewSessions
import CurlewWorkspace
import Foundation

/// `curlew export FORMAT LOG -o FILE`: a session log in another tool's format, secrets hidden;
/// or, with `--request`, a workspace's requests as curl commands or an `.http` file.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a session log as HAR 1.2, curl commands, an .http file, or HLNetworking's JSON array or property list.",
        discussion: """
        Secrets are redacted (again, in case the log was written without) unless --no-redact is given.

        With --request, LOG is a workspace and the named requests are written as they would be \
        sent (curl or http), without sending them.
        """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case har, curl, http
        case hlJSON = "hl-json"
        case plist
    }

    @Argument(help: "The format: har, curl, http, hl-json or plist.")
    var format: Format

    @Argument(help: "The session log (.jsonl) or HAR file; with --request, the workspace.")
    var log: String

    @Option(name: .customLong("request"), help: "Export this workspace request instead of a log (repeatable).")
    var requests: [String] = []

    @Option(name: .customLong("env"), help: "With --request: the environment to build the requests in.")
    var environment: String?

    @Option(name: .customLong("var"), help: "With --request: set a variable, NAME=VALUE (repeatable).")
    var variables: [String] = []

    @Option(name: .shortAndLong, help: "The file to write (owner-only); - or nothing for standard output.")
    var output: String?

    @Option(help: "Only the exchanges matching this filter (the log browser's language, e.g. '~c 5xx').")
    var filter: String?

    @Flag(help: "Keep secrets as they are in the log.")
    var noRedact = false

    /// The named requests as they would be sent, each as a debug message with no answer.
    private func workspaceRequests() throws -> (messages: [DebugMessage], redaction: RedactionPolicy, session: WorkspaceSession) {
        guard [.curl, .http].contains(format) else { throw RunCommand.usageFailure("--request exports as curl or http") }
        do {
            let workspace = try Workspace.load(path: log)
            let session = try WorkspaceSession(workspace, environment: environment, overrides: try RunCommand.overrides(variables))
            let messages = try requests.enumerated().map { index, name in
                let request = try session.request(named: name).0
                let composed: ComposedRequest
                do { composed = try session.config.composed(request) } catch {
                    // Said on the terminal whatever --no-redact says, as `curlew run` says it.
                    throw RunCommand.usageFailure(session.redactionPolicy.redactText("\(name): \(error)"))
                }
                return DebugMessage(requestID: UInt64(index + 1), name: name, state: .created, startedAt: Date(), original: composed, sent: nil,
                                    response: nil, error: nil, timings: nil, connection: nil, callbackQueue: "export")
            }
            return (messages, session.redactionPolicy, session)
        } catch let error as WorkspaceError {
            throw RunCommand.usageFailure("\(error)")
        }
    }

    func run() throws {
        var messages: [DebugMessage]
        var session: WorkspaceSession?
        if requests.isEmpty {
            messages = try LogCommand.load(log, filter: filter, redacting: !noRedact)
        } else {
            let exported = try workspaceRequests()
            (messages, session) = (exported.messages, exported.session)
            if !noRedact { messages = messages.map(exported.redaction.redact) }
        }
        if [.curl, .http].contains(format) {
            // A request no run could send is left out of what is written to be sent, as an
            // import leaves it out (found by a new user's trial: `curl 'javascript:alert(1)'`).
            messages = messages.enumerated().filter { position, message in
                guard let original = message.original else { return true }
                var reason = ImportedCollection.unsendableReason(method: HTTPMethod(rawValue: original.method), url: original.url, headers: original.headers)
                // A header no request may send (a name that is not a token, a line break in a
                // value); not those the transport sets itself, which a HAR of a browser's, or of
                // Curlew's own wire, carries (`Content-Length`, HTTP/2's `:method`).
                if reason == nil {
                    let own = original.headers.filter { !HARImport.headersNotToResend.contains($0.name.lowercased()) }
                    do throws(RequestError) { try HTTPHeaders(own).validate() } catch { reason = error.message }
                }
                guard let reason else { return true }
                // Said on the terminal with secrets hidden whatever --no-redact says, as `curlew run` says it.
                let shown = TerminalText.escapingControls(RedactionPolicy().redactText(reason))
                StandardStreams.error("curlew: left out exchange \(position + 1) of \(log), which no run could send: \(shown)\n")
                return false
            }.map(\.element)
        }
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
            // Writing over what is being read would lose the log (or the workspace) for good, and
            // over the workspace's secrets file (present or not) would break the workspace.
            guard !LocalFile.isSameFile(output, log) else {
                throw RunCommand.usageFailure("\(output) is the file being exported; write to another file")
            }
            if let what = session?.ownFile(at: output) {
                throw RunCommand.usageFailure("\(output) is \(what) (the workspace being exported); write to another file")
            }
            if let problem = LocalFile.writeProblem(output) { throw RunCommand.usageFailure("\(output): \(problem)") }
            if let failure = RunCommand.write(data, to: output) { throw RunCommand.usageFailure(failure) }
            print("Wrote \(messages.count) exchange\(messages.count == 1 ? "" : "s") to \(output)")
        } else {
            StandardStreams.out(data)
        }
    }
}
