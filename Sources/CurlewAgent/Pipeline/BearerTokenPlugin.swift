import CurlewLocking

/// Attaches `Authorization: Bearer <token>` and, when the server answers 401, refreshes the token
/// once through `refresh` and replays the request. Concurrent 401s share one refresh, and a 401
/// to a token that has already been replaced replays with the new one without refreshing again.
public final class BearerTokenPlugin: AgentPlugin {
    private struct State {
        var token: String?
        var refreshing: Task<String, any Error>?
    }

    public let name = "bearer token"
    private let refresh: @Sendable () async throws -> String
    private let state: Locked<State>

    public init(token: String? = nil, refresh: @escaping @Sendable () async throws -> String) {
        self.state = Locked(State(token: token))
        self.refresh = refresh
    }

    /// The token requests carry now.
    public var token: String? { state.withLock { $0.token } }

    public func prepare(_ request: Request) -> Request {
        guard let token else { return request }
        var request = request
        request.headers.set("Authorization", "Bearer " + token)
        return request
    }

    public func process(_ outcome: PluginOutcome, for request: RequestInfo, replays: Int) async -> PluginDecision {
        guard outcome.response?.statusCode == 401, replays == 0 else { return .deliver(outcome) }
        // The token this request carried, not the current one: another request may have refreshed it meanwhile.
        let sent = outcome.request?.headers["Authorization"]
        let stale = sent.flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
        do {
            let fresh = try await refreshedToken(replacing: stale)
            return .replay(reason: "401 with \(stale == nil ? "no token" : "a stale token"); refreshed the token (\(fresh.count) characters) and replayed")
        } catch {
            var failed = outcome
            failed.error = RequestError(.unacceptableStatus, "HTTP 401 and the token refresh failed: \(error)", code: 401)
            return .deliver(failed)
        }
    }

    /// One refresh for all requests that saw the same stale token.
    private func refreshedToken(replacing stale: String?) async throws -> String {
        let task = state.withLock { state -> Task<String, any Error> in
            if let current = state.token, current != stale { return Task { current } }
            if let running = state.refreshing { return running }
            let refresh = self.refresh
            let task = Task { try await refresh() }
            state.refreshing = task
            return task
        }
        do {
            let token = try await task.value
            // Only the refresh that is still the current one writes its token back, so a late
            // waiter never puts an older token in place of a newer one.
            state.withLock { state in
                guard state.refreshing == task else { return }
                state.token = token
                state.refreshing = nil
            }
            return token
        } catch {
            state.withLock { state in
                if state.refreshing == task { state.refreshing = nil }
            }
            throw error
        }
    }
}
