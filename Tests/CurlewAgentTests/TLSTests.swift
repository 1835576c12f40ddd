@testable import CurlewAgent
import CurlewTestSupport
import Foundation
import Testing

/// Sends `path` to `server`'s base URL with these TLS settings and returns the outcome and its debug message.
private func send(_ url: String, tls: TLSSettings, overrides: TLSOverrides? = nil) async throws -> (result: Result<Response, RequestFailure>, message: DebugMessage?) {
    var config = NetworkConfig(baseURL: url)
    config.tls = tls
    let agent = Agent(config: config)
    var request = Request(.get, "/get")
    request.tls = overrides
    return await sendCapturing(agent, request)
}

private func failureKind(_ outcome: (result: Result<Response, RequestFailure>, message: DebugMessage?)) -> RequestError.Kind? {
    if case .failure(let failure) = outcome.result { return failure.error.kind }
    return nil
}

@Suite("TLS: trust, pinning, client certificates and protocol truth")
struct TLSTests {
    @Test("a server whose authority is trusted answers, and the debug message shows what TLS negotiated")
    func trustedAndTruth() async throws {
        let tls = try await TestTLS.shared()
        let outcome = try await send(tls.good.baseURL, tls: TLSSettings(certificateAuthorityFile: tls.certificates.authority.certificate))
        #expect(try outcome.result.get().statusCode == 200)
        let facts = try #require(outcome.message?.connection?.tls)
        #expect(facts.version.hasPrefix("TLSv1."))
        #expect(!facts.cipher.isEmpty)
        #expect(facts.alpn == "h2")
        let leaf = try #require(facts.certificates.first)
        #expect(leaf.subject.contains("CN=localhost"))
        #expect(leaf.issuer.contains("CN=Curlew Demo CA"))
        #expect(leaf.alternativeNames.contains("DNS:localhost"))
        #expect(leaf.alternativeNames.contains("IP:127.0.0.1"))
        #expect(leaf.publicKeyPin == tls.certificates.server.pin)
        #expect(leaf.notBefore.hasSuffix("Z") && leaf.notAfter > leaf.notBefore)
        #expect(outcome.message?.connection?.requestsOnConnection == 1)
    }

    @Test("requests on a kept-alive connection are counted")
    func connectionUses() async throws {
        let tls = try await TestTLS.shared()
        var config = NetworkConfig(baseURL: tls.good.baseURL, maxConnectionsPerHost: 1)
        config.tls = TLSSettings(certificateAuthorityFile: tls.certificates.authority.certificate)
        let agent = Agent(config: config)
        var counts: [Int?] = []
        for _ in 0..<3 { counts.append(await sendCapturing(agent, Request(.get, "/get")).message?.connection?.requestsOnConnection) }
        #expect(counts == [1, 2, 3])
    }

    @Test("public-key pinning: by sha256// pin and by certificate file; a wrong pin fails with no response")
    func publicKeyPinning() async throws {
        let tls = try await TestTLS.shared()
        let authority = tls.certificates.authority.certificate
        for pin in [tls.certificates.server.pin, tls.certificates.server.certificate] {
            let outcome = try await send(tls.good.baseURL, tls: TLSSettings(certificateAuthorityFile: authority, pinning: .publicKey([pin])))
            #expect(try outcome.result.get().statusCode == 200, "\(pin)")
        }
        let either = try await send(tls.good.baseURL, tls: TLSSettings(certificateAuthorityFile: authority,
                                                                        pinning: .publicKey([tls.certificates.client.pin, tls.certificates.server.pin])))
        #expect(try either.result.get().statusCode == 200)
        let wrong = try await send(tls.good.baseURL, tls: TLSSettings(certificateAuthorityFile: authority, pinning: .publicKey([tls.certificates.client.pin])))
        #expect(failureKind(wrong) == .pinMismatch)
        if case .failure(let failure) = wrong.result { #expect(failure.response == nil) }
        #expect(wrong.message?.response == nil)
        // A pin is checked even when certificates are not.
        let insecure = try await send(tls.selfSigned.baseURL, tls: TLSSettings(allowInvalidCertificates: true, pinning: .publicKey([tls.certificates.server.pin])))
        #expect(failureKind(insecure) == .pinMismatch)
        let notAPin = try await send(tls.good.baseURL, tls: TLSSettings(pinning: .publicKey(["sha256//nope"])))
        #expect(failureKind(notAPin) == .localFile || failureKind(notAPin) == .invalidTLSSettings)
    }

    @Test("certificate pinning trusts exactly the pinned certificates, without any authority")
    func certificatePinning() async throws {
        let tls = try await TestTLS.shared()
        let leaf = try await send(tls.good.baseURL, tls: TLSSettings(pinning: .certificate([tls.certificates.server.certificate])))
        #expect(try leaf.result.get().statusCode == 200)
        let selfSigned = try await send(tls.selfSigned.baseURL, tls: TLSSettings(pinning: .certificate([tls.certificates.selfSigned.certificate])))
        #expect(try selfSigned.result.get().statusCode == 200)
        let other = try await send(tls.good.baseURL, tls: TLSSettings(pinning: .certificate([tls.certificates.selfSigned.certificate])))
        #expect(failureKind(other) == .untrustedCertificate)
    }

    @Test("self-signed, expired and wrong-host certificates are refused with their own errors, unless allowed")
    func refusals() async throws {
        let tls = try await TestTLS.shared()
        let authority = tls.certificates.authority.certificate
        #expect(failureKind(try await send(tls.selfSigned.baseURL, tls: TLSSettings(certificateAuthorityFile: authority))) == .untrustedCertificate)
        #expect(failureKind(try await send(tls.good.baseURL, tls: TLSSettings())) == .untrustedCertificate, "the system does not know the demo CA")
        #expect(failureKind(try await send(tls.expired.baseURL, tls: TLSSettings(certificateAuthorityFile: authority))) == .certificateExpired)
        #expect(failureKind(try await send(tls.wrongHost.baseURL, tls: TLSSettings(certificateAuthorityFile: authority))) == .hostnameMismatch)
        let named = try await send(tls.wrongHost.baseURL, tls: TLSSettings(validatesDomainName: false, certificateAuthorityFile: authority))
        #expect(try named.result.get().statusCode == 200)
        for server in [tls.selfSigned, tls.expired, tls.wrongHost] {
            let allowed = try await send(server.baseURL, tls: TLSSettings(allowInvalidCertificates: true))
            #expect(try allowed.result.get().statusCode == 200, "\(server.baseURL)")
        }
    }

    @Test("a request overrides the config's policy field by field")
    func perRequestOverride() async throws {
        let tls = try await TestTLS.shared()
        let global = TLSSettings(certificateAuthorityFile: tls.certificates.authority.certificate)
        let allowed = try await send(tls.expired.baseURL, tls: global, overrides: TLSOverrides(allowInvalidCertificates: true))
        #expect(try allowed.result.get().statusCode == 200)
        let pinned = try await send(tls.good.baseURL, tls: global, overrides: TLSOverrides(pinning: .publicKey([tls.certificates.client.pin])))
        #expect(failureKind(pinned) == .pinMismatch)
        let hostOff = try await send(tls.wrongHost.baseURL, tls: global, overrides: TLSOverrides(validatesDomainName: false))
        #expect(try hostOff.result.get().statusCode == 200, "the CA from the config still applies")
    }

    @Test("mutual TLS: the server that requires a client certificate takes the demo client's")
    func mutualTLS() async throws {
        let tls = try await TestTLS.shared()
        let authority = tls.certificates.authority.certificate
        let without = try await send(tls.mutual.baseURL, tls: TLSSettings(certificateAuthorityFile: authority))
        #expect(failureKind(without) != nil)
        let with = try await send(tls.mutual.baseURL, tls: TLSSettings(certificateAuthorityFile: authority,
                                                                        clientCertificate: tls.certificates.client.certificate,
                                                                        clientKey: tls.certificates.client.key))
        #expect(try with.result.get().statusCode == 200)
        let missing = try await send(tls.mutual.baseURL, tls: TLSSettings(clientCertificate: "/nonexistent.pem", clientKey: "/nonexistent-key.pem"))
        #expect(failureKind(missing) == .localFile)
    }

    @Test("the TLS facts survive the session log")
    func logged() async throws {
        let tls = try await TestTLS.shared()
        let outcome = try await send(tls.good.baseURL, tls: TLSSettings(certificateAuthorityFile: tls.certificates.authority.certificate))
        let message = try #require(outcome.message)
        let line = SessionRecordWriter.messageLine(message, custom: nil)
        let decoded = try SessionLogFormat.makeDecoder().decode(DebugMessage.self, from: Data(line))
        #expect(decoded.connection?.tls == message.connection?.tls)
        #expect(decoded.connection?.requestsOnConnection == 1)
    }
}
