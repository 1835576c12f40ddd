import ArgumentParser
import CurlewAgent
import CurlewDemoServer
import CurlewSessions
import CurlewTUI
import CurlewWorkspace
import Foundation

/// Options of the curses interface.
struct InterfaceOptions: ParsableArguments {
    @Option(help: "Directory of session logs (new logs go here; the log browser lists it).")
    var sessions: String = "Sessions"

    @Flag(name: .customLong("no-mouse"), help: "Start with the mouse off, so the terminal's own text selection works.")
    var noMouse = false

    @Option(help: "A key map file whose bindings replace the standard ones (default: ~/.config/curlew/keys.yaml when it exists).")
    var keys: String?

    @Option(help: "Colours for a dark or a light terminal background: dark or light (default: $CURLEW_THEME, else dark).")
    var theme: String?

    /// A sessions directory that exists must be one (a log given there by mistake was listed as
    /// a directory and named the place new logs go).
    func validate() throws {
        var status = stat()
        if stat(sessions, &status) == 0, status.st_mode & S_IFMT != S_IFDIR {
            throw ValidationError("--sessions takes a directory of session logs; \(sessions) is not one (to open a log: curlew tui \(sessions))")
        }
    }

    /// The key map: the standard one, with the user's file over it.
    func keyMap() throws -> KeyMap {
        let path = keys ?? KeyMapFile.defaultPath()
        guard keys != nil || FileManager.default.fileExists(atPath: path) else { return .standard }
        do { return try KeyMapFile.load(path: path) } catch { throw RunCommand.usageFailure("key map \(error)") }
    }

    func chosenTheme() throws -> Theme {
        let name = theme ?? ProcessInfo.processInfo.environment["CURLEW_THEME"] ?? "dark"
        guard let theme = Theme(rawValue: name.lowercased()) else { throw RunCommand.usageFailure("no theme \"\(name)\"; themes: dark, light") }
        return theme
    }
}

/// Which workspace the interface opens.
struct WorkspaceOptions: ParsableArguments {
    @Option(help: "The workspace to open (created when missing); default: curlew.yaml in the current directory.")
    var workspace: String?

    @Option(name: .customLong("env"), help: "The environment to start in (E switches).")
    var environment: String?
}

/// `curlew tui [--workspace FILE] [SESSION_LOG...]`: the interface on a workspace, or on saved
/// logs, without the demo.
struct TUICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tui",
        abstract: "Open the interface on a workspace (curlew.yaml here, or --workspace), or on saved session logs.",
        discussion: "With a workspace, Compose lists its requests and groups and saves edits to the file (w). Without one, or with logs given, it browses logs."
    )

    @OptionGroup var options: InterfaceOptions
    @OptionGroup var workspaceOptions: WorkspaceOptions

    @Argument(help: "Session logs (or HAR files) to list besides those in the sessions directory; a .yaml file, or a directory holding a curlew.yaml, among them is opened as the workspace.")
    var logs: [String] = []

    func validate() throws {
        // A .yaml file is a workspace, created when missing (`run`); with --workspace, what is
        // given here is logs, checked as logs.
        let workspaces = workspaceOptions.workspace == nil ? logs.filter { Self.workspace(in: $0) != nil } : []
        if Set(workspaces.map { ($0 as NSString).standardizingPath }).count > 1 {
            throw ValidationError("\(workspaces.joined(separator: " and ")) are workspaces: give one (the others' logs are listed by name)")
        }
        // A workspace file is made when missing only when it is given alone: among logs, a name
        // mistyped would otherwise become a new, empty workspace.
        if logs.count > 1, let workspace = workspaces.first, !FileManager.default.fileExists(atPath: workspace) {
            throw ValidationError("cannot read \(workspace): \(String(cString: strerror(ENOENT))) (a new workspace is made when it is given alone)")
        }
        for path in logs where !workspaces.contains(path) {
            if workspaceOptions.workspace != nil, let other = Self.workspace(in: path) {
                throw ValidationError("\(path) is a workspace (\(other)), and --workspace names the one to open: give logs beside it")
            }
            var status = stat()
            // Said with the system's reason (no such file, permission denied), as `log show` says it.
            guard stat(path, &status) == 0 else { throw ValidationError("cannot read \(path): \(String(cString: strerror(errno)))") }
            guard FileManager.default.isReadableFile(atPath: path) else { throw ValidationError("cannot read \(path): \(String(cString: strerror(EACCES)))") }
            if status.st_mode & S_IFMT == S_IFDIR { throw ValidationError("\(path) is a directory without a curlew.yaml: give a session log, a HAR file, or a directory holding a workspace") }
            guard status.st_mode & S_IFMT == S_IFREG else { throw ValidationError("\(path) is not a regular file (a session log or HAR file)") }
        }
    }

    /// `curlew tui curlew.yaml`: a `.yaml` or `.yml` file given where logs go is a workspace; so
    /// is a directory that holds a curlew.yaml (`curlew tui ~/api`), as `curlew` run inside it.
    /// The workspace `argument` stands for, or nil for a log.
    private static func workspace(in argument: String) -> String? {
        if [".yaml", ".yml"].contains(where: { argument.lowercased().hasSuffix($0) }) { return argument }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory), isDirectory.boolValue else { return nil }
        return Workspace.find(in: argument)
    }

    func run() async throws {
        // The workspace among the arguments (`validate` allows one), the rest the logs it lists too.
        let given = workspaceOptions.workspace == nil ? logs.first { Self.workspace(in: $0) != nil } : nil
        let extraLogs = logs.filter { $0 != given }
        if let path = workspaceOptions.workspace ?? given.flatMap(Self.workspace(in:)) ?? (logs.isEmpty ? Workspace.find() : nil) {
            try await InterfaceLauncher.openOnWorkspace(path, environment: workspaceOptions.environment, extraLogFiles: extraLogs, options)
            return
        }
        let environment = AppEnvironment(agent: nil, name: "logs", sessionLogPath: nil, sessionsDirectory: options.sessions, extraLogFiles: logs,
                                         keyMap: try options.keyMap(), theme: try options.chosenTheme())
        let model = AppModel(environment: environment)
        model.mouseEnabled = !options.noMouse
        if logs.count == 1 { model.openLog(logs[0]) }
        let interrupts = InterfaceLauncher.watchStopSignals()
        defer { interrupts.finish() }
        try await InterfaceLauncher.run(model, observer: TUIObserver(), interrupts: interrupts)
    }
}

/// Starts the interface: on the embedded demo, or on whatever model a command built.
///
/// SIGTERM and SIGHUP, from the moment a launch begins, end the interface as a confirmed quit
/// does (unsaved edits are lost): the loop stops, requests in flight are cancelled, the session
/// log is closed and temporary files are removed; then the process ends by the signal. Another
/// one after the loop has stopped ends it at once.
enum InterfaceLauncher {
    /// The watch every launch starts with; its `finish()` ends the launch.
    static func watchStopSignals() -> InterruptWatch {
        InterruptWatch(signals: [SIGTERM, SIGHUP], secondExitStatus: nil)
    }

    static func openOnDemo(_ options: InterfaceOptions) async throws {
        try requireTerminal()
        let interrupts = watchStopSignals()
        defer { interrupts.finish() }
        let keyMap = try options.keyMap(), theme = try options.chosenTheme()
        let server = try await DemoServer.start()
        // An HTTPS twin (HTTP/2 by ALPN), with certificates made for this run; the demo agent
        // trusts their authority.
        let certificateDirectory = try DemoCertificates.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: certificateDirectory) }
        let certificates = try DemoCertificates.generate(in: certificateDirectory)
        let secure = try await DemoServer.start(tls: .identity(certificates.server))
        let demo = try DemoWorkspace.composeWorkspace(baseURL: server.baseURL, secureBaseURL: secure.baseURL)
        var config = demo.session.agentConfig
        config.tls.certificateAuthorityFile = certificates.authority.certificate
        // A proxy cannot reach the loopback address the demo listens on for us: behind one, the
        // demo's exchanges go to it directly, as others still go through the proxy.
        config.proxies = config.proxies.exempting(server.host)
        let logger = try await runWorkbench(on: demo, config: config, name: "demo \(server.baseURL)", redaction: RedactionPolicy(), importer: nil,
                                            options, keyMap: keyMap, theme: theme, interrupts: interrupts)
        try await server.stop()
        try await secure.stop()
        print(logger.closingSummary)
    }

    /// The interface on a workspace: Compose lists it and saves to it, the agent runs with its
    /// config, and the session log hides what the workspace says is secret. A missing file is
    /// created (empty) so a new workspace can be started from the interface.
    static func openOnWorkspace(_ path: String, environment: String?, extraLogFiles: [String] = [], _ options: InterfaceOptions) async throws {
        try requireTerminal()
        let interrupts = watchStopSignals()
        defer { interrupts.finish() }
        let keyMap = try options.keyMap(), theme = try options.chosenTheme()
        if let problem = LocalFile.fileNameProblem(path) {
            throw RunCommand.usageFailure("workspace \(path): \(problem)")
        }
        if !FileManager.default.fileExists(atPath: path) {
            if let problem = LocalFile.writeProblem(path) {
                throw RunCommand.usageFailure("cannot create workspace \(path): \(problem)")
            }
            guard FileManager.default.createFile(atPath: path, contents: Data("# Curlew workspace: see the README's Workspaces section.\nrequests:\n".utf8)) else {
                throw RunCommand.usageFailure("cannot create \(path): \(String(cString: strerror(errno)))")
            }
        }
        let workspace: ComposeWorkspace
        do { workspace = try ComposeWorkspace(path: path, environment: environment) } catch { throw RunCommand.usageFailure("\(error)") }
        // E may switch environments while the log is open: it hides the secrets of all of them.
        var redaction = workspace.session.redactionPolicy
        for name in workspace.session.workspace.environmentNames where name != workspace.session.environment {
            if let other = try? WorkspaceSession(workspace.session.workspace, environment: name) {
                redaction.secretValues += other.secretValues
                redaction.headerNames.formUnion(other.headersCarryingSecrets)
            }
        }
        let logger = try await runWorkbench(on: workspace, config: workspace.session.agentConfig, name: (path as NSString).lastPathComponent,
                                            redaction: redaction, importer: { try ImportFormat.read(path: $0) }, extraLogFiles: extraLogFiles, options,
                                            keyMap: keyMap, theme: theme, interrupts: interrupts)
        print(logger.closingSummary)
    }

    /// The workbench on a workspace until the user quits: an agent with `config`, a session log
    /// that hides what `redaction` says (and secrets the workspace gains meanwhile), and the
    /// interface fed by both. Returns the closed log, for its summary.
    private static func runWorkbench(on workspace: ComposeWorkspace, config: NetworkConfig, name: String, redaction: RedactionPolicy,
                                     importer: (@Sendable (String) throws -> ImportedCollection)?, extraLogFiles: [String] = [], _ options: InterfaceOptions,
                                     keyMap: KeyMap, theme: Theme, interrupts: InterruptWatch) async throws -> NetworkLogger {
        let agent = Agent(config: config)
        do { try await agent.reloadJarFile() } catch { throw RunCommand.usageFailure("\(error)") }
        let logger = try NetworkLogger(config: NetworkLoggerConfig(
            logFilePath: NetworkLogger.defaultPath(for: Date(), directory: options.sessions), redaction: redaction
        ))
        let observer = TUIObserver()
        agent.addObserver(logger)
        agent.addObserver(observer)
        let model = AppModel(environment: AppEnvironment(
            agent: agent, name: name, sessionLogPath: logger.path, sessionsDirectory: options.sessions, extraLogFiles: extraLogFiles, workspace: workspace,
            importer: importer, keyMap: keyMap, theme: theme, secretsChanged: { logger.hide($0, headers: $1) }, exchangeRedaction: redaction
        ))
        model.mouseEnabled = !options.noMouse
        try await run(model, observer: observer, interrupts: interrupts)
        await agent.cancelAllAndStop()
        // The jar goes back to its file, as `curlew run` writes it; the interface has closed, so
        // a failure shows on the terminal.
        if config.cookies.enabled, config.cookies.jarFile != nil {
            do { try await agent.saveCookies() } catch { StandardStreams.error("curlew: \(error)\n") }
        }
        try logger.close()
        return logger
    }

    /// Runs the curses loop on a thread of its own (it blocks) and returns when the user quits
    /// or `interrupts` saw SIGTERM or SIGHUP.
    static func run(_ model: AppModel, observer: TUIObserver, interrupts: InterruptWatch) async throws {
        try requireTerminal()
        let box = UncheckedBox(model)
        let stopRequested = interrupts.interruptedCheck
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let thread = Thread {
                TerminalApp.run(box.value, observer: observer, stopRequested: stopRequested)
                continuation.resume()
            }
            thread.name = "curlew.curses"
            thread.start()
        }
        interrupts.endOnNextSignal()
    }

    private static func requireTerminal() throws {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            throw RunCommand.usageFailure("the interface needs a terminal; for scripts use `curlew send` or `curlew demo`")
        }
    }
}

/// Hands the model to the curses thread. Safe because the caller never touches it again until
/// that thread has finished.
private final class UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
