import NIOSSL

/// The identity the demo server presents over TLS, and optionally the authority whose client
/// certificates it requires (mutual TLS).
public struct DemoTLS: Sendable {
    /// PEM files: the server's certificate first, then any intermediates.
    public var certificateChain: [String]
    /// The PEM private key of the first certificate.
    public var privateKey: String
    /// When set, a client must present a certificate this authority (a PEM file) signed.
    public var clientAuthority: String?

    public init(certificateChain: [String], privateKey: String, clientAuthority: String? = nil) {
        self.certificateChain = certificateChain
        self.privateKey = privateKey
        self.clientAuthority = clientAuthority
    }

    /// The server's identity from a set of demo certificates.
    public static func identity(_ identity: DemoCertificates.Identity, requiringClientsOf authority: String? = nil) -> DemoTLS {
        DemoTLS(certificateChain: [identity.certificate], privateKey: identity.key, clientAuthority: authority)
    }

    func makeContext() throws -> NIOSSLContext {
        let chain = try certificateChain.flatMap { try NIOSSLCertificate.fromPEMFile($0) }.map { NIOSSLCertificateSource.certificate($0) }
        let key = NIOSSLPrivateKeySource.privateKey(try NIOSSLPrivateKey(file: privateKey, format: .pem))
        var configuration: TLSConfiguration
        if let clientAuthority {
            configuration = .makeServerConfigurationWithMTLS(certificateChain: chain, privateKey: key, trustRoots: .file(clientAuthority))
        } else {
            configuration = .makeServerConfiguration(certificateChain: chain, privateKey: key)
        }
        configuration.applicationProtocols = ["h2", "http/1.1"]
        return try NIOSSLContext(configuration: configuration)
    }
}
