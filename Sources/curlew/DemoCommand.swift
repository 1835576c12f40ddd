import ArgumentParser
import CurlewAgent
import CurlewDemoServer
import Foundation

/// `curlew demo`: runs against the demo server started in-process, logging to `Sessions/`.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run demos against the embedded demo server: a tour of requests, a batch, a chain.",
        subcommands: [DemoTourCommand.self, DemoBatchCommand.self, DemoChainCommand.self, DemoInterfaceCommand.self],
        defaultSubcommand: DemoTourCommand.self
    )
}

/// Options every demo shares.
struct DemoOptions: ParsableArguments {
    @Option(help: "Directory for the session log.")
    var sessions: String = "Sessions"
}

/// The demo server, an agent on it and a session logger, started together and stopped together.
struct DemoEnvironment {
    let server: DemoServer
    let agent: Agent
    let logger: NetworkLogger

    static func start(_ options: DemoOptions, maxConnectionsPerHost: Int = 10) async throws -> DemoEnvironment {
        let server = try await DemoServer.start()
        var config = NetworkConfig(baseURL: server.baseURL, maxConnectionsPerHost: maxConnectionsPerHost)
        // A proxy cannot reach the loopback address the demo listens on for us.
        config.proxies = config.proxies.exempting(server.host)
        let agent = Agent(config: config)
        let logger = try NetworkLogger(config: NetworkLoggerConfig(
            logFilePath: NetworkLogger.defaultPath(for: Date(), directory: options.sessions)
        ))
        agent.addObserver(logger)
        print("Demo server: \(server.baseURL)\n")
        return DemoEnvironment(server: server, agent: agent, logger: logger)
    }

    /// Runs one group with live printing; exits 1 unless it succeeded.
    static func runGroup(_ group: RequestGroup, options: DemoOptions) async throws {
        let demo = try await start(options)
        demo.agent.addObserver(GroupProgressPrinter())
        let verdict = await DemoSet.run(group, on: demo.agent)
        try await demo.stop()
        if verdict != .succeeded { throw ExitCode(1) }
    }

    func stop() async throws {
        await agent.waitForObservers()
        try logger.close()
        try await server.stop()
        print("\n" + logger.closingSummary)
    }
}

/// `curlew demo tour` (the default): single requests with their wire capture and timing waterfall.
struct DemoTourCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "tour", abstract: "Send a tour of single requests and show their timings.")

    @OptionGroup var options: DemoOptions

    func run() async throws {
        let demo = try await DemoEnvironment.start(options)
        var unanswered: [String] = []
        for request in DemoSet.tour {
            let name = request.name ?? request.path
            print("── \(name) " + String(repeating: "─", count: 40))
            let (message, _) = await demo.agent.exchange(request)
            print(ExchangeReport(message: message, showsRequest: true, showsBody: true).text + "\n")
            if message.response == nil { unanswered.append(name) }
        }

        print("── a slow request, cancelled after 300 ms " + String(repeating: "─", count: 20))
        let slow = demo.agent.start(DemoSet.slow, callbacks: RequestCallbacks(failure: { print("failure callback: \($0.error)") }))
        try await Task.sleep(for: .milliseconds(300))
        demo.agent.cancel(slow)
        try await Task.sleep(for: .milliseconds(50))
        try await demo.stop()
        // A tour the demo server did not answer is a failed tour, whatever was printed.
        if !unanswered.isEmpty {
            StandardStreams.error("curlew: \(unanswered.count) of \(DemoSet.tour.count) tour requests got no answer: \(unanswered.joined(separator: ", "))\n")
            throw ExitCode(1)
        }
    }
}

/// `curlew demo batch`: a batch of ten with one failing member, printed live.
struct DemoBatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "batch", abstract: "Run a batch of ten requests, one of them failing.")

    enum Policy: String, ExpressibleByArgument, CaseIterable {
        case all, any, required
    }

    @OptionGroup var options: DemoOptions

    @Option(help: "Verdict policy: all (first failure cancels the rest), any, or required (the first three must succeed).")
    var policy: Policy = .any

    @Option(name: .customLong("max-concurrency"), parsing: .unconditional, help: "Members running at once; unlimited when omitted.")
    var maxConcurrency: Int?

    func validate() throws {
        if let maxConcurrency, maxConcurrency < 1 { throw ValidationError("--max-concurrency must be at least 1") }
    }

    func run() async throws {
        let batchPolicy: BatchPolicy = switch policy {
        case .all: .all
        case .any: .any
        case .required: .required([0, 1, 2])
        }
        try await DemoEnvironment.runGroup(try DemoSet.batch(policy: batchPolicy, maxConcurrency: maxConcurrency), options: options)
    }
}

/// `curlew demo chain`: log in, capture the token, use it for the profile.
struct DemoChainCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "chain", abstract: "Run a login -> profile chain that captures a token.")

    @OptionGroup var options: DemoOptions

    func run() async throws {
        try await DemoEnvironment.runGroup(try DemoSet.loginChain(), options: options)
    }
}

/// `curlew demo tui`: the interface on the embedded demo (what `curlew` alone opens), with options.
struct DemoInterfaceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "tui", abstract: "Open the interface on the embedded demo server.")

    @OptionGroup var options: InterfaceOptions

    func run() async throws {
        try await InterfaceLauncher.openOnDemo(options)
    }
}
