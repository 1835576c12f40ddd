/// A request's outcome as plugins see it and may change it.
public struct PluginOutcome: Sendable {
    public var response: Response?
    public var error: RequestError?
    /// The request as the plugins prepared it for this round (headers a plugin added included).
    public var request: Request?

    public init(response: Response?, error: RequestError?, request: Request? = nil) {
        self.response = response
        self.error = error
        self.request = request
    }
}

/// What a plugin's `process` decides.
public enum PluginDecision: Sendable {
    /// Deliver this outcome (the one received, or a changed one).
    case deliver(PluginOutcome)
    /// Prepare and send the request again (after refreshing a token, say). The agent replays a
    /// request at most `NetworkConfig.maxReplays` times.
    case replay(reason: String)
}

/// A plugin (CCNetwork's and YTKNetwork's accessories, Moya's plugins), global in
/// `NetworkConfig.plugins` or per request in `Request.plugins`. Hooks run in that order, the
/// config's plugins first, for every hook. `prepare` runs before composing (again on a replay),
/// `willSend` before each attempt, `didReceive` when the final attempt ends, `process` after
/// validation and the reformer, off the transfer thread and the callback queue.
public protocol AgentPlugin: Sendable {
    var name: String { get }
    func prepare(_ request: Request) -> Request
    func willSend(_ request: RequestInfo)
    func didReceive(_ outcome: PluginOutcome, for request: RequestInfo)
    /// `replays` counts the replays already made for this request.
    func process(_ outcome: PluginOutcome, for request: RequestInfo, replays: Int) async -> PluginDecision
}

extension AgentPlugin {
    public func prepare(_ request: Request) -> Request { request }
    public func willSend(_ request: RequestInfo) {}
    public func didReceive(_ outcome: PluginOutcome, for request: RequestInfo) {}
    public func process(_ outcome: PluginOutcome, for request: RequestInfo, replays: Int) async -> PluginDecision { .deliver(outcome) }
}
