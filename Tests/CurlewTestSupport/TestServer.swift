import CurlewDemoServer
import Foundation
import Testing

/// The demo server every test in a process shares, started on first use on 127.0.0.1.
public enum TestServer {
    private static let holder = Holder()

    public static func shared() async throws -> DemoServer {
        try await holder.server()
    }

    /// Holds the start task, not the server, so callers arriving while it starts wait for the same
    /// server instead of starting another (an actor method may be re-entered at each `await`).
    private actor Holder {
        private var starting: Task<DemoServer, any Error>?

        func server() async throws -> DemoServer {
            if let starting { return try await starting.value }
            let task = Task { try await DemoServer.start() }
            starting = task
            return try await task.value
        }
    }
}

/// A unique marker for URLs, so a test can find its own requests among the server's records.
public func uniqueTag(_ prefix: String = "t") -> String {
    "\(prefix)-\(UUID().uuidString.prefix(8).lowercased())"
}

/// Waits for something observable to happen, polling `condition` every 10 ms for up to
/// `timeout`; records an issue when it does not.
public func waitUntil(timeout: Duration = .seconds(5), _ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("condition not met within \(timeout)")
            return
        }
        try await Task.sleep(for: .milliseconds(10))
    }
}
