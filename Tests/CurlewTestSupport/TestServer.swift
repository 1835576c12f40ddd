import CurlewDemoServer
import Foundation

/// The demo server every test in a process shares, started on first use on 127.0.0.1.
public enum TestServer {
    private static let holder = Holder()

    public static func shared() async throws -> DemoServer {
        try await holder.server()
    }

    private actor Holder {
        private var running: DemoServer?

        func server() async throws -> DemoServer {
            if let running { return running }
            let server = try await DemoServer.start()
            running = server
            return server
        }
    }
}

/// A unique marker for URLs, so a test can find its own requests among the server's records.
public func uniqueTag(_ prefix: String = "t") -> String {
    "\(prefix)-\(UUID().uuidString.prefix(8).lowercased())"
}
