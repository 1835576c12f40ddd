import CurlewAgent
import CurlewWorkspace

/// What `curlew demo`'s scripted runs send: the tour's requests, and the demo workspace's groups.
enum DemoSet {
    static let tour: [Request] = [
        Request(.get, "/get", name: "a simple GET", params: ["lang": "swift", "page": 1]),
        Request(.post, "/post", name: "a JSON POST", params: ["name": "curlew", "tags": ["http", "timing"]], requestSerializer: .json),
        Request(.get, "/redirect/2", name: "two redirects"),
        Request(.get, "/status/418", name: "an unacceptable status"),
        Request(.get, "/bytes/2048", name: "binary bytes"),
    ]

    static let slow = Request(.get, "/delay/5", name: "slow, then cancelled")

    /// The demo workspace's batch of ten (the seventh fails with a 500), with the policy and
    /// concurrency asked for.
    static func batch(policy: BatchPolicy, maxConcurrency: Int?) throws -> RequestGroup {
        let members = try demoWorkspace().group(named: "ten requests").members
        return .batch(members, policy: policy, maxConcurrency: maxConcurrency, name: "ten requests")
    }

    /// The demo workspace's login → profile chain.
    static func loginChain() throws -> RequestGroup {
        try demoWorkspace().group(named: "login -> profile")
    }

    /// The demo workspace; its groups' requests are paths, sent to whatever base the agent has.
    private static func demoWorkspace() throws -> WorkspaceSession {
        try DemoWorkspace.session(baseURL: "http://127.0.0.1", secureBaseURL: "https://127.0.0.1")
    }

    /// Runs a group to its end and returns its verdict.
    static func run(_ group: RequestGroup, on agent: Agent) async -> GroupState {
        do {
            return try await agent.run(group).state
        } catch let failure as GroupFailure {
            return failure.group.state
        } catch {
            return .failed
        }
    }
}
