import CurlewTransport
import Foundation

/// The network agent: starts requests, cancels them, and reports everything to its observers.
///
/// Results arrive three ways: closures and a delegate (`start(_:callbacks:)`), or `async`
/// (`send(_:)`). One agent owns its transfer threads (one unless `NetworkConfig.transferThreads`
/// asks for more) and their connection pools; create one per configuration and keep it for the
/// life of the program.
public final class Agent: Sendable {
    public let config: NetworkConfig
    private let core: AgentCore
    private let engine: TransferEngine
    private let composer: RequestComposer
    private let ids = IDSequence()
    let gate = PriorityGate()
    let groups = GroupRegistry()
    private let services: PipelineServices
    /// Requests going through the middle layer, by handle id, while they run.
    private let runs = PipelineRuns()
    /// Reachability of hosts: status, probes and listeners.
    public let reachability: Reachability

    public init(config: NetworkConfig = NetworkConfig()) {
        self.config = config
        let engineConfiguration = TransferEngine.Configuration(
            maxConnectionsPerHost: config.maxConnectionsPerHost,
            maxTotalConnections: config.maxTotalConnections,
            // Every exchange that uses cookies runs on the thread that owns the jar, so with cookies
            // on for the whole agent one thread, with the whole connection limits, does it all.
            transferThreads: config.cookies.enabled ? 1 : config.transferThreads,
            proxies: config.proxies
        )
        let callbackRunner = CallbackRunner(config: config, transferThreads: engineConfiguration.threadCount)
        let core = AgentCore(config: config, callbackRunner: callbackRunner, transferThreads: engineConfiguration.threadCount)
        self.core = core
        self.composer = RequestComposer(config: config)
        self.engine = TransferEngine(
            configuration: engineConfiguration,
            jobs: callbackRunner.transferThread,
            eventSink: { events, lane in core.handle(events, lane: lane) }
        )
        let ids = self.ids
        let engine = self.engine
        self.reachability = Reachability(settings: config.reachability, defaultDomain: config.baseURL, callbackRunner: callbackRunner,
                                         route: { url in engine.proxyRoute(for: url) })
        self.services = PipelineServices(config: config, core: core, engine: engine, composer: composer, reachability: reachability,
                                         makeID: { ids.make() })
        if config.cookies.enabled, let jar = config.cookies.jarFile, FileManager.default.fileExists(atPath: jar),
           let lines = try? CookieJarFile.lines(at: jar) {
            engine.queueCookies(lines)
        }
    }

    // MARK: Cookies

    /// The cookies in the agent's jar, expired ones left out.
    public func cookies() async -> [Cookie] {
        await engine.cookies()
    }

    /// Empties the jar (the jar file is left as it is until `saveCookies`).
    public func clearCookies() async {
        await engine.removeAllCookies()
    }

    /// Adds the cookies of a Netscape-format jar file (the config's `jarFile` when nil).
    public func loadCookies(from path: String? = nil) async throws(RequestError) {
        guard let path = path ?? config.cookies.jarFile else { return }
        let lines = try CookieJarFile.lines(at: path)
        await engine.addCookies(lines)
    }

    /// Loads the config's jar file again, when cookies are on and a file (or a link) is there, in
    /// place of what the jar holds, and says why it cannot be read: the load when the agent
    /// starts passes over such a file in silence. A file that is not a jar, and a symbolic link,
    /// are refused, so that `saveCookies` never writes over them; the jar is left as it was then.
    /// Nothing is done without cookies, a jar file or a file. For front ends, before the first
    /// request.
    public func reloadJarFile() async throws(RequestError) {
        var info = stat()
        guard config.cookies.enabled, let path = config.cookies.jarFile, lstat(path, &info) == 0 else { return }
        let lines = try CookieJarFile.checkedLines(at: path)
        await clearCookies()
        await engine.addCookies(lines)
    }

    /// Throws when the config's jar file could not be saved (`LocalFile.writeProblem`: a path that
    /// names a directory, a device, a missing or read-only directory): for a front end that sends
    /// requests and then saves, so that it can say so before it sends anything. Nothing is
    /// checked without cookies or a jar file.
    public func checkJarFileCanBeSaved() throws(RequestError) {
        guard config.cookies.enabled, let path = config.cookies.jarFile else { return }
        try CookieJarFile.checkWritable(path)
    }

    /// Writes the jar to a Netscape-format file, owner-only (the config's `jarFile` when nil).
    public func saveCookies(to path: String? = nil) async throws(RequestError) {
        guard let path = path ?? config.cookies.jarFile else {
            throw RequestError(.localFile, "no cookie jar file: give a path or set NetworkConfig.cookies.jarFile")
        }
        try CookieJarFile.write(await engine.cookies(), to: path)
    }

    /// The response cache, when the config sets up a store.
    public var cache: ResponseCache? { services.cache }

    deinit {
        engine.shutdown()
    }

    /// The libcurl build underneath, for logs and bug reports.
    public static var libcurlVersion: String {
        TransferEngine.libcurlVersion
    }

    // MARK: Observers

    public func addObserver(_ observer: any NetworkObserver) {
        core.observers.add(observer)
    }

    public func removeObserver(_ observer: any NetworkObserver) {
        core.observers.remove(observer)
    }

    /// Events queued for `observer` and not yet delivered.
    public func observerBacklog(of observer: any NetworkObserver) -> Int {
        core.observers.backlog(of: observer)
    }

    /// Returns once every observer has received every event published before the call.
    public func waitForObservers() async {
        await core.observers.drain()
    }

    // MARK: Requests

    /// Starts a request. Its callbacks run where the config's `callbackDelivery` says; exactly one of
    /// `success` and `failure` is called, also when the request is refused before sending.
    @discardableResult
    public func start(_ request: Request, callbacks: consuming RequestCallbacks = RequestCallbacks()) -> RequestHandle {
        start(request, callbacks: callbacks, placement: nil, passesGate: false)
    }

    /// Starts a request with a single completion closure.
    @discardableResult
    public func start(_ request: Request, completion: @escaping @Sendable (Result<Response, RequestFailure>) -> Void) -> RequestHandle {
        start(request, callbacks: RequestCallbacks(
            success: { completion(.success($0)) },
            failure: { completion(.failure($0)) }
        ))
    }

    /// A fresh id for a request or group; one sequence for both, so the gate can tell them apart.
    func makeID() -> UInt64 {
        ids.make()
    }

    /// `refusal`: the request could not be made (a chain step whose captured values do not fill
    /// it); it ends with that error as any request refused before sending does, with its debug
    /// message showing it as typed, so observers and the session log see it too.
    func start(_ request: Request, callbacks: consuming RequestCallbacks, placement: RequestPlacement?, passesGate: Bool,
               opensGate: Bool = false, refusal: RequestError? = nil) -> RequestHandle {
        let id = makeID()
        // With callbacks on the transfer threads, a group's members run on the group's thread, so
        // its callbacks and theirs keep one order; on the callback queue, where the order holds
        // anyway, each goes where there is most room (pinned, they would share one thread's part
        // of the connection limits while another thread's sat idle). A request that uses cookies
        // runs on the cookie thread wherever it belongs.
        let pinned = config.callbackDelivery == .transferThread ? placement?.lane : nil
        let lane = engine.lane(forExchangeUsingCookies: composer.usesCookies(request), preferred: pinned)
        let handle = RequestHandle(id: id, name: request.name, lane: lane)
        // As typed, for a request that waits or is refused, and shown only through `shown`, which
        // hides its passwords; one that goes shows what it composed.
        let info = RequestInfo(
            id: id, name: request.name, method: request.method.rawValue,
            url: request.customURL ?? request.path, groupID: placement?.group.id, step: placement?.index, startedAt: Date()
        )
        if let refusal {
            core.reject(handle: handle, info: shown(info, of: request), error: refusal, callbacks: callbacks)
            return handle
        }
        let admitted = gate.admit(id: id, opensGate: opensGate, passes: passesGate) {
            // Copied only for a request that waits: one that goes hands its callbacks on whole.
            let waiting = copy callbacks
            return PriorityGate.Waiter(
                id: id, opensGate: opensGate,
                release: { [self] in launch(request, handle: handle, info: info, callbacks: waiting, placement: placement) },
                cancel: { [self] in
                    core.reject(handle: handle, info: shown(info, of: request),
                                error: RequestError(.cancelled, "cancelled while waiting for a priority-first request"), callbacks: waiting)
                }
            )
        }
        if admitted {
            launch(request, handle: handle, info: info, callbacks: consume callbacks, placement: placement)
        } else {
            core.announceWaiting(handle: handle, info: shown(info, of: request), placement: placement)
        }
        return handle
    }

    /// `info` of a request that has not composed (it waits, was refused, or runs the pipeline),
    /// its typed URL hiding its own password and the credentials of the `Authorization` fields it
    /// would send, its own and the config's default ones (`RequestComposer.hidingPasswords`).
    private func shown(_ info: RequestInfo, of request: Request) -> RequestInfo {
        var info = info
        info.url = composer.hidingPasswords(in: info.url, of: request)
        return info
    }

    private func launch(_ request: Request, handle: RequestHandle, info: consuming RequestInfo, callbacks: consuming RequestCallbacks, placement: RequestPlacement?) {
        if services.uses(request) {
            let id = handle.id
            let run = PipelineRun(services: services, handle: handle, info: shown(info, of: request), request: request, callbacks: callbacks, placement: placement,
                                  onEnd: { [runs] in runs.remove(id) })
            runs.add(run)
            run.start()
            return
        }
        let observed = !core.observers.isEmpty
        // Only debug messages show the request as composed and as sent, its timings and its
        // connection; without a reader, none of them is made.
        let described = callbacks.debug != nil || observed
        var transfer: TransferRequest
        let description: RequestComposer.Description?
        do {
            (transfer, description) = try composer.composition(of: request, describing: described)
        } catch {
            core.reject(handle: handle, info: shown(info, of: request), error: error, callbacks: callbacks)
            return
        }
        transfer.reportsProgress = callbacks.progress != nil || callbacks.delegate != nil || observed
        transfer.capturesWire = described
        transfer.measuresExchange = described
        let composed = description?.described(request, transfer: transfer)
        info.url = composed.map { RedactionPolicy.hidingPasswords(in: $0.url, sentWith: $0.headers) } ?? composer.hidingPasswords(in: transfer.url, of: request)
        let id = info.id
        core.register(AgentCore.ActiveRequest(handle: handle, info: info, request: request, composed: composed, callbacks: callbacks, placement: placement,
                                              observed: observed),
                      lane: handle.lane)
        engine.submit(consume transfer, id: id, lane: handle.lane)
    }

    /// Runs `job` where the agent runs callbacks, after those handed over before it for the same
    /// transfer thread `lane`.
    func runCallback(lane: Int, _ job: @escaping @Sendable () -> Void) {
        core.callbackRunner.run(job, lane: lane)
    }

    /// The transfer thread a new group goes to: see `TransferEngine.laneForNewExchange`.
    func laneForNewWork() -> Int {
        engine.laneForNewExchange()
    }

    func publish(_ event: GroupEvent) {
        core.publish([.group(event)])
    }

    /// Sends a request and returns its response. Throws `RequestFailure`. Cancelling the calling
    /// task cancels the request, wherever it is.
    public func send(_ request: Request) async throws -> Response {
        let slot = CancellationSlot<RequestHandle>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Response, any Error>) in
                let handle = start(request, callbacks: RequestCallbacks(
                    success: { continuation.resume(returning: $0) },
                    failure: { continuation.resume(throwing: $0) }
                ))
                if slot.store(handle) { cancel(handle) }
            }
        } onCancel: {
            if let handle = slot.markCancelled() { cancel(handle) }
        }
    }

    /// Cancels a request: dropped if not yet on the network, aborted at once if in flight.
    /// Its failure callback reports `cancelled`. A finished request is left alone.
    public func cancel(_ handle: RequestHandle) {
        if let waiter = gate.withdraw(handle.id) {
            waiter.cancel()
        } else if let run = runs.run(handle.id) {
            run.cancel()
        } else {
            engine.cancel(id: handle.id, lane: handle.lane)
        }
    }

    /// Cancels a request as `cancel(_:)` does, its error saying `reason` instead of "stopped by
    /// the caller" (a group stopping a member because another failed).
    func cancel(_ handle: RequestHandle, because reason: String) {
        handle.noteCancelReason(reason)
        cancel(handle)
    }

    /// Cancels every group and request not yet finished, including those waiting at a gate.
    public func cancelAll() {
        for runner in groups.all where runner.info.parentID == nil { runner.cancel() }
        for waiter in gate.withdrawAll() { waiter.cancel() }
        for run in runs.all { run.cancel() }
        for (id, lane) in core.activeExchanges { engine.cancel(id: id, lane: lane) }
    }

    /// The user-facing text for an error, from the config's tips.
    public func tip(for error: RequestError) -> String {
        core.tip(for: error)
    }

    /// Cancels everything and stops the transfer threads. Requests started afterwards fail as cancelled.
    public func shutdown() {
        engine.shutdown()
    }

    /// Cancels everything, waits up to `timeout` for what ran to end (what ends later, such as a
    /// retry's backoff past it, may go unheard), stops the transfer thread, and returns once
    /// observers have heard every end it handed over: for an application about to close its
    /// session log and exit, whose cancelled requests must still be logged.
    public func cancelAllAndStop(waitingAtMost timeout: Duration = .seconds(2)) async {
        let deadline = ContinuousClock.now + timeout
        cancelAll()
        while !isIdle, ContinuousClock.now < deadline, !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(5))
        }
        // The thread's last turn hands over the ends of the transfers it cancels on the way out.
        // Waited for on a thread of its own: the wait blocks, and the concurrency pool is small.
        let engine = engine
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                engine.shutdown()
                continuation.resume()
            }
        }
        await waitForObservers()
    }

    /// No request in the transport, in the middle layer or in a running group.
    private var isIdle: Bool {
        core.activeExchanges.isEmpty && runs.all.isEmpty && groups.all.isEmpty
    }
}
