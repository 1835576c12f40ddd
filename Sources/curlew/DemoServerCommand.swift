import ArgumentParser
import CurlewDemoServer
import Foundation

/// `curlew demo-server`: the httpbin-like demo server on its own, for trying Curlew or any client.
struct DemoServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo-server",
        abstract: "Run the demo HTTP server (httpbin-like endpoints plus fault endpoints) until interrupted."
    )

    @Option(parsing: .unconditional, help: "Port to listen on; 0 picks a free one.")
    var port: Int = 8080

    @Option(help: "Address to bind. Loopback by default.")
    var host: String = "127.0.0.1"

    @Flag(help: "Speak HTTPS, with a certificate authority and certificates made for this run.")
    var tls = false

    @Option(name: .customLong("cert-dir"), help: "With --tls: where to write the certificates (default: a new temporary directory).")
    var certificateDirectory: String?

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be from 0 to 65535") }
        if certificateDirectory != nil, !tls { throw ValidationError("--cert-dir needs --tls") }
    }

    func run() async throws {
        var certificates: DemoCertificates?
        if tls {
            do {
                let directory = try certificateDirectory ?? DemoCertificates.makeTemporaryDirectory()
                certificates = try DemoCertificates.generate(in: directory)
            } catch {
                throw ValidationError("cannot write the demo certificates to \(certificateDirectory ?? NSTemporaryDirectory()): \(error)")
            }
        }
        let server: DemoServer
        do {
            server = try await DemoServer.start(host: host, port: port, tls: certificates.map { .identity($0.server) })
        } catch {
            throw ValidationError("cannot listen on \(host):\(port): \(error)")
        }
        print("Curlew demo server listening on \(server.baseURL)")
        if let certificates {
            print("CA certificate: \(certificates.authority.certificate)")
            print("Server key pin: \(certificates.server.pin)")
            print("Try: curlew send --cacert \(certificates.authority.certificate) --pin '\(certificates.server.pin)' \(server.baseURL)/get")
        }
        print("Endpoints: " + DemoServer.endpoints.joined(separator: " "))
        // Scripts wait for the address line; do not leave it in a pipe's buffer.
        fflush(nil)
        try await server.waitUntilClosed()
    }
}
