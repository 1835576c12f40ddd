import ArgumentParser
import CurlewAgent
import CurlewSigning
import Foundation

extension CachePolicy: ExpressibleByArgument {}

/// `curlew send`'s middle-layer options: retry, cache, mocks, signing, reachability pre-check
/// and content-type validation. Each is off unless given.
struct PipelineOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: "Retry this many times after a connection failure, a timeout or a 408/429/500/502/503/504 (GET, HEAD, PUT, DELETE, OPTIONS only).")
    var retry: Int = 0

    @Option(name: .customLong("retry-delay"), parsing: .unconditional, help: "Seconds between retries (default: exponential from 0.2 s with jitter); a Retry-After header wins.")
    var retryDelay: SecondsArgument?

    @Option(help: "Cache responses in this directory (created owner-only) and answer from it.")
    var cache: String?

    @Option(name: .customLong("cache-policy"), help: "With --cache: how the cache answers (default: cacheElseNetwork).")
    var cachePolicy: CachePolicy?

    @Option(name: .customLong("cache-ttl"), parsing: .unconditional, help: "With --cache: seconds an entry stays fresh (default: 60).")
    var cacheTTL: SecondsArgument?

    @Option(help: ArgumentHelp("Mock requests matching a rule: 'GET /users/*=fixture.json' answers from a file without the network; 'GET /users/*=http://127.0.0.1:9000' sends them there instead. Repeatable.", valueName: "RULE=FILE|URL"))
    var mock: [String] = []

    @Option(name: .customLong("sign-hmac"), help: ArgumentHelp("Sign with HMAC-SHA256 under this key id; the secret comes from the CURLEW_HMAC_SECRET environment variable.", valueName: "KEY_ID"))
    var signHMAC: String?

    @Flag(help: "Check that the host is reachable before sending; fail at once when it is not.")
    var precheck = false

    @Flag(name: .customLong("expect-json"), help: "Fail unless the response declares a JSON content type.")
    var expectJSON = false

    func validate() throws {
        guard (0...100).contains(retry) else { throw ValidationError("--retry must be from 0 to 100") }
        if retryDelay != nil, retry == 0 { throw ValidationError("--retry-delay needs --retry N") }
        if cache?.isEmpty == true { throw ValidationError("--cache needs a directory") }
        var isDirectory: ObjCBool = false
        if let cache, FileManager.default.fileExists(atPath: cache, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw ValidationError("--cache \(cache) is not a directory; give a directory (it is created when missing)")
        }
        if cache == nil, cachePolicy != nil || cacheTTL != nil { throw ValidationError("--cache-policy and --cache-ttl need --cache DIR") }
        do {
            _ = try retryDelay?.duration(field: "--retry-delay")
            _ = try cacheTTL?.duration(field: "--cache-ttl")
        } catch {
            throw ValidationError(error.message)
        }
        if let signHMAC {
            guard !signHMAC.isEmpty else { throw ValidationError("--sign-hmac needs a key id") }
            guard !(ProcessInfo.processInfo.environment["CURLEW_HMAC_SECRET"] ?? "").isEmpty else {
                throw ValidationError("--sign-hmac needs the secret in the CURLEW_HMAC_SECRET environment variable")
            }
        }
        _ = try mockSettings()
    }

    /// Puts the chosen features into the agent's config and the request.
    func apply(to config: inout NetworkConfig, request: inout Request) throws {
        if retry > 0 {
            var policy = RetryPolicy(maxRetries: retry)
            if let retryDelay { policy.backoff = .fixed(try retryDelay.duration(field: "--retry-delay")) }
            request.retry = policy
        }
        if let cache {
            config.cache = CacheSettings(storage: .disk, directory: cache, policy: cachePolicy ?? .cacheElseNetwork,
                                         timeToLive: try cacheTTL?.duration(field: "--cache-ttl") ?? .seconds(60))
        }
        config.mocks = try mockSettings()
        if let signHMAC {
            let secret = ProcessInfo.processInfo.environment["CURLEW_HMAC_SECRET"] ?? ""
            let name = "HMAC-SHA256 key \(signHMAC)"
            config.signers[name] = HMACSigner(keyID: signHMAC, secret: Data(secret.utf8))
            request.signer = name
        }
        config.reachability.precheck = precheck
        request.validation.requiresJSONContentType = expectJSON
    }

    private func mockSettings() throws -> MockSettings {
        var settings = MockSettings(enabled: !mock.isEmpty)
        for rule in mock {
            // The first `=`: a pattern has none, while a URL's query or a file name may.
            guard let separator = rule.firstIndex(of: "="), !rule[..<separator].isEmpty, !rule[rule.index(after: separator)...].isEmpty else {
                throw ValidationError("--mock \(rule.debugDescription) must look like 'GET /path/*=fixture.json' or 'GET /path/*=http://host:port'")
            }
            let pattern = String(rule[..<separator]).trimmingCharacters(in: .whitespaces)
            let target = String(rule[rule.index(after: separator)...]).trimmingCharacters(in: .whitespaces)
            try Self.checkPattern(pattern)
            if target.hasPrefix("http://") || target.hasPrefix("https://") {
                guard let components = URLComponents(string: target), let host = components.host, !host.isEmpty,
                      components.query == nil, components.fragment == nil else {
                    throw ValidationError("--mock target \(target.debugDescription) must be a base URL: scheme, host, optional port and path, no query")
                }
                if let existing = settings.mockBaseURL, existing != target {
                    throw ValidationError("--mock rules may redirect to one mock server only (\(existing) and \(target) given)")
                }
                settings.mockBaseURL = target
                settings.rules.append(MockRule(pattern, .redirect))
            } else {
                // A regular file: a named pipe or a device would be read at answer time, or block.
                do { try LocalFile.checkReadable(target, purpose: "--mock fixture") } catch { throw ValidationError(error.message) }
                let type = Self.contentType(ofFile: target)
                settings.rules.append(MockRule(pattern, .fixture(MockFixture(headers: [HeaderField(name: "Content-Type", value: type)], bodyFile: target))))
            }
        }
        return settings
    }

    /// A rule must read `METHOD /path`: a method token or `*`, one space, a path from `/`.
    private static func checkPattern(_ pattern: String) throws {
        let parts = pattern.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1].hasPrefix("/"),
              parts[0] == "*" || (try? HTTPMethod(rawValue: String(parts[0])).validate()) != nil else {
            throw ValidationError("--mock rule \(pattern.debugDescription) must look like 'GET /users/*' (a method or *, one space, a path from /)")
        }
    }

    private static func contentType(ofFile path: String) -> String {
        switch (path as NSString).pathExtension.lowercased() {
        case "json": "application/json"
        case "txt": "text/plain; charset=utf-8"
        case "html", "htm": "text/html; charset=utf-8"
        case "xml": "application/xml"
        default: "application/octet-stream"
        }
    }
}
