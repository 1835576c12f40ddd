import Foundation

/// How one request uses the cache: its key, policy, lifetime and version, resolved from the
/// request's options over the config's.
struct CachePlan {
    let key: RequestKey
    let policy: CachePolicy
    let timeToLive: Duration
    let version: String
    let ignored: Bool

    /// Nil when the request does not use the cache at all.
    init?(request: Request, composed: ComposedRequest, body: Data?, settings: CacheSettings, cacheExists: Bool) {
        let options = request.cache
        let policy = options?.policy ?? settings.policy
        guard cacheExists, policy != .networkOnly else { return nil }
        self.policy = policy
        self.timeToLive = options?.timeToLive ?? settings.timeToLive
        self.version = options?.version ?? settings.version
        self.ignored = options?.ignoreCache ?? false
        self.key = RequestKey(method: composed.method, url: composed.url, headers: composed.headers, body: body,
                              keyHeaders: settings.keyHeaders, isVolatileParam: settings.isVolatileParam)
    }

    /// The entry to store for a response, or nil when HTTP forbids storing it (`no-store`) or it
    /// is not a success.
    func entry(for response: Response, now: Date = Date()) -> CacheEntry? {
        guard (200..<300).contains(response.statusCode) else { return nil }
        let directives = (response.headers["Cache-Control"] ?? "").lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard !directives.contains("no-store") else { return nil }
        let metadata = CacheEntry.Metadata(
            format: CacheEntry.format, key: key.text, version: version, storedAt: now, expiresAt: now.addingTimeInterval(timeToLive.seconds),
            statusCode: response.statusCode, statusLine: response.statusLine, httpVersion: response.httpVersion,
            headers: response.headers.fields, url: response.url, bodySize: response.body.count, bodyDigest: Fingerprint.hex(of: response.body)
        )
        return CacheEntry(metadata: metadata, body: response.body)
    }

    /// `If-None-Match` and `If-Modified-Since` from a stored entry's validators.
    static func conditionalHeaders(for entry: CacheEntry) -> [HeaderField] {
        var headers: [HeaderField] = []
        if let etag = entry.metadata.etag { headers.append(HeaderField(name: "If-None-Match", value: etag)) }
        if let lastModified = entry.metadata.lastModified { headers.append(HeaderField(name: "If-Modified-Since", value: lastModified)) }
        return headers
    }
}
