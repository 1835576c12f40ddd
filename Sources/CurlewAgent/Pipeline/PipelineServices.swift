import CurlewTransport

/// What every pipelined request shares: the agent's parts and the middle layer's state.
final class PipelineServices: Sendable {
    let config: NetworkConfig
    let core: AgentCore
    let engine: TransferEngine
    let composer: RequestComposer
    let cache: ResponseCache?
    let duplicates: DuplicateRegistry
    let reachability: Reachability
    let makeID: @Sendable () -> UInt64
    /// Whether the config turns on any middle-layer feature for every request.
    let configUsesPipeline: Bool
    /// Headers that identify the user: requests with different values never share a cache entry.
    let credentialHeaders: [String]

    init(config: NetworkConfig, core: AgentCore, engine: TransferEngine, composer: RequestComposer, reachability: Reachability,
         makeID: @escaping @Sendable () -> UInt64) {
        self.config = config
        self.core = core
        self.engine = engine
        self.composer = composer
        self.cache = ResponseCache(settings: config.cache)
        self.duplicates = DuplicateRegistry()
        self.reachability = reachability
        self.makeID = makeID
        self.credentialHeaders = TransferRequest.credentialHeaderNames + config.secretHeaderNames
        configUsesPipeline = config.baseURLProvider != nil || !config.urlFilters.isEmpty || !config.plugins.isEmpty
            || (cache != nil && config.cache.policy != .networkOnly) || config.retry != nil
            || (config.mocks.enabled && !config.mocks.rules.isEmpty) || config.duplicates.policy != .allow
            || config.reachability.precheck || config.businessValidator != nil
    }

    /// Whether a request goes through the middle layer; plain requests take the direct path.
    func uses(_ request: Request) -> Bool {
        // Matched as patterns: comparing an optional with nil copies the value first.
        if configUsesPipeline { return true }
        if case .some = request.cache { return true }
        if case .some = request.retry { return true }
        if case .some = request.mock { return true }
        if case .some = request.signer { return true }
        if case .some = request.reformer { return true }
        return (request.duplicatePolicy ?? .allow) != .allow || !request.urlFilters.isEmpty || !request.plugins.isEmpty
            || !request.validation.isEmpty || request.reachabilityPrecheck == true
    }
}
