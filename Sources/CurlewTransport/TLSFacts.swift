import Foundation

/// What the TLS layer of an exchange negotiated, read from the connection while it ran.
public struct TLSFacts: Sendable, Equatable, Codable {
    /// "TLSv1.3", "TLSv1.2", ...
    public var version: String
    public var cipher: String
    /// The protocol agreed by ALPN ("h2", "http/1.1"); empty when none was.
    public var alpn: String
    /// The server's certificates as it presented them, its own first.
    public var certificates: [CertificateFacts]

    public init(version: String, cipher: String, alpn: String, certificates: [CertificateFacts]) {
        self.version = version
        self.cipher = cipher
        self.alpn = alpn
        self.certificates = certificates
    }
}

/// One certificate of a server's chain.
public struct CertificateFacts: Sendable, Equatable, Codable {
    /// Distinguished names in RFC 2253 form: "CN=localhost,O=Curlew".
    public var subject: String
    public var issuer: String
    /// Subject alternative names: "DNS:localhost", "IP:127.0.0.1", ...
    public var alternativeNames: [String]
    /// ISO 8601, UTC.
    public var notBefore: String
    public var notAfter: String
    /// The public-key pin, `sha256//BASE64`, ready for `--pin` or `SSLPinningMode.publicKey`.
    public var publicKeyPin: String

    public init(subject: String, issuer: String, alternativeNames: [String], notBefore: String, notAfter: String, publicKeyPin: String) {
        self.subject = subject
        self.issuer = issuer
        self.alternativeNames = alternativeNames
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.publicKeyPin = publicKeyPin
    }
}
