import CurlewTestSupport
import Foundation
import Testing

@Suite("curlew send through a proxy the environment names")
struct SendProxyTests {
    /// `values` with every other proxy variable the process may have inherited set to nothing,
    /// which libcurl and the agent read as not set.
    private func proxies(_ values: [String: String]) -> [String: String] {
        let names = ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"]
        return Dictionary(uniqueKeysWithValues: names.map { ($0, "") }).merging(values) { $1 }
    }

    @Test("the reachability pre-check leaves a proxied request alone: it would probe the host, where the request goes to the proxy (found by a new user's trial)")
    func precheckThroughProxy() async throws {
        let server = try await TestServer.shared()
        let result = try await CurlewProcess.run(["send", "--precheck", "--no-body", "http://proxied.invalid/get"], environment: proxies(["http_proxy": server.baseURL]))
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("< HTTP/1.1 200 OK"), "\(result.output)")
        #expect(result.output.contains("not checked: a proxy may carry the request"), "\(result.output)")
        // A host no_proxy exempts is checked as ever (found by review): a closed port is not reachable.
        let exempt = try await CurlewProcess.run(["send", "--precheck", "http://127.0.0.1:1/get"],
                                                 environment: proxies(["http_proxy": server.baseURL, "no_proxy": "localhost,127.0.0.1"]))
        #expect(exempt.status == 7 && exempt.error.contains("notReachable"), "\(exempt.error)")
    }

    @Test("a proxy that cannot be resolved or read exits 5, as curl")
    func unresolvableProxy() async throws {
        let result = try await CurlewProcess.run(["send", "http://127.0.0.1:1/get"], environment: proxies(["http_proxy": "::::"]))
        #expect(result.status == 5, "\(result.status) \(result.error)")
        #expect(result.error.contains("the proxy setting cannot be used (Unsupported proxy syntax"), "\(result.error)")
        let unnamed = try await CurlewProcess.run(["send", "http://127.0.0.1:1/get"], environment: proxies(["http_proxy": "http://proxy.invalid:3128"]))
        #expect(unnamed.status == 5 && unnamed.error.contains("couldNotResolveHost: the proxy's name could not be resolved"), "\(unnamed.error)")
    }

    @Test("a proxy's password libcurl repeats in its error is hidden on stderr and in the session log (found by a new user's trial)")
    func proxyPasswordHidden() async throws {
        let server = try await TestServer.shared()
        let log = NSTemporaryDirectory() + "curlew-proxy-log-" + UUID().uuidString + ".jsonl"
        defer { try? FileManager.default.removeItem(atPath: log) }
        let result = try await CurlewProcess.run(["send", "--log", log, "\(server.baseURL)/get"], environment: proxies(["http_proxy": "http://user:pa#ss@127.0.0.1:99999"]))
        #expect(result.status == 5 && result.error.contains("user:[REDACTED]@"), "\(result.status) \(result.error)")
        for secret in ["pa#ss", "pa%23ss"] { #expect(!result.error.contains(secret) && !result.output.contains(secret), "\(result.error)") }
        let written = try String(contentsOfFile: log, encoding: .utf8)
        #expect(written.contains("user:[REDACTED]@") && !written.contains("pa#ss") && !written.contains("pa%23ss"), "\(written)")
    }

    @Test("an international host name is looked up in its ASCII form, as curl does (found by a new user's trial: refused as a bad URL)")
    func internationalHost() async throws {
        // The C locale of cron or a container is read as C.UTF-8: the argument is UTF-8 all the same.
        for locale in ["C.UTF-8", "C"] {
            let result = try await CurlewProcess.run(["send", "http://bücher.invalid/x"], environment: proxies(["LC_ALL": locale]))
            #expect(result.status == 6, "\(locale): \(result.status) \(result.error)")
            #expect(result.error.contains("xn--bcher-kva.invalid"), "\(locale): \(result.error)")
        }
    }

    @Test("a SOCKS proxy whose handshake fails exits 97, as curl")
    func socksHandshakeFails() async throws {
        let server = try await TestServer.shared()
        let result = try await CurlewProcess.run(["send", "http://proxied.invalid/get"],
                                                 environment: proxies(["http_proxy": server.baseURL.replacingOccurrences(of: "http://", with: "socks5://")]))
        #expect(result.status == 97, "\(result.status) \(result.error)")
        #expect(result.error.contains("proxyRefused: the proxy would not carry the exchange"), "\(result.error)")
    }

    @Test("a proxy that refuses the connection is said as the proxy, not the server, and exits 7 as curl")
    func proxyRefusesConnection() async throws {
        let server = try await TestServer.shared()
        let result = try await CurlewProcess.run(["send", "\(server.baseURL)/get"], environment: proxies(["http_proxy": "http://127.0.0.1:1"]))
        #expect(result.status == 7, "\(result.status) \(result.error)")
        #expect(result.error.contains("proxyUnreachable: could not connect to the proxy"), "\(result.error)")
    }

    @Test("a refused tunnel exits 56 as curl does, and the proxy's answer is not shown as the server's (found by a new user's trial)")
    func refusedTunnel() async throws {
        let server = try await TestServer.shared()
        let result = try await CurlewProcess.run(["send", "https://proxied.invalid/get"], environment: proxies(["https_proxy": server.baseURL]))
        #expect(result.status == 56, "\(result.error)")
        #expect(result.error.contains("proxyRefused: the proxy refused the tunnel to the server"), "\(result.error)")
        #expect(!result.output.contains("404"), "\(result.output)")
    }

    @Test("an https proxy whose certificate is not trusted exits 60 naming the proxy, and `--insecure`, which is for the server, does not hide it (found by a new user's trial)")
    func proxyCertificateUntrusted() async throws {
        let tls = try await TestTLS.shared()
        for arguments in [["send", "http://proxied.invalid/get"], ["send", "--insecure", "http://proxied.invalid/get"]] {
            let result = try await CurlewProcess.run(arguments, environment: proxies(["http_proxy": tls.good.baseURL]))
            #expect(result.status == 60, "\(result.status) \(result.error)")
            #expect(result.error.contains("proxyTLSFailure: the TLS connection to the proxy failed"), "\(result.error)")
        }
    }
}
