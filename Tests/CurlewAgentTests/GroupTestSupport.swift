import CurlewAgent
import CurlewTestSupport
import Foundation

/// An agent on the shared demo server with a recorder attached.
func groupAgent(connectionsPerHost: Int = 10) async throws -> (Agent, EventRecorder) {
    let agent = Agent(config: NetworkConfig(baseURL: try await TestServer.shared().baseURL, maxConnectionsPerHost: connectionsPerHost))
    let recorder = EventRecorder()
    agent.addObserver(recorder)
    return (agent, recorder)
}

/// Runs a group to its end whatever its verdict, and waits for observers.
func runToEnd(_ group: RequestGroup, on agent: Agent) async -> GroupHandle {
    let handle: GroupHandle
    do {
        handle = try await agent.run(group)
    } catch {
        // `run` throws nothing but GroupFailure.
        handle = (error as! GroupFailure).group
    }
    await agent.waitForObservers()
    return handle
}

/// The largest number of members in flight at once, replayed from member updates.
func maxInFlight(_ updates: [MemberUpdate]) -> Int {
    var inFlight = Set<Int>()
    var peak = 0
    for update in updates {
        if update.state == .inFlight { inFlight.insert(update.index) }
        if update.state.isTerminal { inFlight.remove(update.index) }
        peak = max(peak, inFlight.count)
    }
    return peak
}

/// The order in which members first went in flight.
func startOrder(_ updates: [MemberUpdate]) -> [Int] {
    var seen: [Int] = []
    for update in updates where update.state == .inFlight && !seen.contains(update.index) { seen.append(update.index) }
    return seen
}
