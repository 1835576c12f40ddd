import CurlewAgent
import CurlewLocking
import CurlewTestSupport
import Foundation
import Testing

@Suite("Reformers")
struct ReformerTests {
    struct Slideshow: Decodable, Sendable, Equatable {
        struct Show: Decodable, Sendable, Equatable {
            var author: String
            var title: String
        }
        var slideshow: Show
    }

    @Test("a Decodable reformer hands success the model, off the transfer thread and the callback queue")
    func decodable() async throws {
        let callbackQueue = DispatchQueue(label: "reformer-test.callbacks")
        let marker = DispatchSpecificKey<Bool>()
        callbackQueue.setSpecific(key: marker, value: true)
        let agent = try await pipelineAgent { $0.callbackQueue = callbackQueue }
        let seen = Locked<(thread: String, onCallbackQueue: Bool)>(("", true))
        var request = Request(.get, "/json")
        let decode = Reformer.decoding(Slideshow.self)
        request.reformer = Reformer(name: decode.name) { response in
            seen.withLock { $0 = (Thread.current.name ?? "", DispatchQueue.getSpecific(key: marker) == true) }
            return try decode.transform(response)
        }
        let response = try await agent.send(request)
        #expect(response.reformed(as: Slideshow.self) == Slideshow(slideshow: .init(author: "Curlew", title: "Sample Slide Show")))
        #expect(seen.withLock { $0.thread } != "curlew.transfer")
        #expect(seen.withLock { $0.onCallbackQueue } == false)
    }

    @Test("a reformer error is a typed failure that keeps the raw response")
    func failure() async throws {
        let agent = try await pipelineAgent()
        var request = Request(.get, "/bytes/8")
        request.reformer = .decoding(Slideshow.self)
        let outcome = await sendCapturing(agent, request)
        guard case .failure(let failure) = outcome.result else { Issue.record("expected a failure"); return }
        #expect(failure.error.kind == .reformFailed)
        #expect(failure.error.message.hasPrefix("decode Slideshow failed"))
        #expect(failure.response?.body.count == 8)
        #expect(outcome.message?.pipeline?.checks == ["decode Slideshow"])
    }
}
