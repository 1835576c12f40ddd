import CurlewAgent
import CurlewTestSupport
import Foundation
import Testing

private func tlsAgent(_ tls: TestTLS, maxConnectionsPerHost: Int = 5) -> Agent {
    var config = NetworkConfig(baseURL: tls.good.baseURL, maxConnectionsPerHost: maxConnectionsPerHost)
    config.tls = TLSSettings(certificateAuthorityFile: tls.certificates.authority.certificate)
    return Agent(config: config)
}

@Suite("HTTP/2")
struct HTTP2Tests {
    @Test("ten concurrent requests over TLS share one HTTP/2 connection")
    func multiplexing() async throws {
        let tls = try await TestTLS.shared()
        let agent = tlsAgent(tls)
        let messages = await withTaskGroup(of: DebugMessage?.self) { group in
            for index in 0..<10 {
                group.addTask { await sendCapturing(agent, Request(.get, "/delay/0.3?n=\(index)")).message }
            }
            var collected: [DebugMessage?] = []
            for await message in group { collected.append(message) }
            return collected.compactMap { $0 }
        }
        #expect(messages.count == 10)
        #expect(messages.allSatisfy { $0.response?.statusCode == 200 })
        #expect(messages.allSatisfy { $0.connection?.httpVersion == "2" && $0.connection?.tls?.alpn == "h2" })
        let ports = Set(messages.compactMap { $0.connection?.localPort })
        #expect(ports.count == 1, "one connection: local ports \(ports)")
        #expect(messages.map { $0.connection?.newConnections ?? 0 }.reduce(0, +) == 1, "one request opened it, the others joined")
        #expect(Set(messages.compactMap { $0.connection?.requestsOnConnection }) == Set(1...10))
    }

    @Test("a request or the config chooses HTTP/1.1 over TLS, and HTTP/2 with prior knowledge over plain HTTP")
    func choosingTheVersion() async throws {
        let tls = try await TestTLS.shared()
        var request = Request(.get, "/get")
        request.httpVersion = .http1_1
        let http1 = await sendCapturing(tlsAgent(tls), request)
        #expect(http1.message?.connection?.httpVersion == "1.1")
        #expect(http1.message?.connection?.tls?.alpn == "http/1.1")

        var config = NetworkConfig(baseURL: try await TestServer.shared().baseURL)
        config.httpVersion = .http2PriorKnowledge
        let plain = await sendCapturing(Agent(config: config), Request(.get, "/get"))
        #expect(try plain.result.get().statusCode == 200)
        #expect(plain.message?.connection?.httpVersion == "2")
        #expect(plain.message?.sent?.head.hasPrefix("GET /get HTTP/2") == true)
    }

    @Test("every kind of body the demo routes write arrives whole over HTTP/2")
    func bodies() async throws {
        let tls = try await TestTLS.shared()
        let agent = tlsAgent(tls)
        let streamed = try await agent.send(Request(.get, "/stream/20"))
        #expect(String(decoding: streamed.body, as: UTF8.self).split(separator: "\n").count == 20, "chunked on HTTP/1.1, framed by HTTP/2 here")
        let ranged = try await agent.send(Request(.get, "/range/300000"))
        #expect(ranged.body.count == 300_000)
        #expect(ranged.httpVersion == "2")
        let empty = try await agent.send(Request(.get, "/status/204"))
        #expect(empty.statusCode == 204 && empty.body.isEmpty)
        let head = try await agent.send(Request(.head, "/range/1000"))
        #expect(head.headers["Content-Length"] == "1000" && head.body.isEmpty)
        var posted = Request(.post, "/post", params: ["a": "b"])
        posted.requestSerializer = .json
        #expect(try await agent.send(posted).json()["json"]?["a"] == .string("b"))
    }
}
