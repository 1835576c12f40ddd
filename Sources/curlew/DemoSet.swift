import CurlewAgent

/// The requests and groups of `curlew demo`'s scripted runs (the interface opens the demo
/// workspace, `Demo/curlew.yaml`, instead).
enum DemoSet {
    static let tour: [Request] = [
        Request(.get, "/get", name: "a simple GET", params: ["lang": "swift", "page": 1]),
        Request(.post, "/post", name: "a JSON POST", params: ["name": "curlew", "tags": ["http", "timing"]], requestSerializer: .json),
        Request(.get, "/redirect/2", name: "two redirects"),
        Request(.get, "/status/418", name: "an unacceptable status"),
        Request(.get, "/bytes/2048", name: "binary bytes"),
    ]

    static let slow = Request(.get, "/delay/5", name: "slow, then cancelled")

    /// Ten requests of different lengths; the seventh fails with a 500.
    static func batch(policy: BatchPolicy, maxConcurrency: Int?) -> RequestGroup {
        let members = (0..<10).map { index in
            index == 6
                ? Request(.get, "/delay/0.4?status=500", name: "item \(index + 1) (fails)")
                : Request(.get, "/delay/\(Double(index % 4 + 1) / 10)", name: "item \(index + 1)")
        }
        return .batch(members, policy: policy, maxConcurrency: maxConcurrency, name: "ten requests")
    }

    static let loginChain = RequestGroup.chain([
        ChainStep(Request(.post, "/login", name: "log in", params: ["username": "demo", "password": "curlew"], requestSerializer: .json),
                  captures: [.json("token", "$.token")]),
        ChainStep(Request(.get, "/me", name: "profile", headers: ["Authorization": "Bearer {{token}}"])),
        ChainStep(Request(.get, "/bearer", name: "check token", headers: ["Authorization": "Bearer {{token}}"])),
    ], name: "login -> profile")

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
