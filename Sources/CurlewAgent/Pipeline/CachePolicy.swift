/// How a request uses the response cache.
public enum CachePolicy: String, Sendable, Equatable, Codable, CaseIterable {
    /// Never read the cache; store nothing.
    case networkOnly
    /// A fresh entry answers without touching the network; otherwise the network, then store.
    case cacheElseNetwork
    /// A usable entry is delivered first (to `RequestCallbacks.cached`, marked `.cache`), then the
    /// network's answer as the result.
    case cacheThenNetwork
    /// Ask the server whether the stored entry still holds (`If-None-Match`, `If-Modified-Since`);
    /// a 304 answers with the stored body.
    case revalidate
}

/// Where cached responses live (LATNetworking's cache types).
public enum CacheStorage: String, Sendable, Equatable, Codable {
    case none
    case memory
    case disk
    /// Memory in front of disk: a disk hit is promoted to memory.
    case memoryAndDisk
}

/// The cache's global settings (`NetworkConfig.cache`).
public struct CacheSettings: Sendable {
    public var storage: CacheStorage
    /// Directory of the disk store, created owner-only (0700) when first used. An existing one
    /// must be a real directory of this user that no one else can write (one others can read is
    /// tightened to 0700); otherwise the disk store stays off and the pipeline record says why.
    public var directory: String?
    /// The disk store's bound; least recently used entries go first.
    public var maxDiskBytes: Int64
    public var maxMemoryEntries: Int
    /// The memory store's bound on body bytes; a larger body is not kept in memory.
    public var maxMemoryBytes: Int
    /// The policy of requests that do not name one.
    public var policy: CachePolicy
    /// How long an entry stays fresh (YTKNetwork's `cacheTimeInSeconds`).
    public var timeToLive: Duration
    /// Entries stored under another version are stale (YTKNetwork's `cacheVersion`). Put the app's
    /// version here, and a fingerprint of whatever makes data user-specific (a user id's digest).
    public var version: String
    /// Request headers whose values are part of the key (two users' `Accept-Language` differ).
    public var keyHeaders: [String]
    /// Query or body parameters left out of the key: timestamps, nonces, signatures.
    public var isVolatileParam: @Sendable (String) -> Bool

    public init(storage: CacheStorage = .none, directory: String? = nil, maxDiskBytes: Int64 = 50 << 20, maxMemoryEntries: Int = 256,
                maxMemoryBytes: Int = 32 << 20,
                policy: CachePolicy = .cacheElseNetwork, timeToLive: Duration = .seconds(60), version: String = "",
                keyHeaders: [String] = ["Accept", "Accept-Language"],
                isVolatileParam: @escaping @Sendable (String) -> Bool = { ["_", "timestamp", "nonce", "ts"].contains($0) }) {
        self.storage = storage
        self.directory = directory
        self.maxDiskBytes = maxDiskBytes
        self.maxMemoryEntries = maxMemoryEntries
        self.maxMemoryBytes = maxMemoryBytes
        self.policy = policy
        self.timeToLive = timeToLive
        self.version = version
        self.keyHeaders = keyHeaders
        self.isVolatileParam = isVolatileParam
    }
}

/// A request's own cache choices; nil fields take the config's.
public struct CacheOptions: Sendable, Equatable {
    public var policy: CachePolicy?
    public var timeToLive: Duration?
    public var version: String?
    /// Bypass the cache for this request: neither read nor write.
    public var ignoreCache: Bool

    public init(policy: CachePolicy? = nil, timeToLive: Duration? = nil, version: String? = nil, ignoreCache: Bool = false) {
        self.policy = policy
        self.timeToLive = timeToLive
        self.version = version
        self.ignoreCache = ignoreCache
    }
}
