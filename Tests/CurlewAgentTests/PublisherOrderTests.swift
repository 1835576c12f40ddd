@testable import CurlewAgent
import CurlewTestSupport
@testable import CurlewTransport
import Foundation
import Testing

@Suite("The agent's one publisher")
struct PublisherOrderTests {
    // Observed at registration, the request's events share one info; registered unobserved (an
    // observer added since), each event makes its own.
    @Test("an exchange a pipeline ends at once, in the transfer turn that started it, is heard after its `did send` (found in latency mode: the interface kept such requests counted in flight)", arguments: [true, false])
    func pipelinedEndFollowsItsStart(observedAtRegistration: Bool) async {
        let config = NetworkConfig()
        let core = AgentCore(config: config, callbackRunner: CallbackRunner(config: config, transferThreads: 1))
        let recorder = EventRecorder()
        core.observers.add(recorder)
        let info = RequestInfo(id: 7, name: nil, method: "GET", url: "http://127.0.0.1/get", startedAt: Date())
        let entry = AgentCore.ActiveRequest(
            handle: RequestHandle(id: 7, name: nil), info: info, request: Request(.get, "/get"), composed: nil,
            callbacks: RequestCallbacks(), placement: nil, observed: observedAtRegistration,
            // As a pipeline ends an exchange it has judged: at once, on the thread that finished it.
            onFinish: { _, _ in core.publish([.finished(SharedRequestInfo(info), .succeeded)]) }
        )
        core.register(entry, lane: 0)
        core.handle([.started(id: 7), .finished(.endedBeforeStart(id: 7))], lane: 0)
        await core.observers.drain()
        #expect(recorder.events(for: 7) == [.willSend(7), .didSend(7), .finished(7, .succeeded)])
    }
}
