import CurlewLocking
import CurlewTransport
import Dispatch
import Foundation

/// Whether a host can be reached (HLNetworking, GofNetComponent, LATNetworking).
public enum ReachabilityStatus: String, Sendable, Equatable, Codable {
    case unknown
    case notReachable
    case reachable
}

/// Reachability's global settings (`NetworkConfig.reachability`).
public struct ReachabilitySettings: Sendable, Equatable {
    /// Before sending, check the host: one known unreachable fails fast with `notReachable` and the
    /// config's not-reachable tip instead of waiting for a timeout. Off by default.
    public var precheck: Bool
    /// How long a verdict is trusted before the host is probed again.
    public var cacheDuration: Duration
    /// How long a probe's TCP connect may take.
    public var probeTimeout: Duration

    public init(precheck: Bool = false, cacheDuration: Duration = .seconds(2), probeTimeout: Duration = .seconds(1)) {
        self.precheck = precheck
        self.cacheDuration = cacheDuration
        self.probeTimeout = probeTimeout
    }
}

/// Reachability per host: a name resolution and a TCP connect probe, cached briefly, and
/// listeners that hear when a domain's status changes. A domain a proxy would carry requests to
/// is probed at the proxy, where those requests connect.
public final class Reachability: Sendable {
    /// A registered listener; pass it to `stopListening(_:)`.
    public struct Listener: Sendable, Hashable {
        public let domain: String
        let id: UInt64
    }

    private struct Watch {
        var handlers: [UInt64: @Sendable (ReachabilityStatus) -> Void] = [:]
        var poller: Task<Void, Never>?
        var last: ReachabilityStatus = .unknown
    }

    private struct State {
        var verdicts: [String: (status: ReachabilityStatus, at: ContinuousClock.Instant)] = [:]
        /// Probes under way, by `host:port`: concurrent checks of one host share one probe.
        var probes: [String: OneShot<ReachabilityStatus>] = [:]
        var watches: [String: Watch] = [:]
        var nextID: UInt64 = 1
    }

    let settings: ReachabilitySettings
    private let defaultDomain: String
    private let callbackRunner: CallbackRunner
    /// Where requests to a URL connect first (the agent's transfer engine decides).
    private let route: @Sendable (String) -> ProxyRoute
    private let probeQueue = DispatchQueue(label: "curlew.reachability", attributes: .concurrent)
    private let state = Locked(State())

    init(settings: ReachabilitySettings, defaultDomain: String, callbackRunner: CallbackRunner,
         route: @escaping @Sendable (String) -> ProxyRoute) {
        self.settings = settings
        self.defaultDomain = defaultDomain
        self.callbackRunner = callbackRunner
        self.route = route
    }

    /// The cached verdict for a domain (`host`, `host:port` or a URL); `unknown` when none is fresh.
    public func status(of domain: String) -> ReachabilityStatus {
        guard let target = target(of: domain) else { return .unknown }
        let key = target.key
        return state.withLock { state in
            guard let verdict = state.verdicts[key], verdict.at.duration(to: .now) < settings.cacheDuration else { return .unknown }
            return verdict.status
        }
    }

    /// Probes a domain now (off the caller's thread) and returns the fresh verdict. Checks of one
    /// host at the same time share one probe. Name resolution cannot be interrupted, so a probe
    /// that has not finished a second after its connect timeout answers `unknown` (and is not
    /// recorded); its thread finishes on its own. A domain a proxy would carry requests to is
    /// probed at the proxy; one whose proxy setting names nothing to connect to is not reachable.
    public func check(_ domain: String) async -> ReachabilityStatus {
        guard let target = target(of: domain) else { return .notReachable }
        let key = target.key
        guard let probed = target.probed else {
            record(.notReachable, key: key)
            return .notReachable
        }
        let (slot, starts) = state.withLock { state -> (OneShot<ReachabilityStatus>, Bool) in
            if let running = state.probes[key] { return (running, false) }
            let slot = OneShot<ReachabilityStatus>()
            state.probes[key] = slot
            return (slot, true)
        }
        if starts {
            let timeout = settings.probeTimeout
            probeQueue.async { [self] in
                let status = ReachabilityProbe.probe(host: probed.host, port: probed.port, timeout: timeout)
                record(status, key: key)
                finish(key, slot, status)
            }
            probeQueue.asyncAfter(deadline: .now() + .milliseconds(Int(timeout.seconds * 1000) + 1000)) { [self] in
                finish(key, slot, .unknown)
            }
        }
        return await slot.value()
    }

    private func finish(_ key: String, _ slot: OneShot<ReachabilityStatus>, _ status: ReachabilityStatus) {
        state.withLock { state in
            if state.probes[key] === slot { state.probes.removeValue(forKey: key) }
        }
        slot.fulfil(status)
    }

    /// The cached verdict when fresh, else a probe's.
    func verdict(for url: String) async -> ReachabilityStatus {
        let cached = status(of: url)
        return cached == .unknown ? await check(url) : cached
    }

    /// Calls `handler` where the agent runs callbacks with the domain's status once known and whenever it
    /// changes, probing every `interval`. The domain defaults to the config's base URL's host.
    @discardableResult
    public func listen(domain: String? = nil, every interval: Duration = .seconds(5),
                       handler: @escaping @Sendable (ReachabilityStatus) -> Void) -> Listener {
        let domain = domain ?? defaultDomain
        let pause = max(interval, .milliseconds(100))
        // The poller is created and stored under the same lock that decides whether one is
        // needed, so two listeners never start two, and a stop never misses one.
        let (listener, known) = state.withLock { state -> (Listener, ReachabilityStatus?) in
            let id = state.nextID
            state.nextID += 1
            var watch = state.watches[domain] ?? Watch()
            watch.handlers[id] = handler
            let known: ReachabilityStatus? = watch.poller == nil ? nil : watch.last
            if watch.poller == nil {
                watch.poller = Task { [weak self] in
                    while !Task.isCancelled {
                        guard let self else { return }
                        await self.poll(domain)
                        try? await Task.sleep(for: pause)
                    }
                }
            }
            state.watches[domain] = watch
            return (Listener(domain: domain, id: id), known)
        }
        // A listener joining a watched domain hears the last verdict now; the first hears the first probe's.
        if let known, known != .unknown { callbackRunner.run { handler(known) } }
        return listener
    }

    /// Removes one listener; the domain's probing stops with its last listener.
    public func stopListening(_ listener: Listener) {
        let poller = state.withLock { state -> Task<Void, Never>? in
            state.watches[listener.domain]?.handlers.removeValue(forKey: listener.id)
            guard state.watches[listener.domain]?.handlers.isEmpty == true else { return nil }
            return state.watches.removeValue(forKey: listener.domain)?.poller
        }
        poller?.cancel()
    }

    /// Removes every listener of a domain.
    public func stopListening(domain: String) {
        let poller = state.withLock { $0.watches.removeValue(forKey: domain)?.poller }
        poller?.cancel()
    }

    /// What a finished exchange says about its host: a response means reachable; a failure to
    /// resolve or connect means not.
    func learn(from url: String, reached: Bool?) {
        guard let reached, let (host, port) = Self.endpoint(of: url) else { return }
        record(reached ? .reachable : .notReachable, key: Self.key(host, port))
    }

    private func poll(_ domain: String) async {
        let status = await check(domain)
        let handlers = state.withLock { state -> [@Sendable (ReachabilityStatus) -> Void] in
            guard let watch = state.watches[domain], watch.last != status else { return [] }
            state.watches[domain]?.last = status
            return Array(watch.handlers.values)
        }
        guard !handlers.isEmpty else { return }
        callbackRunner.run { for handler in handlers { handler(status) } }
    }

    private func record(_ status: ReachabilityStatus, key: String) {
        state.withLock { $0.verdicts[key] = (status, .now) }
    }

    /// Where a probe for `domain` connects, and the key its verdict and probe go by: `host:port`
    /// when it goes straight there (as what requests learn is recorded), with the proxy named when
    /// a proxy carries it (a domain's route can differ by scheme); `probed` is nil when its proxy
    /// setting names nothing to connect to.
    private func target(of domain: String) -> (key: String, probed: (host: String, port: Int)?)? {
        guard let (host, port) = Self.endpoint(of: domain) else { return nil }
        switch route(Self.url(of: domain, host: host, port: port)) {
        case .direct: return (Self.key(host, port), (host, port))
        case .proxy(let proxyHost, let proxyPort): return (Self.key(host, port) + " via " + Self.key(proxyHost, proxyPort), (proxyHost, proxyPort))
        case .unusable: return (Self.key(host, port) + " via an unusable proxy", nil)
        }
    }

    /// The key of a verdict about reaching `host` and `port` directly, whether a probe or a
    /// finished request found it.
    private static func key(_ host: String, _ port: Int) -> String {
        "\(host):\(port)"
    }

    /// `domain` as a URL, for choosing its proxy: as it is when it is one, else http, or https
    /// on port 443.
    private static func url(of domain: String, host: String, port: Int) -> String {
        guard !domain.contains("://") else { return domain }
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return (port == 443 ? "https://" : "http://") + bracketed + ":\(port)"
    }

    /// Host and port of `host`, `host:port`, `[v6]:port` or an http(s) URL.
    static func endpoint(of domain: String) -> (host: String, port: Int)? {
        let text = domain.contains("://") ? domain : "http://" + domain
        guard let components = URLComponents(string: text), let host = components.host, !host.isEmpty else { return nil }
        let port = components.port ?? (components.scheme?.lowercased() == "https" ? 443 : 80)
        return (host, port)
    }
}
