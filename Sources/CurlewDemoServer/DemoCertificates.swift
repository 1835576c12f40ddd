import Crypto
import Foundation
import SwiftASN1
import X509

/// Certificates for trying TLS against the demo server, made fresh on each call: a certificate
/// authority, a server certificate it signed for `localhost` and 127.0.0.1, and the broken ones
/// a client must refuse (self-signed, expired, for another host), plus a client certificate for
/// mutual TLS. Written as owner-only PEM files into a directory.
public struct DemoCertificates: Sendable {
    /// A certificate and its key, as files.
    public struct Identity: Sendable {
        public var certificate: String
        public var key: String
        /// The certificate's public-key pin, `sha256//BASE64`, as curl writes it.
        public var pin: String
    }

    public var directory: String
    /// The authority's certificate: trust this to trust the demo server.
    public var authority: Identity
    /// Signed by the authority for `localhost`, 127.0.0.1 and ::1.
    public var server: Identity
    /// Self-signed for `localhost` and 127.0.0.1: valid names, but nobody vouches for it.
    public var selfSigned: Identity
    /// Signed by the authority, but expired yesterday.
    public var expired: Identity
    /// Signed by the authority for `other.test` only.
    public var wrongHost: Identity
    /// Signed by the authority, for a client to present in mutual TLS.
    public var client: Identity

    /// Makes every certificate and writes them under `directory` (created owner-only; an existing
    /// one must belong to this user, and is made owner-only).
    public static func generate(in given: String) throws -> DemoCertificates {
        let directory = try prepare(given)
        let now = Date()
        let day: TimeInterval = 86_400
        let authorityKey = P256.Signing.PrivateKey()
        let authorityName = try DistinguishedName { OrganizationName("Curlew"); CommonName("Curlew Demo CA") }
        let authorityCertificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PrivateKey(authorityKey).publicKey,
            notValidBefore: now - day, notValidAfter: now + 365 * day, issuer: authorityName, subject: authorityName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: Certificate.PrivateKey(authorityKey)
        )
        let loopback: [GeneralName] = [
            .dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])),
            .ipAddress(ASN1OctetString(contentBytes: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1])),
        ]

        func leaf(_ name: String, names: [GeneralName], from start: Date, to end: Date, selfSigned: Bool = false,
                  usage: ExtendedKeyUsage.Usage = .serverAuth) throws -> (Certificate, P256.Signing.PrivateKey) {
            let key = P256.Signing.PrivateKey()
            let subject = try DistinguishedName { OrganizationName("Curlew"); CommonName(name) }
            let certificate = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PrivateKey(key).publicKey,
                notValidBefore: start, notValidAfter: end, issuer: selfSigned ? subject : authorityName, subject: subject,
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    Critical(KeyUsage(digitalSignature: true))
                    try ExtendedKeyUsage([usage])
                    SubjectAlternativeNames(names)
                },
                issuerPrivateKey: Certificate.PrivateKey(selfSigned ? key : authorityKey)
            )
            return (certificate, key)
        }

        func write(_ name: String, _ certificate: Certificate, _ key: P256.Signing.PrivateKey) throws -> Identity {
            let certificatePath = directory + "/\(name).pem"
            let keyPath = directory + "/\(name)-key.pem"
            try Self.write(try certificate.serializeAsPEM().pemString + "\n", to: certificatePath, mode: 0o600)
            try Self.write(try Certificate.PrivateKey(key).serializeAsPEM().pemString + "\n", to: keyPath, mode: 0o600)
            return Identity(certificate: certificatePath, key: keyPath, pin: try Self.pin(of: certificate))
        }

        let server = try leaf("localhost", names: loopback, from: now - day, to: now + 30 * day)
        let selfSigned = try leaf("localhost", names: loopback, from: now - day, to: now + 30 * day, selfSigned: true)
        let expired = try leaf("localhost", names: loopback, from: now - 30 * day, to: now - day)
        let wrongHost = try leaf("other.test", names: [.dnsName("other.test")], from: now - day, to: now + 30 * day)
        let client = try leaf("Curlew demo client", names: [.dnsName("client.curlew.test")], from: now - day, to: now + 30 * day,
                              usage: .clientAuth)
        return DemoCertificates(
            directory: directory,
            authority: try write("ca", authorityCertificate, authorityKey),
            server: try write("server", server.0, server.1),
            selfSigned: try write("self-signed", selfSigned.0, selfSigned.1),
            expired: try write("expired", expired.0, expired.1),
            wrongHost: try write("wrong-host", wrongHost.0, wrongHost.1),
            client: try write("client", client.0, client.1)
        )
    }

    /// A new owner-only directory with an unpredictable name under the temporary directory, for
    /// certificates made for one run.
    public static func makeTemporaryDirectory() throws(DemoServerError) -> String {
        var template = Array((NSTemporaryDirectory() + "curlew-demo-tls-XXXXXX").utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            let reason = String(cString: strerror(errno))
            throw .cannotWriteCertificates(to: NSTemporaryDirectory(), reason)
        }
        return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `sha256//` and the base64 SHA-256 of the certificate's SubjectPublicKeyInfo, as curl's
    /// `--pinnedpubkey` takes it.
    public static func pin(of certificate: Certificate) throws -> String {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate.publicKey)
        return "sha256//" + Data(SHA256.hash(data: serializer.serializedBytes)).base64EncodedString()
    }

    /// Makes `directory` (with its parents, owner-only) when it is missing, or says why the
    /// certificates cannot go there, in the system's words; returns it without trailing slashes.
    /// A directory that is there keeps its mode (its files are owner-only whatever it is), unless
    /// others may write in it: they could replace the certificates (a sticky directory such as
    /// /tmp lets nobody replace another's files). One that is a symbolic link is refused, trailing
    /// slashes or not.
    private static func prepare(_ directory: String) throws(DemoServerError) -> String {
        func refused(_ reason: String) -> DemoServerError { .cannotWriteCertificates(to: directory, reason) }
        var trimmed = Substring(directory)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard !trimmed.isEmpty else { throw refused("no directory given") }
        var made = trimmed.hasPrefix("/") ? "" : "."
        for component in trimmed.split(separator: "/") {
            made += "/" + component
            if mkdir(made, 0o700) != 0, errno != EEXIST { throw refused(String(cString: strerror(errno))) }
        }
        var info = stat()
        guard lstat(String(trimmed), &info) == 0 else { throw refused(String(cString: strerror(errno))) }
        guard (info.st_mode & S_IFMT) != S_IFLNK else { throw refused("it is a symbolic link; give the directory itself") }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { throw refused("it is not a directory") }
        guard info.st_uid == geteuid() else { throw refused("it belongs to another user") }
        guard info.st_mode & 0o022 == 0 || info.st_mode & S_ISVTX != 0 else {
            throw refused("others may write in it and could replace the certificates; give a directory only you can write in (chmod go-w)")
        }
        return String(trimmed)
    }

    /// Writes `text` to a new file at `path` with `mode`, replacing what was there, never
    /// through a link.
    private static func write(_ text: String, to path: String, mode: mode_t) throws(DemoServerError) {
        unlink(path)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw .cannotWriteCertificates(to: path, String(cString: strerror(errno))) }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw .cannotWriteCertificates(to: path, String(cString: strerror(errno))) }
            written += count
        }
    }
}
