import CurlewAgent
import CurlewLocking
import CurlewTestSupport
import Foundation
import Testing

@Suite("Reachability")
struct ReachabilityTests {
    /// A loopback port nothing listens on: bound, then closed.
    private func closedPort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        try #require(bound == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    @Test("with the pre-check on, a request to a closed port fails fast with the not-reachable tip")
    func precheckFailsFast() async throws {
        let port = try closedPort()
        let agent = Agent(config: {
            var config = NetworkConfig(baseURL: "http://127.0.0.1:\(port)", requestTimeout: .seconds(30))
            config.reachability = ReachabilitySettings(precheck: true, cacheDuration: .seconds(120))
            return config
        }())
        let started = ContinuousClock.now
        let outcome = await sendCapturing(agent, Request(.get, "/get"))
        // Well under the 30 s timeout it would otherwise wait (the bound leaves room for a
        // machine busy with other tests).
        #expect(ContinuousClock.now - started < .seconds(25))
        guard case .failure(let failure) = outcome.result else { Issue.record("expected a failure"); return }
        #expect(failure.error.kind == .notReachable)
        #expect(failure.tip.hasPrefix(agent.config.tips.notReachable))
        #expect(outcome.message?.pipeline?.reachability == "notReachable")
        #expect(outcome.message?.sent == nil)
        #expect(agent.reachability.status(of: "127.0.0.1:\(port)") == .notReachable)
    }

    @Test("a reachable host passes the pre-check and is recorded")
    func reachable() async throws {
        // The verdict is kept long enough to outlast a request on a machine busy with other tests
        // (the default keeps it 2 s; CI saw it expire before the check below).
        let agent = try await pipelineAgent { $0.reachability = ReachabilitySettings(precheck: true, cacheDuration: .seconds(600)) }
        let outcome = await sendCapturing(agent, Request(.get, "/get"))
        #expect(try outcome.result.get().statusCode == 200)
        #expect(outcome.message?.pipeline?.reachability == "reachable")
        #expect(agent.reachability.status(of: agent.config.baseURL) == .reachable)
    }

    @Test("listeners hear a domain's status; the default domain is the config's base URL; stopListening ends it")
    func listeners() async throws {
        let agent = try await pipelineAgent()
        let heard = Locked<[ReachabilityStatus]>([])
        let listener = agent.reachability.listen(every: .milliseconds(100)) { status in heard.withLock { $0.append(status) } }
        try await waitUntil(timeout: .seconds(20)) { heard.withLock { $0.contains(.reachable) } }
        #expect(listener.domain == agent.config.baseURL)
        agent.reachability.stopListening(listener)

        let port = try closedPort()
        let closed = Locked<[ReachabilityStatus]>([])
        let other = agent.reachability.listen(domain: "127.0.0.1:\(port)", every: .milliseconds(100)) { status in closed.withLock { $0.append(status) } }
        try await waitUntil(timeout: .seconds(20)) { closed.withLock { $0 } == [.notReachable] }
        agent.reachability.stopListening(domain: other.domain)
        #expect(await agent.reachability.check("127.0.0.1:\(port)") == .notReachable)
    }

    @Test("a domain a proxy carries requests to is probed at the proxy: reachable through a live one, not through a closed one or an unusable setting")
    func throughProxy() async throws {
        let live = try await pipelineAgent()
        let livePort = try #require(URLComponents(string: live.config.baseURL)?.port)
        let closed = try closedPort()
        func agent(proxy: String, noProxy: String = "") -> Agent {
            var config = NetworkConfig(baseURL: live.config.baseURL)
            config.proxies = ProxySettings(http: proxy, https: "", noProxy: noProxy)
            return Agent(config: config)
        }
        // The host itself is closed; the proxy that would carry requests to it listens.
        #expect(await agent(proxy: "http://127.0.0.1:\(livePort)").reachability.check("127.0.0.1:\(closed)") == .reachable)
        // The host listens; its proxy does not, so no request would get there.
        let throughClosed = agent(proxy: "http://127.0.0.1:\(closed)")
        #expect(await throughClosed.reachability.check("127.0.0.1:\(livePort)") == .notReachable)
        let heard = Locked<[ReachabilityStatus]>([])
        let listener = throughClosed.reachability.listen(every: .milliseconds(100)) { status in heard.withLock { $0.append(status) } }
        try await waitUntil(timeout: .seconds(20)) { heard.withLock { $0 } == [.notReachable] }
        throughClosed.reachability.stopListening(listener)
        // Exempt by no_proxy: probed directly again.
        #expect(await agent(proxy: "http://127.0.0.1:\(closed)", noProxy: "127.0.0.1").reachability.check("127.0.0.1:\(livePort)") == .reachable)
        #expect(await agent(proxy: "http://:3128").reachability.check("127.0.0.1:\(livePort)") == .notReachable)
    }
}
