import ArgumentParser
import CurlewAgent

/// `curlew send`'s TLS options: trust, pinning and client certificates.
struct SecurityOptions: ParsableArguments {
    @Flag(name: [.customShort("k"), .long], help: "Accept TLS certificates that do not verify (pins are still checked).")
    var insecure = false

    @Option(name: .customLong("cacert"), help: "Trust the authorities in this PEM file instead of the system's.")
    var caCertificate: String?

    @Option(name: .customLong("pin"), help: ArgumentHelp("Pin the server's public key: a sha256//BASE64 pin, or a certificate file whose key is pinned. Repeatable: any one may match.", valueName: "PIN|FILE"))
    var pins: [String] = []

    @Option(name: .customLong("pin-cert"), help: ArgumentHelp("Trust exactly this certificate (PEM), not any authority. Repeatable.", valueName: "FILE"))
    var pinnedCertificates: [String] = []

    @Option(name: .customLong("cert"), help: "A client certificate (PEM) for mutual TLS.")
    var clientCertificate: String?

    @Option(name: .customLong("key"), help: "The private key (PEM) of --cert.")
    var clientKey: String?

    @Flag(name: .customLong("no-verify-host"), help: "Do not check that the certificate names the host.")
    var noVerifyHost = false

    func validate() throws {
        if !pins.isEmpty, !pinnedCertificates.isEmpty { throw ValidationError("use either --pin or --pin-cert, not both") }
        if insecure, !pinnedCertificates.isEmpty { throw ValidationError("--pin-cert is a certificate check, which -k turns off; use --pin to pin a key with -k") }
        if (clientCertificate == nil) != (clientKey == nil) { throw ValidationError("--cert and --key go together") }
        for value in [caCertificate, clientCertificate, clientKey].compactMap({ $0 }) + pins + pinnedCertificates where value.isEmpty {
            throw ValidationError("a TLS option needs a value")
        }
    }

    var settings: TLSSettings {
        TLSSettings(
            allowInvalidCertificates: insecure,
            validatesDomainName: !noVerifyHost,
            certificateAuthorityFile: caCertificate,
            pinning: !pins.isEmpty ? .publicKey(pins) : !pinnedCertificates.isEmpty ? .certificate(pinnedCertificates) : .none,
            clientCertificate: clientCertificate,
            clientKey: clientKey
        )
    }
}
