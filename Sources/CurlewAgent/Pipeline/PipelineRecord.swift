/// What the agent's middle layer did to one exchange: cache, mock, attempts, signer, filters,
/// plugins, duplicate handling, reachability and validation. Nil in a debug message when no
/// middle-layer feature was in play, so a plain request carries nothing extra.
public struct PipelineRecord: Sendable, Equatable, Codable {
    /// Where the answer came from when it was not the network.
    public enum Source: String, Sendable, Equatable, Codable {
        case network
        /// A cached response; nothing was sent.
        case cache
        /// A mock fixture; nothing was sent.
        case fixture
    }

    /// The cache's part in this exchange.
    public enum CacheOutcome: String, Sendable, Equatable, Codable {
        /// No usable entry; the network answered.
        case miss
        /// A fresh entry answered; the network was not asked.
        case freshHit
        /// An expired or other-version entry existed and was not used.
        case stale
        /// The cached answer delivered first under `cacheThenNetwork`.
        case provisionalHit
        /// The server answered 304 to a conditional request; the cached body was used.
        case revalidated
        /// The response was stored.
        case stored
        /// The response said `Cache-Control: no-store`, so it was not stored.
        case notStored
        /// The request asked to bypass the cache.
        case ignored
        /// No store kept the response (the disk store is off, or the entry exceeds its bound).
        case storeFailed
        /// An unsafe method succeeded: the URL's GET and HEAD entries were removed.
        case invalidated
    }

    /// One try at the network, as the last exchange of a request reports them all.
    public struct Attempt: Sendable, Equatable, Codable {
        public var number: Int
        /// The exchange id of this attempt.
        public var requestID: UInt64
        /// The HTTP status, when a response arrived.
        public var status: Int?
        /// The error kind, when it failed.
        public var error: String?
        /// Milliseconds waited before the next attempt; nil for the last one.
        public var delayBeforeNextMilliseconds: Int64?
        /// Why the agent retried, or why it stopped.
        public var decision: String

        public init(number: Int, requestID: UInt64, status: Int?, error: String?, delayBeforeNextMilliseconds: Int64?, decision: String) {
            self.number = number
            self.requestID = requestID
            self.status = status
            self.error = error
            self.delayBeforeNextMilliseconds = delayBeforeNextMilliseconds
            self.decision = decision
        }
    }

    public var source: Source
    public var cache: [CacheOutcome]
    /// The cache key's digest, for matching entries on disk.
    public var cacheKey: String?
    /// "redirected to URL" or "fixture for RULE".
    public var mock: String?
    /// This exchange's attempt number, from 1.
    public var attempt: Int
    /// Every attempt so far, this one last.
    public var attempts: [Attempt]
    public var signer: String?
    public var filters: [String]
    public var plugins: [String]
    /// "rejected: same as #ID in flight" or "coalesced with #ID".
    public var duplicate: String?
    /// The reachability verdict for the host when the pre-check ran, or why it did not.
    public var reachability: String?
    /// Validators and the reformer that ran, in order.
    public var checks: [String]
    /// Things the plugins did (replay after a refreshed token, a changed result).
    public var notes: [String]

    public init(source: Source = .network, cache: [CacheOutcome] = [], cacheKey: String? = nil, mock: String? = nil, attempt: Int = 1,
                attempts: [Attempt] = [], signer: String? = nil, filters: [String] = [], plugins: [String] = [], duplicate: String? = nil,
                reachability: String? = nil, checks: [String] = [], notes: [String] = []) {
        self.source = source
        self.cache = cache
        self.cacheKey = cacheKey
        self.mock = mock
        self.attempt = attempt
        self.attempts = attempts
        self.signer = signer
        self.filters = filters
        self.plugins = plugins
        self.duplicate = duplicate
        self.reachability = reachability
        self.checks = checks
        self.notes = notes
    }

    /// True when no network exchange happened (a cache hit, a fixture, a rejected duplicate).
    public var hasNoNetworkTiming: Bool { source != .network }

    /// The record as "label  value" lines with the values aligned: the one rendering `curlew
    /// send`, the interface and the log browser share. Empty when there is nothing to say.
    public var lines: [String] {
        let rows = rows
        let width = rows.map(\.label.count).max() ?? 0
        return rows.map { $0.label.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + $0.value }
    }

    private var rows: [(label: String, value: String)] {
        var lines: [(String, String)] = []
        switch source {
        case .network: break
        case .cache: lines.append(("served", "from the cache, no network timing"))
        case .fixture: lines.append(("served", "from a mock fixture, no network timing"))
        }
        if !cache.isEmpty {
            lines.append(("cache", cache.map(\.description).joined(separator: ", ") + (cacheKey.map { "  (key \($0))" } ?? "")))
        }
        if let mock { lines.append(("mock", mock)) }
        if !filters.isEmpty { lines.append(("filters", filters.joined(separator: ", "))) }
        if let signer { lines.append(("signer", signer)) }
        if !plugins.isEmpty { lines.append(("plugins", plugins.joined(separator: ", "))) }
        if let duplicate { lines.append(("duplicate", duplicate)) }
        if let reachability { lines.append(("reachability", reachability)) }
        for attempt in attempts where attempts.count > 1 || attempt.decision != "succeeded" {
            var outcome = attempt.status.map { "HTTP \($0)" } ?? attempt.error ?? "no answer"
            if let error = attempt.error, attempt.status != nil, error != RequestError.Kind.unacceptableStatus.rawValue { outcome += " (\(error))" }
            let wait = attempt.delayBeforeNextMilliseconds.map { ", next in \($0) ms" } ?? ""
            lines.append(("attempt \(attempt.number)", "#\(attempt.requestID) \(outcome): \(attempt.decision)\(wait)"))
        }
        if !checks.isEmpty { lines.append(("checks", checks.joined(separator: ", "))) }
        for note in notes { lines.append(("note", note)) }
        return lines
    }
}

extension PipelineRecord.CacheOutcome: CustomStringConvertible {
    public var description: String {
        switch self {
        case .miss: "miss"
        case .freshHit: "fresh hit"
        case .stale: "stale entry"
        case .provisionalHit: "cached copy delivered first"
        case .revalidated: "revalidated (304)"
        case .stored: "stored"
        case .notStored: "not stored (no-store)"
        case .ignored: "ignored by request"
        case .storeFailed: "not stored (no store kept it)"
        case .invalidated: "removed this URL's entries"
        }
    }
}
