import CurlewTestSupport
import Foundation
import Testing

@Suite("curlew send over TLS")
struct SendTLSTests {
    @Test("--cacert trusts the demo authority and the TLS block shows the chain and the pin to copy")
    func trusted() async throws {
        let tls = try await TestTLS.shared()
        let result = try await CurlewProcess.run(["send", "--no-body", "--cacert", tls.certificates.authority.certificate, "\(tls.good.baseURL)/get"])
        #expect(result.status == 0)
        #expect(result.output.contains("\nTLS  TLSv1."))
        #expect(result.output.contains("ALPN h2"))
        #expect(result.output.contains("  [0] CN=localhost,O=Curlew"))
        #expect(result.output.contains("      issuer  CN=Curlew Demo CA,O=Curlew"))
        #expect(result.output.contains("      names   DNS:localhost, IP:127.0.0.1"))
        #expect(result.output.contains("      pin     \(tls.certificates.server.pin)"))
    }

    @Test("pins, trust failures and client certificates exit with curl's numbers")
    func exitCodes() async throws {
        let tls = try await TestTLS.shared()
        let ca = tls.certificates.authority.certificate
        let cases: [([String], Int32)] = [
            (["--cacert", ca, "--pin", tls.certificates.server.pin, "\(tls.good.baseURL)/get"], 0),
            (["--cacert", ca, "--pin", tls.certificates.server.certificate, "\(tls.good.baseURL)/get"], 0),
            (["--cacert", ca, "--pin", tls.certificates.client.pin, "\(tls.good.baseURL)/get"], 90),
            (["--pin-cert", tls.certificates.server.certificate, "\(tls.good.baseURL)/get"], 0),
            (["\(tls.good.baseURL)/get"], 60),
            (["--cacert", ca, "\(tls.expired.baseURL)/get"], 60),
            (["--cacert", ca, "\(tls.wrongHost.baseURL)/get"], 60),
            (["--cacert", ca, "--no-verify-host", "\(tls.wrongHost.baseURL)/get"], 0),
            (["-k", "\(tls.selfSigned.baseURL)/get"], 0),
            (["--cacert", ca, "--cert", tls.certificates.client.certificate, "--key", tls.certificates.client.key, "\(tls.mutual.baseURL)/get"], 0),
            (["--cacert", ca, "--cert", tls.certificates.client.certificate, "\(tls.mutual.baseURL)/get"], 64),
            (["--pin", "x", "--pin-cert", "y", "\(tls.good.baseURL)/get"], 64),
        ]
        for (arguments, expected) in cases {
            let result = try await CurlewProcess.run(["send", "--no-body"] + arguments)
            #expect(result.status == expected, "\(arguments): \(result.error)")
        }
        let mismatch = try await CurlewProcess.run(["send", "--cacert", ca, "--pin", tls.certificates.client.pin, "\(tls.good.baseURL)/get"])
        #expect(mismatch.error.contains("pinMismatch"))
        #expect(!mismatch.output.contains("< HTTP/1.1"), "no response after a pin mismatch")
    }
}
