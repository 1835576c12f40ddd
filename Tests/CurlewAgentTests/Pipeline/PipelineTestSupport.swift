import CurlewAgent
import CurlewDemoServer
import CurlewLocking
import CurlewTestSupport
import Foundation

/// An agent on the shared demo server, configured for one test.
func pipelineAgent(_ configure: (inout NetworkConfig) -> Void = { _ in }) async throws -> Agent {
    var config = NetworkConfig(baseURL: try await TestServer.shared().baseURL)
    configure(&config)
    return Agent(config: config)
}

/// How many requests the shared demo server received whose URI contains `tag`.
func serverCount(_ tag: String) async throws -> Int {
    try await TestServer.shared().receivedRequests.filter { $0.uri.contains(tag) }.count
}

/// Sends a request and returns its outcome and its debug message.
func sendCapturing(_ agent: Agent, _ request: Request) async -> (result: Result<Response, RequestFailure>, message: DebugMessage?) {
    let message = Locked<DebugMessage?>(nil)
    let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Response, RequestFailure>, Never>) in
        agent.start(request, callbacks: RequestCallbacks(
            success: { continuation.resume(returning: .success($0)) },
            failure: { continuation.resume(returning: .failure($0)) },
            debug: { captured in message.withLock { $0 = captured } }
        ))
    }
    return (result, message.withLock { $0 })
}

/// A fresh directory under the temporary directory, for disk caches.
func temporaryDirectory() -> String {
    let path = NSTemporaryDirectory() + "curlew-test-" + UUID().uuidString.prefix(8)
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}
