import ArgumentParser
import CurlewDemoServer
import Foundation

/// `curlew demo-server`: the httpbin-like demo server on its own, for trying Curlew or any client.
struct DemoServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo-server",
        abstract: "Run the demo HTTP server (httpbin-like endpoints plus fault endpoints) until interrupted.",
        discussion: """
        Ctrl-C, SIGTERM or SIGHUP stops it; with --tls, certificates it made in a temporary \
        directory (their private keys among them) are removed then. A --cert-dir is left as it is.
        """
    )

    @Option(parsing: .unconditional, help: "Port to listen on; 0 picks a free one.")
    var port: Int = 8080

    @Option(help: "Address to bind (loopback unless told otherwise).")
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
        // Watched from the start, so certificates made for this run never outlive it.
        let interrupts = InterruptWatch(signals: [SIGINT, SIGTERM, SIGHUP], secondExitStatus: nil)
        defer { interrupts.finish() }
        var certificates: DemoCertificates?
        var madeDirectory: String?
        defer { if let madeDirectory { try? FileManager.default.removeItem(atPath: madeDirectory) } }
        if tls {
            // A directory that cannot be used is told as `curlew: cannot write the demo certificates to …: <reason>`.
            let directory = try certificateDirectory ?? DemoCertificates.makeTemporaryDirectory()
            if certificateDirectory == nil { madeDirectory = directory }
            certificates = try DemoCertificates.generate(in: directory)
        }
        // An address that cannot be bound is told as `curlew: cannot listen on …: <reason>`.
        let server = try await DemoServer.start(host: host, port: port, tls: certificates.map { .identity($0.server) })
        print("Curlew demo server listening on \(server.baseURL)")
        if let certificates {
            print("CA certificate: \(certificates.authority.certificate)")
            print("Server key pin: \(certificates.server.pin)")
            print("Try: curlew send --cacert \(certificates.authority.certificate) --pin '\(certificates.server.pin)' \(server.baseURL)/get")
        }
        print("Endpoints: " + DemoServer.endpoints.joined(separator: " "))
        // Scripts wait for the address line; do not leave it in a pipe's buffer.
        fflush(nil)
        let interrupted = interrupts.interruptedCheck
        while !interrupted() { try? await Task.sleep(for: .milliseconds(50)) }
        // Another signal while stopping ends the process at once.
        interrupts.endOnNextSignal()
        try await server.stop()
    }
}
