import ArgumentParser
import CurlewAgent
import CurlewDemoServer
import Foundation

/// `curlew demo`: starts the demo server in-process and sends a tour of requests through the
/// agent, logging the session to `Sessions/`.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run a tour of requests against the embedded demo server and show their timings."
    )

    @Option(help: "Directory for the session log.")
    var sessions: String = "Sessions"

    func run() async throws {
        let server = try await DemoServer.start()
        let agent = Agent(config: NetworkConfig(baseURL: server.baseURL))
        let logger = try NetworkLogger(config: NetworkLoggerConfig(
            logFilePath: NetworkLogger.defaultPath(for: Date(), directory: sessions)
        ))
        agent.addObserver(logger)
        print("Demo server: \(server.baseURL)\n")

        for request in DemoTour.requests {
            print("── \(request.name ?? request.path) " + String(repeating: "─", count: 40))
            let (message, _) = await agent.exchange(request)
            print(ExchangeReport(message: message, showsRequest: true, showsBody: true).text + "\n")
        }

        print("── a slow request, cancelled after 300 ms " + String(repeating: "─", count: 20))
        let slow = agent.start(Request(.get, "/delay/5", name: "slow, then cancelled"), callbacks: RequestCallbacks(
            failure: { print("failure callback: \($0.error)") }
        ))
        try await Task.sleep(for: .milliseconds(300))
        agent.cancel(slow)
        await agent.waitForObservers()
        try await Task.sleep(for: .milliseconds(50))

        try logger.close()
        try await server.stop()
        print("\nSession log: \(logger.path ?? "-") (\(logger.entryCount) entries)")
    }
}

/// The requests the demo sends, in one place so they can move into a workspace file.
enum DemoTour {
    static let requests: [Request] = [
        Request(.get, "/get", name: "a simple GET", params: ["lang": "swift", "page": 1]),
        Request(.post, "/post", name: "a JSON POST", params: ["name": "curlew", "tags": ["http", "timing"]], requestSerializer: .json),
        Request(.get, "/redirect/2", name: "two redirects"),
        Request(.get, "/status/418", name: "an unacceptable status"),
        Request(.get, "/bytes/2048", name: "binary bytes"),
    ]
}
