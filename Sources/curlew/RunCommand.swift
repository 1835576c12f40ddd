import ArgumentParser
import CurlewAgent
import CurlewSessions
import CurlewSigning
import CurlewWorkspace
import Foundation

/// `curlew run`: runs a workspace's requests and groups headlessly, checks their assertions and
/// exits 0 (all passed), 1 (something failed), 2 (usage or workspace error) or 3 (interrupted).
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a workspace's requests and groups headlessly and check their assertions.",
        discussion: """
        With no --request or --group, runs every group and every request that is in no group.

        Exit status: 0 all passed, 1 a request, assertion or group failed, 2 usage or workspace \
        error, 3 interrupted (Ctrl-C or SIGTERM cancels what is in flight and still writes every \
        report), 23 everything ran and the reports were written but standard output could not be \
        (a full disk, a pipe closed early).
        """
    )

    @Argument(help: "The workspace file (default: curlew.yaml in the current directory).")
    var workspace: String?

    @Option(name: .customLong("env"), help: "The environment to use (default: the workspace's default).")
    var environment: String?

    @Option(name: .customLong("request"), help: "Run this named request (repeatable; run in the order given, before any --group).")
    var requests: [String] = []

    @Option(name: .customLong("group"), help: "Run this named group (repeatable; run in the order given, after any --request).")
    var groups: [String] = []

    @Option(name: .customLong("var"), help: "Set a variable: NAME=VALUE (repeatable; wins over the workspace).")
    var variables: [String] = []

    @Option(help: "Write the session log (JSON Lines) here.")
    var log: String?

    @Option(help: "Write a HAR 1.2 file of every exchange here ('-' for standard output; the run's report then goes to standard error).")
    var har: String?

    @Option(help: "Write a JUnit XML report here ('-' for standard output; the run's report then goes to standard error).")
    var junit: String?

    @Option(name: .customLong("repeat"), parsing: .unconditional, help: "Run everything this many times.")
    var repeatCount = 1

    @Option(parsing: .unconditional, help: "Run up to this many targets at once.")
    var parallel = 1

    @Flag(help: "Keep secrets in the log and HAR file (only for files that never leave this machine).")
    var noRedact = false

    func validate() throws {
        guard (1...100_000).contains(repeatCount) else { throw Self.usageFailure("--repeat must be 1 to 100000") }
        guard (1...256).contains(parallel) else { throw Self.usageFailure("--parallel must be 1 to 256") }
        _ = try Self.overrides(variables)
    }

    func run() async throws {
        // A reader that stops early (`curlew run | head -1`) must not end the run before its
        // log, HAR file and JUnit report are written.
        StandardStreams.ignoreBrokenPipes()
        let overrides = try Self.overrides(variables)
        let session: WorkspaceSession
        do {
            guard let path = workspace ?? Workspace.find() else {
                throw WorkspaceError(.unreadable, at: nil, "no \(Workspace.fileName) in \(FileManager.default.currentDirectoryPath): give a workspace file")
            }
            session = try WorkspaceSession(try Workspace.load(path: path), environment: environment, overrides: overrides)
        } catch let error as WorkspaceError {
            throw Self.usageFailure("\(error)")
        }
        let targets = try targets(in: session)
        // A report that cannot be written, or would replace the workspace, is refused before
        // anything is sent.
        let reports = [("--har", har), ("--junit", junit), ("--log", log)].compactMap { option, path in path.map { (option, $0) } }
        if har == "-", junit == "-" { throw Self.usageFailure("--har - and --junit - would both write to standard output; give one of them a file") }
        if log == "-" { throw Self.usageFailure("--log -: the session log is a file the interface and `curlew log` read; give a file name") }
        for (index, (option, path)) in reports.enumerated() where path != "-" {
            if let what = session.ownFile(at: path) { throw Self.usageFailure("\(option) \(path) is \(what); write to another file") }
            if option != "--log", let problem = LocalFile.writeProblem(path) { throw Self.usageFailure("\(option) \(path): \(problem)") }
            // Two reports in one file: the last written would replace, or mix with, the other.
            if let other = reports[..<index].first(where: { $0.1 != "-" && LocalFile.namesSameFile($0.1, path) }) {
                throw Self.usageFailure("\(option) \(path) is the file \(other.0) writes; give each report its own file")
            }
        }

        // The report on the terminal always hides secrets; written files unless --no-redact.
        let hiding = session.redactionPolicy
        let redaction = session.logger.redacts && !noRedact ? hiding : .disabled
        let agent = Agent(config: session.agentConfig)
        do {
            // A jar that cannot be read is reported as such (26) before one that cannot be saved (23).
            try await agent.reloadJarFile()
            try agent.checkJarFileCanBeSaved()
        } catch {
            throw Self.usageFailure("\(error)")
        }
        let logPath = log ?? session.logger.path ?? session.logger.directory.map { NetworkLogger.defaultPath(for: Date(), directory: $0) }
        let logger: NetworkLogger?
        do {
            logger = try (session.logger.enabled || log != nil ? logPath : nil).map {
                var config = NetworkLoggerConfig(loggerType: session.logger.format, logFilePath: $0, redaction: redaction,
                                                 maxBodyBytes: session.logger.maxBodyBytes, maxBinaryBodyBytes: session.logger.maxBinaryBodyBytes)
                // A --log path is typed; a workspace's sessions directory is made when missing.
                config.createsDirectory = log == nil
                return try NetworkLogger(config: config)
            }
        } catch {
            throw Self.usageFailure((log == nil ? "" : "--log: ") + "\(error)")
        }
        if let logger { agent.addObserver(logger) }
        let collector = har.map { _ in MessageCollector(redaction: redaction) }
        if let collector { agent.addObserver(collector) }

        // A report written to standard output moves the run's own report to standard error.
        let reportToStandardError = har == "-" || junit == "-"
        let report = RunReport(total: targets.count * repeatCount, isTerminal: isatty(reportToStandardError ? STDERR_FILENO : STDOUT_FILENO) != 0,
                               redaction: hiding, toStandardError: reportToStandardError)
        let runner = WorkspaceRunner(session: session, agent: agent)
        // The first interrupt cancels the run, which still writes every report. The watch is on
        // before the run starts: an interrupt that came before it would be lost (a run under load
        // printed its first line first, and went on to the end).
        let interrupts = InterruptWatch(secondMessage: "interrupted again; stopping without writing the reports", secondExitStatus: 3)
        defer { interrupts.stop() }
        let started = ContinuousClock.now
        let task = Task { [repeatCount, parallel] in
            await runner.run(targets, repeat: repeatCount, parallel: parallel, memberFinished: report.memberFinished,
                             nestedGroupFinished: report.nestedGroupFinished, finished: report.finished)
        }
        interrupts.cancels { task.cancel() }
        let results = await task.value
        let wallTime = ContinuousClock.now - started
        report.endProgress()

        // Every report is written, interrupted or not.
        await agent.waitForObservers()
        try? logger?.close()
        var writeFailures: [String] = []
        if session.agentConfig.cookies.enabled, session.agentConfig.cookies.jarFile != nil {
            do { try await agent.saveCookies() } catch { writeFailures.append("\(error)") }
        }
        if let har, let collector {
            if let failure = Self.write(HARExport.data(collector.collected), to: har) { writeFailures.append("--har \(failure)") }
        }
        if let junit {
            let xml = report.junit(results, workspace: session.workspace.path).xml
            if let failure = Self.write(Data(xml.utf8), to: junit) { writeFailures.append("--junit \(failure)") }
        }
        let wasInterrupted = interrupts.wasInterrupted
        report.write(report.summary(results, wallTime: wallTime, interrupted: wasInterrupted) + "\n")
        if let logger { report.write(logger.closingSummary + "\n") }
        for failure in writeFailures { StandardStreams.error("curlew: \(failure)\n") }
        if wasInterrupted { throw ExitCode(3) }
        if !writeFailures.isEmpty { throw ExitCode(2) }
        if !results.allSatisfy(\.passed) { throw ExitCode(1) }
    }

    private func targets(in session: WorkspaceSession) throws -> [RunTarget] {
        let workspace = session.workspace
        var targets: [RunTarget] = []
        for name in requests {
            guard workspace.request(named: name) != nil else {
                throw Self.usageFailure("no request \"\(name)\" in \(workspace.path); there are: \(workspace.requests.map(\.name).joined(separator: ", "))")
            }
            targets.append(.request(name))
        }
        for name in groups {
            guard workspace.group(named: name) != nil else {
                throw Self.usageFailure("no group \"\(name)\" in \(workspace.path); there are: \(workspace.groups.map(\.name).joined(separator: ", "))")
            }
            targets.append(.group(name))
        }
        if targets.isEmpty { targets = session.defaultTargets() }
        guard !targets.isEmpty else { throw Self.usageFailure("\(workspace.path) has no requests to run") }
        return targets
    }

    /// `--var NAME=VALUE` options as name-value pairs.
    static func overrides(_ variables: [String]) throws -> [(name: String, value: String)] {
        try variables.map { pair in
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else { throw usageFailure("--var \(pair): expected NAME=VALUE") }
            return (String(pair[..<equals]), String(pair[pair.index(after: equals)...]))
        }
    }

    /// Writes an owner-only report file; the failure's text, or nil.
    static func write(_ data: Data, to path: String) -> String? {
        if path == "-" {
            StandardStreams.out(data)
            return nil
        }
        do {
            try OwnerOnlyFile.write(data, to: path)
            return nil
        } catch {
            return "\(path): \(error.reason)"
        }
    }

    static func usageFailure(_ message: String) -> ExitCode {
        StandardStreams.error("curlew: \(TerminalText.escapingControls(message))\n")
        return ExitCode(2)
    }
}
