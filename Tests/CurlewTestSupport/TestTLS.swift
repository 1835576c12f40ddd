import CurlewDemoServer
import Foundation

/// TLS demo servers every test in a process shares, with certificates made at first use: one
/// with a good certificate, one self-signed, one expired, one for another host, and one that
/// requires a client certificate.
public struct TestTLS: Sendable {
    public let certificates: DemoCertificates
    public let good: DemoServer
    public let selfSigned: DemoServer
    public let expired: DemoServer
    public let wrongHost: DemoServer
    public let mutual: DemoServer

    private static let holder = Holder()

    public static func shared() async throws -> TestTLS {
        try await holder.servers()
    }

    private actor Holder {
        private var starting: Task<TestTLS, any Error>?

        func servers() async throws -> TestTLS {
            if let starting { return try await starting.value }
            let task = Task {
                let certificates = try DemoCertificates.generate(in: NSTemporaryDirectory() + "curlew-test-tls-\(getpid())")
                return TestTLS(
                    certificates: certificates,
                    good: try await DemoServer.start(tls: .identity(certificates.server)),
                    selfSigned: try await DemoServer.start(tls: .identity(certificates.selfSigned)),
                    expired: try await DemoServer.start(tls: .identity(certificates.expired)),
                    wrongHost: try await DemoServer.start(tls: .identity(certificates.wrongHost)),
                    mutual: try await DemoServer.start(tls: .identity(certificates.server, requiringClientsOf: certificates.authority.certificate))
                )
            }
            starting = task
            return try await task.value
        }
    }
}
