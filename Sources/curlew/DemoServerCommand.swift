import ArgumentParser
import CurlewDemoServer
import Foundation

/// `curlew demo-server`: the httpbin-like demo server on its own, for trying Curlew or any client.
struct DemoServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo-server",
        abstract: "Run the demo HTTP server (httpbin-like endpoints plus fault endpoints) until interrupted."
    )

    @Option(help: "Port to listen on; 0 picks a free one.")
    var port: Int = 8080

    @Option(help: "Address to bind. Loopback by default.")
    var host: String = "127.0.0.1"

    func run() async throws {
        let server: DemoServer
        do {
            server = try await DemoServer.start(host: host, port: port)
        } catch {
            throw ValidationError("cannot listen on \(host):\(port): \(error)")
        }
        print("Curlew demo server listening on \(server.baseURL)")
        print("Endpoints: " + DemoServer.endpoints.joined(separator: " "))
        // Scripts wait for the address line; do not leave it in a pipe's buffer.
        fflush(nil)
        try await server.waitUntilClosed()
    }
}
