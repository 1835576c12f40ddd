import CurlewTransport
import Foundation

/// How one request uses the cache: its key, policy, lifetime and version, resolved from the
/// request's options over the config's. Only GET and HEAD are cached: answering another method
/// from the cache would keep it from reaching the server.
struct CachePlan: Sendable {
    let key: RequestKey
    let policy: CachePolicy
    let timeToLive: Duration
    let version: String
    let ignored: Bool
    /// The request's `Authorization` and `Proxy-Authorization` fields, whose `Basic` password a
    /// stored URL must not show.
    let authorization: [HeaderField]

    /// Nil when the request does not use the cache at all.
    init?(request: Request, method: String, url: String, headers: [HeaderField], body: Data?, settings: CacheSettings,
          credentialHeaders: [String]) {
        let options = request.cache
        let policy = options?.policy ?? settings.policy
        guard policy != .networkOnly, Self.isCacheable(method) else { return nil }
        self.policy = policy
        self.timeToLive = options?.timeToLive ?? settings.timeToLive
        self.version = options?.version ?? settings.version
        self.ignored = options?.ignoreCache ?? false
        self.authorization = headers.filter { ASCII.equalsIgnoringCase($0.name, "authorization") || ASCII.equalsIgnoringCase($0.name, "proxy-authorization") }
        self.key = RequestKey(method: method, url: url, headers: headers, body: body, keyHeaders: settings.keyHeaders,
                              credentialHeaders: credentialHeaders, isVolatileParam: settings.isVolatileParam)
    }

    static func isCacheable(_ method: String) -> Bool {
        method.uppercased() == "GET" || method.uppercased() == "HEAD"
    }

    /// The keys a successful unsafe request (POST, PUT, DELETE, ...) to `url` makes stale: the
    /// same URL read with GET or HEAD by the same user, with the unsafe request's key headers
    /// (`Accept`, ...) and without them. Entries read with other key headers are not found.
    static func invalidatedKeys(url: String, headers: [HeaderField], settings: CacheSettings, credentialHeaders: [String]) -> [RequestKey] {
        let keyNames = Set(settings.keyHeaders.map { $0.lowercased() })
        let withoutKeyHeaders = headers.filter { !keyNames.contains($0.name.lowercased()) }
        return ["GET", "HEAD"].flatMap { method in
            [headers, withoutKeyHeaders].map {
                RequestKey(method: method, url: url, headers: $0, body: nil, keyHeaders: settings.keyHeaders,
                           credentialHeaders: credentialHeaders, isVolatileParam: settings.isVolatileParam)
            }
        }
    }

    /// Response headers a cache never keeps: they set state for one client at one moment.
    private static let unstoredHeaders: Set<String> = ["set-cookie", "set-cookie2"]

    /// Whether a response header goes into an entry: not one of `unstoredHeaders`, and one that
    /// could be sent, which every stored entry must satisfy to be read back
    /// (`CacheEntry.Metadata.isPlausible`).
    private static func isStored(_ field: HeaderField) -> Bool {
        !unstoredHeaders.contains(field.name.lowercased()) && canBeSent(field)
    }

    /// Whether a field could travel as a header: a token name, no control byte but tab.
    private static func canBeSent(_ field: HeaderField) -> Bool {
        (try? HTTPHeaders([field]).validateSyntax()) != nil
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
            headers: response.headers.fields.filter(Self.isStored),
            // As a log records it, so a value hidden for what it holds (`?a=1%20token=…`) is too.
            url: RedactionPolicy().redactingURL(RequestKey.hidingSecretParameters(in: RedactionPolicy.hidingPasswords(in: response.url, sentWith: authorization)) { _ in
                RedactionPolicy.marker
            }),
            bodySize: response.body.count, bodyDigest: SHA256Digest.hex(of: response.body)
        )
        return CacheEntry(metadata: metadata, body: response.body)
    }

    /// `If-None-Match` and `If-Modified-Since` from a stored entry's validators; a validator that
    /// could not travel as a header (a control byte) is left out.
    static func conditionalHeaders(for entry: CacheEntry) -> [HeaderField] {
        var headers: [HeaderField] = []
        if let etag = entry.metadata.etag { headers.append(HeaderField(name: "If-None-Match", value: etag)) }
        if let lastModified = entry.metadata.lastModified { headers.append(HeaderField(name: "If-Modified-Since", value: lastModified)) }
        return headers.filter(canBeSent)
    }

    /// The stored entry brought up to date by a 304: its headers replaced by the ones the 304
    /// carries (RFC 9111 §4.3.4), body and framing kept.
    static func revalidated(_ entry: CacheEntry, with notModified: [HeaderField]) -> CacheEntry {
        let kept: Set<String> = ["content-length", "transfer-encoding", "content-encoding", "connection"]
        let updates = notModified.filter { !kept.contains($0.name.lowercased()) && isStored($0) }
        var entry = entry
        let updatedNames = Set(updates.map { $0.name.lowercased() })
        entry.metadata.headers = entry.metadata.headers.filter { !updatedNames.contains($0.name.lowercased()) } + updates
        return entry
    }
}
