import CurlewAgent
import Foundation

/// Where and how the session log is written, from a workspace's `config.logger`.
public struct LoggerSettings: Sendable, Equatable {
    public var enabled = true
    /// The directory new logs go to; a file name is made from the time.
    public var directory: String?
    /// A fixed log file, instead of a new one per run.
    public var path: String?
    public var format: NetworkLoggerConfig.LoggerType = .jsonLines
    public var maxBodyBytes = NetworkLoggerConfig.defaultMaxBodyBytes
    public var maxBinaryBodyBytes = NetworkLoggerConfig.defaultMaxBinaryBodyBytes
    /// Hide secrets (on unless the workspace says `redact: false`).
    public var redacts = true
    /// More parameter and body field names to hide, besides the defaults.
    public var secretFields: [String] = []

    public init() {}
}

/// An HMAC request signer a workspace declares in `config.signers`. The executable registers it
/// (the signer needs cryptography, which the workspace reader does not link).
public struct SignerSettings: Sendable, Equatable {
    public var name: String
    public var keyID: String
    /// The shared secret, templates expanded (normally from the secrets file).
    public var secret: String
}

/// Reads `config:` into the agent's `NetworkConfig`: every field the agent has, by the names the
/// workspace format gives them (docs/workspace.schema.json lists them).
enum ConfigReader {
    static let keys = ["baseURL", "cdnURL", "apiVersion", "headers", "params", "userAgent", "timeout", "connectTimeout",
                       "maxConnectionsPerHost", "maxTotalConnections", "transferThreads", "followRedirects", "maxRedirects", "allowInsecureRedirects",
                       "secretHeaders", "acceptableStatus", "maxResponseBytes", "memoryBodyLimit", "httpVersion", "tls", "cookies",
                       "cache", "mocks", "retry", "duplicates", "reachability", "logger", "businessCode", "signers", "tips"]

    static func read(_ node: NodeReader?, _ context: ReadContext) throws(WorkspaceError) -> (NetworkConfig, LoggerSettings, [SignerSettings]) {
        var config = NetworkConfig()
        var logger = LoggerSettings()
        var signers: [SignerSettings] = []
        guard let node else { return (config, logger, signers) }
        var map = try node.mapping()
        if let value = map.take("baseURL") { config.baseURL = try value.text(context) }
        if let value = map.take("cdnURL") { config.cdnURL = try value.text(context) }
        if let value = map.take("apiVersion") { config.apiVersion = try value.text(context) }
        if let value = map.take("headers") { config.defaultHeaders = HTTPHeaders(try value.textPairs(context).map { HeaderField(name: $0.name, value: $0.value) }) }
        if let value = map.take("params") { config.defaultParams = try parameters(value, context) }
        if let value = map.take("userAgent") { config.userAgent = try value.text(context) }
        if let value = map.take("timeout") { config.requestTimeout = try positive(value.duration(), value) }
        if let value = map.take("connectTimeout") { config.connectTimeout = try positive(value.duration(), value) }
        if let value = map.take("maxConnectionsPerHost") { config.maxConnectionsPerHost = try value.int(in: 1...1000) }
        if let value = map.take("maxTotalConnections") { config.maxTotalConnections = try value.int(in: 0...10_000) }
        if let value = map.take("transferThreads") { config.transferThreads = try value.int(in: 1...16) }
        if let value = map.take("followRedirects") { config.followRedirects = try value.bool() }
        if let value = map.take("maxRedirects") { config.maxRedirects = try value.int(in: 0...100) }
        if let value = map.take("allowInsecureRedirects") { config.allowInsecureRedirects = try value.bool() }
        if let value = map.take("secretHeaders") { config.secretHeaderNames += try value.strings() }
        if let value = map.take("acceptableStatus") { config.acceptableStatusCodes = try statusRange(value) }
        if let value = map.take("maxResponseBytes") { config.maxResponseBytes = try value.byteCount() }
        if let value = map.take("memoryBodyLimit") { config.memoryBodyLimit = try value.byteCount() }
        if let value = map.take("httpVersion") { config.httpVersion = try httpVersion(value) }
        if let value = map.take("tls") { config.tls = try tls(value, context) }
        if let value = map.take("cookies") { config.cookies = try cookies(value, context) }
        if let value = map.take("cache") { config.cache = try cache(value, context) }
        if let value = map.take("mocks") { config.mocks = try mocks(value, context) }
        if let value = map.take("retry") { config.retry = try retry(value) }
        if let value = map.take("duplicates") { config.duplicates = try duplicates(value) }
        if let value = map.take("reachability") { config.reachability = try reachability(value) }
        if let value = map.take("logger") { logger = try loggerSettings(value, context) }
        if let value = map.take("businessCode") { config.businessValidator = try businessCode(value) }
        if let value = map.take("tips") {
            var tips = try value.mapping()
            if let text = tips.take("generalError") { config.tips.generalError = try text.text(context) }
            if let text = tips.take("tooFrequent") { config.tips.tooFrequent = try text.text(context) }
            if let text = tips.take("notReachable") { config.tips.notReachable = try text.text(context) }
            if let flag = tips.take("appendsErrorCode") { config.tips.appendsErrorCode = try flag.bool() }
            try tips.finish(known: WorkspaceKeys.tips)
        }
        if let value = map.take("signers") {
            var signerMap = try value.mapping()
            for name in signerMap.keys {
                var fields = try signerMap.entry(name).mapping()
                let keyID = try fields.require("keyID", "the key's id").text(context)
                let secret = try fields.require("secret", "the shared secret, as {{a secret variable}}").text(context)
                try fields.finish(known: WorkspaceKeys.signer)
                signers.append(SignerSettings(name: name, keyID: keyID, secret: secret))
            }
        }
        try map.finish(known: keys)
        return (config, logger, signers)
    }

    /// Parameters from a mapping; with `asText` (a query's or a form's, which go out as text)
    /// each scalar is its text as written, so `v: 1.10` sends `1.10`, not the number `1.1`.
    static func parameters(_ node: NodeReader, _ context: ReadContext, asText: Bool = false) throws(WorkspaceError) -> Parameters {
        guard case .object(let members) = try node.templatedJSON(context, scalarsAsText: asText) else { throw node.expected("a mapping of parameters") }
        return Parameters(members)
    }

    static func positive(_ duration: Duration, _ node: NodeReader) throws(WorkspaceError) -> Duration {
        guard duration > .zero else { throw node.error("must be more than zero") }
        return duration
    }

    /// `200-299`, `2xx` or a single code.
    static func statusRange(_ node: NodeReader) throws(WorkspaceError) -> Range<Int> {
        let text = try node.scalarText().trimmingCharacters(in: .whitespaces)
        if text.count == 3, text.hasSuffix("xx"), let digit = Int(text.prefix(1)), (1...5).contains(digit) {
            return (digit * 100)..<(digit * 100 + 100)
        }
        let bounds = text.split(separator: "-").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        if bounds.count == 2, (100...599).contains(bounds[0]), (bounds[0]...599).contains(bounds[1]) { return bounds[0]..<(bounds[1] + 1) }
        if bounds.count == 1, !text.contains("-"), (100...599).contains(bounds[0]) { return bounds[0]..<(bounds[0] + 1) }
        throw node.expected("a status range such as 2xx or 200-399")
    }

    static func httpVersion(_ node: NodeReader) throws(WorkspaceError) -> HTTPVersionPreference {
        try node.oneOf(HTTPVersionPreference.allCases.map { ($0.rawValue, $0) })
    }

    static func tls(_ node: NodeReader, _ context: ReadContext) throws(WorkspaceError) -> TLSSettings {
        let overrides = try tlsOverrides(node, context)
        return TLSSettings().applying(overrides)
    }

    static let tlsKeys = ["insecure", "verifyHost", "caFile", "pins", "pinCertificates", "clientCertificate", "clientKey"]

    /// TLS fields, each optional: for the config and for one request's overrides.
    static func tlsOverrides(_ node: NodeReader, _ context: ReadContext) throws(WorkspaceError) -> TLSOverrides {
        var map = try node.mapping()
        var overrides = TLSOverrides()
        if let value = map.take("insecure") { overrides.allowInvalidCertificates = try value.bool() }
        if let value = map.take("verifyHost") { overrides.validatesDomainName = try value.bool() }
        if let value = map.take("caFile") { overrides.certificateAuthorityFile = try value.filePath(context) }
        let pins = try map.take("pins")?.strings()
        var certificates: [String]?
        if let value = map.take("pinCertificates") {
            certificates = []
            for file in try value.listOrOne() { certificates?.append(try file.filePath(context)) }
        }
        switch (pins, certificates) {
        case (let pins?, nil): overrides.pinning = .publicKey(pins)
        case (nil, let files?): overrides.pinning = .certificate(files)
        case (nil, nil): break
        case (.some, .some): throw WorkspaceError(.invalid, at: map.positionOf("pins"), keyPath: node.keyPath, "pins and pinCertificates cannot both be set")
        }
        if let value = map.take("clientCertificate") { overrides.clientCertificate = try value.filePath(context) }
        if let value = map.take("clientKey") { overrides.clientKey = try value.filePath(context) }
        try map.finish(known: tlsKeys)
        return overrides
    }

    static func cookies(_ node: NodeReader, _ context: ReadContext) throws(WorkspaceError) -> CookieSettings {
        if let enabled = try? node.bool() { return CookieSettings(enabled: enabled) }
        var map = try node.mapping()
        var settings = CookieSettings(enabled: true)
        if let value = map.take("enabled") { settings.enabled = try value.bool() }
        if let value = map.take("jar") { settings.jarFile = try value.filePath(context) }
        try map.finish(known: WorkspaceKeys.cookies)
        return settings
    }

    static func cachePolicy(_ node: NodeReader) throws(WorkspaceError) -> CachePolicy {
        try node.oneOf(CachePolicy.allCases.map { ($0.rawValue, $0) })
    }

    static func cache(_ node: NodeReader, _ context: ReadContext) throws(WorkspaceError) -> CacheSettings {
        var map = try node.mapping()
        var settings = CacheSettings()
        if let value = map.take("storage") {
            settings.storage = try value.oneOf([("none", .none), ("memory", .memory), ("disk", .disk), ("memoryAndDisk", .memoryAndDisk)])
        }
        if let value = map.take("directory") { settings.directory = try value.filePath(context) }
        if let value = map.take("maxDiskBytes") { settings.maxDiskBytes = Int64(try value.byteCount()) }
        if let value = map.take("maxMemoryEntries") { settings.maxMemoryEntries = try value.int(in: 0...1_000_000) }
        if let value = map.take("maxMemoryBytes") { settings.maxMemoryBytes = try value.byteCount() }
        if let value = map.take("policy") { settings.policy = try cachePolicy(value) }
        if let value = map.take("ttl") { settings.timeToLive = try value.duration() }
        if let value = map.take("version") { settings.version = try value.text(context) }
        if let value = map.take("keyHeaders") { settings.keyHeaders = try value.strings() }
        try map.finish(known: WorkspaceKeys.cache)
        return settings
    }

    static func mocks(_ node: NodeReader, _ context: ReadContext) throws(WorkspaceError) -> MockSettings {
        var map = try node.mapping()
        var settings = MockSettings(enabled: true)
        if let value = map.take("enabled") { settings.enabled = try value.bool() }
        if let value = map.take("baseURL") { settings.mockBaseURL = try value.text(context) }
        if let value = map.take("rules") {
            for rule in try value.list() {
                var ruleMap = try rule.mapping()
                let pattern = try ruleMap.require("match", "a rule such as \"GET /users/*\"").string()
                let action = try mockAction(&ruleMap, rule, context)
                try ruleMap.finish(known: WorkspaceKeys.mockRule)
                settings.rules.append(MockRule(pattern, action))
            }
        }
        try map.finish(known: WorkspaceKeys.mocks)
        return settings
    }


    /// `redirect: true`, or a fixture: status, headers, body (or json, or bodyFile) and delay.
    static func mockAction(_ map: inout MappingReader, _ node: NodeReader, _ context: ReadContext) throws(WorkspaceError) -> MockAction {
        if let value = map.take("redirect"), try value.bool() { return .redirect }
        var fixture = MockFixture()
        if let value = map.take("status") { fixture.status = try value.int(in: 100...599) }
        if let value = map.take("headers") { fixture.headers = try value.textPairs(context).map { HeaderField(name: $0.name, value: $0.value) } }
        if let value = map.take("body") { fixture.body = Data(try value.text(context).utf8) }
        if let value = map.take("json") {
            fixture.body = Data(try value.templatedJSON(context).serialized().utf8)
            if !fixture.headers.contains(where: { $0.name.lowercased() == "content-type" }) {
                fixture.headers.append(HeaderField(name: "Content-Type", value: "application/json"))
            }
        }
        if let value = map.take("bodyFile") { fixture.bodyFile = try value.filePath(context) }
        if let value = map.take("delay") { fixture.delay = try value.duration() }
        return .fixture(fixture)
    }

    static let retryKeys = ["maxRetries", "backoff", "delay", "initial", "maximum", "jitter", "errors", "statuses", "honorRetryAfter", "maxRetryAfter", "nonIdempotent"]

    /// `retry: 3` (count, default backoff) or a mapping.
    static func retry(_ node: NodeReader) throws(WorkspaceError) -> RetryPolicy? {
        if let count = try? node.int(in: 0...20) { return count == 0 ? nil : RetryPolicy(maxRetries: count) }
        var map = try node.mapping()
        var policy = RetryPolicy()
        if let value = map.take("maxRetries") { policy.maxRetries = try value.int(in: 0...20) }
        let backoffKind = try map.take("backoff")?.oneOf([("fixed", "fixed"), ("exponential", "exponential")]) ?? "exponential"
        if backoffKind == "fixed" {
            policy.backoff = .fixed(try map.take("delay")?.duration() ?? .seconds(1))
        } else {
            let initial = try map.take("initial")?.duration() ?? .milliseconds(200)
            let maximum = try map.take("maximum")?.duration() ?? .seconds(5)
            let jitter = try map.take("jitter")?.double(in: 0...1) ?? 0.5
            policy.backoff = .exponential(initial: initial, maximum: maximum, jitter: jitter)
        }
        if let value = map.take("errors") {
            var kinds: Set<RequestError.Kind> = []
            for name in try value.listOrOne() {
                let text = try name.string()
                guard let kind = RequestError.Kind(rawValue: text) else {
                    throw name.error("\"\(text)\" is not an error kind" + Suggestion.hint(for: text, among: RequestError.Kind.allCases.map(\.rawValue)))
                }
                kinds.insert(kind)
            }
            policy.retryableErrors = kinds
        }
        if let value = map.take("statuses") {
            var statuses: Set<Int> = []
            for status in try value.listOrOne() { statuses.insert(try status.int(in: 100...599)) }
            policy.retryableStatuses = statuses
        }
        if let value = map.take("honorRetryAfter") { policy.honorsRetryAfter = try value.bool() }
        if let value = map.take("maxRetryAfter") { policy.maxRetryAfter = try value.duration() }
        if let value = map.take("nonIdempotent") { policy.retriesNonIdempotent = try value.bool() }
        try map.finish(known: retryKeys)
        return policy.maxRetries == 0 ? nil : policy
    }

    static func duplicatePolicy(_ node: NodeReader) throws(WorkspaceError) -> DuplicatePolicy {
        try node.oneOf([("allow", .allow), ("reject", .reject), ("coalesce", .coalesce)])
    }

    static func duplicates(_ node: NodeReader) throws(WorkspaceError) -> DuplicateSettings {
        if case .scalar = node.node { return DuplicateSettings(policy: try duplicatePolicy(node)) }
        var map = try node.mapping()
        var settings = DuplicateSettings()
        if let value = map.take("policy") { settings.policy = try duplicatePolicy(value) }
        if let value = map.take("keyHeaders") { settings.keyHeaders = try value.strings() }
        try map.finish(known: WorkspaceKeys.duplicates)
        return settings
    }

    static func reachability(_ node: NodeReader) throws(WorkspaceError) -> ReachabilitySettings {
        var map = try node.mapping()
        var settings = ReachabilitySettings()
        if let value = map.take("precheck") { settings.precheck = try value.bool() }
        if let value = map.take("cacheDuration") { settings.cacheDuration = try value.duration() }
        if let value = map.take("probeTimeout") { settings.probeTimeout = try positive(value.duration(), value) }
        try map.finish(known: WorkspaceKeys.reachability)
        return settings
    }

    /// `{field: code, success: [0, 200], message: message}`: the seeds' business-code check.
    static func businessCode(_ node: NodeReader) throws(WorkspaceError) -> BusinessValidator {
        var map = try node.mapping()
        let field = try map.take("field")?.string() ?? "code"
        var success: Set<Int> = [0, 200]
        if let value = map.take("success") {
            success = []
            for code in try value.listOrOne() { success.insert(try code.int()) }
        }
        let message = try map.take("message")?.string() ?? "message"
        try map.finish(known: WorkspaceKeys.businessCode)
        return .codeField(field, successCodes: success, messageField: message)
    }

    static func loggerSettings(_ node: NodeReader, _ context: ReadContext) throws(WorkspaceError) -> LoggerSettings {
        var settings = LoggerSettings()
        if let enabled = try? node.bool() {
            settings.enabled = enabled
            return settings
        }
        var map = try node.mapping()
        if let value = map.take("enabled") { settings.enabled = try value.bool() }
        if let value = map.take("directory") { settings.directory = try value.filePath(context) }
        if let value = map.take("path") { settings.path = try value.filePath(context) }
        if let value = map.take("format") { settings.format = try value.oneOf([("jsonLines", .jsonLines), ("json", .json), ("plist", .plist)]) }
        if let value = map.take("maxBodyBytes") { settings.maxBodyBytes = try value.byteCount() }
        if let value = map.take("maxBinaryBodyBytes") { settings.maxBinaryBodyBytes = try value.byteCount() }
        if let value = map.take("redact") { settings.redacts = try value.bool() }
        if let value = map.take("secretFields") { settings.secretFields = try value.strings() }
        try map.finish(known: WorkspaceKeys.logger)
        return settings
    }
}
