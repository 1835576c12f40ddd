/// What happens to a request identical to one still in flight (HLNetworking, GofNetComponent).
public enum DuplicatePolicy: String, Sendable, Equatable, Codable {
    case allow
    /// Fail at once with `tooFrequent` and the config's "too frequent" tip.
    case reject
    /// Share the in-flight request's result. Cancelling either one leaves the other running.
    case coalesce
}

/// Duplicate detection's global settings (`NetworkConfig.duplicates`).
public struct DuplicateSettings: Sendable, Equatable {
    public var policy: DuplicatePolicy
    /// Request headers that are part of the fingerprint besides method, URL and body.
    public var keyHeaders: [String]

    public init(policy: DuplicatePolicy = .allow, keyHeaders: [String] = ["Authorization", "Accept"]) {
        self.policy = policy
        self.keyHeaders = keyHeaders
    }
}
