/// The keys each nested part of the workspace format accepts. The readers check mappings
/// against these lists, and a test holds `docs/workspace.schema.json` to the same lists, so the
/// schema and the reader cannot drift apart.
enum WorkspaceKeys {
    static let signer = ["keyID", "secret"]
    static let cookies = ["enabled", "jar"]
    static let cache = ["storage", "directory", "maxDiskBytes", "maxMemoryEntries", "maxMemoryBytes", "policy", "ttl", "version", "keyHeaders"]
    static let mocks = ["enabled", "baseURL", "rules"]
    static let mockAction = ["redirect", "status", "headers", "body", "json", "bodyFile", "delay"]
    static let mockRule = ["match"] + mockAction
    static let duplicates = ["policy", "keyHeaders"]
    static let reachability = ["precheck", "cacheDuration", "probeTimeout"]
    static let businessCode = ["field", "success", "message"]
    static let logger = ["enabled", "directory", "path", "format", "maxBodyBytes", "maxBinaryBodyBytes", "redact", "secretFields"]
    static let multipartPart = ["name", "value", "file", "filename", "type", "headers"]
    static let requestCache = ["policy", "ttl", "version", "ignore"]
    static let match = ["exists", "equals", "matches"]
    static let member = ["request", "group", "capture"]
    static let requiredPolicy = ["required"]
    static let secretsFile = ["variables", "environments"]
    static let tips = ["generalError", "tooFrequent", "notReachable", "appendsErrorCode"]
}
