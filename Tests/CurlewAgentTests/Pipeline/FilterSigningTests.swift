import CurlewAgent
import CurlewDemoServer
import CurlewLocking
import CurlewSigning
import CurlewTestSupport
import Foundation
import Testing

@Suite("URL filters, signing and dynamic domain")
struct FilterSigningTests {
    @Test("filters add common params, headers and a path prefix, globally and per request, in order")
    func filters() async throws {
        let server = try await TestServer.shared()
        let agent = try await pipelineAgent {
            $0.urlFilters = [CommonParamsFilter(["app": "curlew", "platform": "linux"]), CommonHeadersFilter(["X-App": "curlew"])]
        }
        let tag = uniqueTag()
        var request = Request(.get, "/get", params: ["tag": .string(tag), "platform": "mine"])
        request.urlFilters = [PathPrefixFilter("/anything")]
        let outcome = await sendCapturing(agent, request)
        let received = try #require(server.receivedRequests.last { $0.uri.contains(tag) })
        #expect(received.uri.hasPrefix("/anything/get?"))
        #expect(received.uri.contains("app=curlew"))
        #expect(received.uri.contains("platform=mine"))
        #expect(!received.uri.contains("platform=linux"))
        #expect(received.header("X-App") == "curlew")
        #expect(outcome.message?.pipeline?.filters == ["common params app,platform", "common headers X-App", "path prefix /anything"])
    }

    @Test("the HMAC-SHA256 signer signs the final method, URL and body; the server verifies it")
    func hmacSigner() async throws {
        let agent = try await pipelineAgent {
            $0.signers["demo"] = HMACSigner(keyID: DemoSignature.keyID, secret: Data(DemoSignature.secret.utf8))
        }
        var request = Request(.post, "/signed?b=2&a=1", params: ["name": "curlew"])
        request.requestSerializer = .json
        request.signer = "demo"
        let outcome = await sendCapturing(agent, request)
        let response = try outcome.result.get()
        #expect(try response.json()["valid"] == .bool(true))
        #expect(outcome.message?.pipeline?.signer == "demo")

        var wrongKey = request
        wrongKey.signer = "wrong"
        let unsigned = try await pipelineAgent {
            $0.signers["wrong"] = HMACSigner(keyID: DemoSignature.keyID, secret: Data("not the secret".utf8))
        }
        let rejected = await sendCapturing(unsigned, wrongKey)
        guard case .failure(let failure) = rejected.result else { Issue.record("expected a failure"); return }
        #expect(failure.response?.statusCode == 401)
        #expect(try failure.response?.json()["reason"] == .string("signature does not match"))
    }

    @Test("a signer's query that makes the request head longer than libcurl sends is refused before anything is sent, as the URL's")
    func signerPastTheHeadLimit() async throws {
        struct Padding: RequestSigner {
            func sign(_ input: SigningInput) throws -> SigningOutput {
                SigningOutput(queryParams: ["pad": .string(String(repeating: "p", count: 1_100_000))])
            }
        }
        let server = try await TestServer.shared()
        let agent = try await pipelineAgent { $0.signers["padding"] = Padding() }
        let tag = uniqueTag()
        var request = Request(.get, "/get?\(tag)")
        request.signer = "padding"
        let outcome = await sendCapturing(agent, request)
        guard case .failure(let failure) = outcome.result else { Issue.record("expected a failure"); return }
        #expect(failure.error.kind == .invalidURL)
        #expect(failure.error.message.hasPrefix("the request head would be 1.05 MiB"), "\(failure.error.message)")
        #expect(failure.response == nil)
        #expect(!server.receivedRequests.contains { $0.uri.contains(tag) })
    }

    @Test("a signature is not carried to another origin by a redirect")
    func signatureStaysHome() async throws {
        let other = try await DemoServer.start()
        defer { Task { try? await other.stop() } }
        let agent = try await pipelineAgent {
            $0.signers["demo"] = HMACSigner(keyID: DemoSignature.keyID, secret: Data(DemoSignature.secret.utf8))
        }
        let tag = uniqueTag()
        var request = Request(.get, "/redirect-to", params: ["url": .string("\(other.baseURL)/headers?tag=\(tag)")])
        request.signer = "demo"
        _ = try await agent.send(request)
        let received = try #require(other.receivedRequests.first { $0.uri.contains(tag) })
        #expect(received.header("X-Curlew-Signature") == nil)
        #expect(received.header("X-Curlew-Key") == nil)
    }

    @Test("a request naming an unknown signer is refused before sending")
    func unknownSigner() async throws {
        let agent = try await pipelineAgent()
        let tag = uniqueTag()
        var request = Request(.get, "/get?tag=\(tag)")
        request.signer = "nobody"
        let outcome = await sendCapturing(agent, request)
        guard case .failure(let failure) = outcome.result else { Issue.record("expected a failure"); return }
        #expect(failure.error.kind == .signingFailed)
        #expect(try await serverCount(tag) == 0)
    }

    @Test("dynamic domain: changing the base URL at run time moves requests not yet started")
    func dynamicDomain() async throws {
        let first = try await TestServer.shared()
        let second = try await DemoServer.start()
        defer { Task { try? await second.stop() } }
        let current = Locked(first.baseURL)
        let agent = Agent(config: {
            var config = NetworkConfig(baseURL: "http://127.0.0.1:9")
            config.baseURLProvider = { current.withLock { $0 } }
            return config
        }())
        let tag = uniqueTag()
        _ = try await agent.send(Request(.get, "/get?tag=\(tag)"))
        current.withLock { $0 = second.baseURL }
        _ = try await agent.send(Request(.get, "/get?tag=\(tag)"))
        #expect(first.receivedRequests.filter { $0.uri.contains(tag) }.count == 1)
        #expect(second.receivedRequests.filter { $0.uri.contains(tag) }.count == 1)
    }
}
