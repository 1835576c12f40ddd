import CCurl
import Dispatch
import Foundation
import Logging
import Synchronization
import CurlewLocking

/// The libcurl engine. Each of its transfer threads (one unless the configuration asks for more)
/// owns a multi handle and the easy handles of the exchanges it runs; callers talk to them only
/// through `submit`, `cancel` and the cookie calls, which queue a command and wake the thread,
/// and through the `TransferThreadJobs` it was given, which run closures on a chosen thread.
/// The first thread also owns the cookie jar and runs every exchange that uses cookies: libcurl
/// does not support one cookie share used by several threads at once.
///
/// Events go to `eventSink` in batches: on a transfer thread, everything one turn of its loop
/// produced, in order per exchange; on the caller's thread, the end of an exchange cancelled
/// (or shut down) before libcurl took it. Each batch comes with the transfer thread its exchanges
/// were submitted to. With several transfer threads the sink is called from each of them, at the
/// same time, so a receiver can keep its per-exchange state apart by thread and never share a
/// lock between them. The sink must only hand events on (it must not block), since
/// every transfer of that thread waits while it runs. Batching lets the receiver wake its own
/// consumers once per turn instead of once per event.
public final class TransferEngine: Sendable {
    /// Connection limits and transfer threads.
    public struct Configuration: Sendable {
        /// Concurrent connections to one host; further exchanges wait inside libcurl.
        public var maxConnectionsPerHost: Int
        /// Concurrent connections overall; 0 means no limit.
        public var maxTotalConnections: Int
        /// Idle connections kept alive for reuse.
        public var maxIdleConnections: Int
        /// Threads that drive transfers, each with its own connections (1 to 16, and no more than
        /// the connection limits allow: each thread needs one connection of its own). More than
        /// one lets a client that runs many exchanges at once use more than one core. The limits
        /// above are shared out between the threads, so together they allow what they say.
        public var transferThreads: Int
        /// The proxies exchanges go through; by default the ones the environment names when the
        /// configuration is made.
        public var proxies: ProxyEnvironment

        public init(maxConnectionsPerHost: Int = 5, maxTotalConnections: Int = 0, maxIdleConnections: Int = 64, transferThreads: Int = 1,
                    proxies: ProxyEnvironment = .ofProcess()) {
            self.maxConnectionsPerHost = maxConnectionsPerHost
            self.maxTotalConnections = maxTotalConnections
            self.maxIdleConnections = maxIdleConnections
            self.transferThreads = transferThreads
            self.proxies = proxies
        }

        /// The transfer threads an engine of this configuration runs: as asked, within 1 to 16 and
        /// within the connection limits.
        public var threadCount: Int {
            var count = min(max(transferThreads, 1), 16)
            if maxConnectionsPerHost > 0 { count = min(count, maxConnectionsPerHost) }
            if maxTotalConnections > 0 { count = min(count, maxTotalConnections) }
            return count
        }

        /// The limits thread `index` of `threads` applies: each limit shared out so the threads'
        /// parts add up to it, the remainder to the first threads.
        func share(_ index: Int, of threads: Int) -> Configuration {
            func part(_ limit: Int) -> Int {
                guard limit > 0 else { return limit }
                return max(1, limit / threads + (index < limit % threads ? 1 : 0))
            }
            return Configuration(maxConnectionsPerHost: part(maxConnectionsPerHost), maxTotalConnections: part(maxTotalConnections),
                                 maxIdleConnections: part(maxIdleConnections), transferThreads: 1, proxies: proxies)
        }
    }

    /// One per transfer thread.
    private let lanes: [EngineShared]
    private let proxies: ProxyEnvironment
    private let jobs: TransferThreadJobs
    /// Left by each transfer thread as it ends, so every caller of `shutdown` can wait for all.
    private let running = DispatchGroup()

    /// The libcurl version string, e.g. "libcurl/7.88.1 OpenSSL/3.0.17 zlib/1.2.13 nghttp2/1.52.0".
    public static var libcurlVersion: String {
        String(cString: curl_version())
    }

    /// `jobs`, when given, runs closures handed to it on this engine's transfer threads; one
    /// `TransferThreadJobs` serves one engine, made for `configuration.threadCount` threads.
    public init(configuration: Configuration = Configuration(), jobs: TransferThreadJobs? = nil,
                eventSink: @escaping @Sendable (_ events: [TransferEvent], _ lane: Int) -> Void) {
        CurlLibrary.initializeOnce()
        let threads = configuration.threadCount
        let jobs = jobs ?? TransferThreadJobs(fallback: DispatchQueue(label: "curlew.transfer.late"), threads: threads)
        precondition(jobs.lanes.count == threads, "a TransferThreadJobs for \(jobs.lanes.count) transfer threads given to an engine of \(threads)")
        let lanes = (0..<threads).map { index in
            EngineShared(lane: index, configuration: configuration.share(index, of: threads), jobs: jobs,
                         countsInFlight: threads > 1, sink: eventSink)
        }
        self.lanes = lanes
        self.jobs = jobs
        self.proxies = configuration.proxies
        for shared in lanes {
            running.enter()
            let running = running
            let thread = Thread {
                // Named from inside, by the system call: a name given before `start` does not reach
                // the system's thread on Linux, and neither does `Thread.current.name` always.
                curlew_name_current_thread("curlew.transfer")
                TransferLoop(shared: shared).run()
                // Only now, with the loop and the closures its last turn ran released, does the
                // thread stop counting as a transfer thread: a release there that ends the engine's
                // owner calls `shutdown` here, which must not wait for this very thread.
                shared.jobs.leaveTransferThread(lane: shared.lane)
                running.leave()
            }
            thread.start()
        }
    }

    /// Whether an exchange with `url` may go through a proxy (see `ProxyEnvironment.mayUseProxy`).
    /// What is known of reaching the URL's host says nothing then: the proxy is what is reached.
    public func mayUseProxy(for url: String) -> Bool {
        proxies.mayUseProxy(for: url)
    }

    /// Where an exchange with `url` connects first: the proxy that may carry it, or its host.
    public func proxyRoute(for url: String) -> ProxyRoute {
        proxies.route(for: url)
    }

    deinit {
        shutdown()
    }

    /// The transfer thread that owns the cookie jar and runs every exchange that uses cookies.
    public static let cookieLane = 0

    /// The transfer thread a new exchange runs on: the cookie thread for one that uses cookies,
    /// else `preferred` when given, else `laneForNewExchange()`. `submit` places exchanges by this
    /// same rule, so a caller that keeps the answer (to cancel, or to run callbacks beside the
    /// exchange) has the thread the exchange really runs on.
    public func lane(forExchangeUsingCookies usesCookies: Bool, preferred: Int? = nil) -> Int {
        guard lanes.count > 1 else { return 0 }
        if usesCookies { return Self.cookieLane }
        if let preferred, lanes.indices.contains(preferred) { return preferred }
        return laneForNewExchange()
    }

    /// The transfer thread new work that does not use cookies should run on: the calling one when
    /// a transfer thread asks (a callback starting the next request keeps it where it is picked
    /// up in the same turn, with nothing to wake), otherwise the one with the fewest exchanges in
    /// flight.
    public func laneForNewExchange() -> Int {
        guard lanes.count > 1 else { return 0 }
        if let current = jobs.currentLane { return current }
        var chosen = 0
        for index in lanes.indices where lanes[index].inFlight.load(ordering: .relaxed) < lanes[chosen].inFlight.load(ordering: .relaxed) {
            chosen = index
        }
        return chosen
    }

    /// Queues an exchange on the transfer thread `lane(forExchangeUsingCookies:preferred:)` gives
    /// for it, `lane` preferred. Its events arrive at the sink, ending with exactly one `finished`.
    public func submit(_ request: consuming TransferRequest, id: UInt64, lane: Int? = nil) {
        let pending = PendingTransfer(id: id, request: request, submittedAt: DispatchTime.now().uptimeNanoseconds)
        guard lanes.count > 1 else {
            queue(pending, on: lanes[0])
            return
        }
        let shared = lanes[self.lane(forExchangeUsingCookies: pending.lend(\.usesCookies), preferred: lane)]
        shared.inFlight.add(1, ordering: .relaxed)
        queue(pending, on: shared)
    }

    private func queue(_ pending: PendingTransfer, on shared: EngineShared) {
        let (accepted, wasIdle) = shared.post { $0.adds.append(pending) }
        guard accepted else {
            shared.ended()
            shared.deliver([.finished(.endedBeforeStart(id: pending.id))])
            return
        }
        // One wakeup per batch: a non-empty inbox means one is already pending. The transfer
        // thread itself looks at the inbox before it waits.
        if wasIdle { shared.wakeUnlessOnTransferThread() }
    }

    /// Cancels an exchange. One not yet handed to libcurl is dropped here and never touches the
    /// network; one in flight is removed from its multi handle at once, whatever its phase.
    /// Unknown or finished ids are ignored. `lane` is the transfer thread it was submitted to;
    /// without it, with several threads, every thread is asked (each keeps the cancel, bounded,
    /// for an exchange still to come).
    public func cancel(id: UInt64, lane: Int? = nil) {
        if lanes.count == 1 {
            cancel(id, on: lanes[0])
        } else if let lane, lanes.indices.contains(lane) {
            cancel(id, on: lanes[lane])
        } else {
            for shared in lanes { cancel(id, on: shared) }
        }
    }

    private func cancel(_ id: UInt64, on shared: EngineShared) {
        let droppedWhilePending = shared.inbox.withLock { inbox -> Bool in
            if let index = inbox.adds.firstIndex(where: { $0.id == id }) {
                inbox.adds.remove(at: index)
                return true
            }
            inbox.cancels.append(id)
            return false
        }
        if droppedWhilePending {
            shared.ended()
            shared.deliver([.finished(.endedBeforeStart(id: id))])
        } else {
            shared.wakeUnlessOnTransferThread()
        }
    }

    // MARK: Cookies

    // The jar lives on the cookie thread. These queue their work in its inbox ahead of any
    // exchange submitted after them, and the thread does it before starting those exchanges, so
    // they see what it did.

    /// The cookies in the engine's jar (kept by exchanges with `usesCookies`), expired ones left out.
    public func cookies() async -> [Cookie] {
        await onCookieJar { $0?.cookies() ?? [] }
    }

    /// Adds cookies given as Netscape cookie file lines or `Set-Cookie:` lines.
    public func addCookies(_ lines: [String]) async {
        await onCookieJar { $0?.add(lines) }
    }

    /// Adds cookies without waiting for them to be added; exchanges submitted afterwards send them.
    public func queueCookies(_ lines: [String]) {
        queueCookieJob { $0?.add(lines) }
    }

    /// Empties the jar.
    public func removeAllCookies() async {
        await onCookieJar { $0?.removeAll() }
    }

    /// Runs `job` with the jar and returns its answer: on the cookie thread while it runs, on the
    /// caller's thread once it has ended.
    private func onCookieJar<T: Sendable>(_ job: @escaping @Sendable (CookieJar?) -> T) async -> T {
        await withCheckedContinuation { continuation in
            queueCookieJob { continuation.resume(returning: job($0)) }
        }
    }

    private func queueCookieJob(_ job: @escaping @Sendable (CookieJar?) -> Void) {
        let shared = lanes[Self.cookieLane]
        let (queued, wasIdle) = shared.post { $0.cookieJobs.append(job) }
        if !queued {
            shared.runAfterStop(job)
        } else if wasIdle {
            shared.wakeUnlessOnTransferThread()
        }
    }

    /// Cancels everything, stops the transfer threads and waits for them. Safe to call more than
    /// once, from any thread: called on one of the engine's own transfer threads (its owner let go
    /// of the engine in a callback), it returns without waiting, since that thread's loop ends
    /// only when the call returns.
    public func shutdown() {
        for shared in lanes {
            let pending = shared.inbox.withLock { inbox -> [PendingTransfer] in
                defer { inbox.stopping = true; inbox.adds.removeAll() }
                return inbox.stopping ? [] : inbox.adds
            }
            if !pending.isEmpty {
                for _ in pending { shared.ended() }
                shared.deliver(pending.map { .finished(.endedBeforeStart(id: $0.id)) })
            }
            shared.multi.wakeup()
        }
        guard !lanes.contains(where: \.isOnTransferThread) else { return }
        running.wait()
    }
}

/// libcurl's process-wide setup, done once before the first handle exists.
enum CurlLibrary {
    private static let initialized: Bool = {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK
    }()

    static func initializeOnce() {
        _ = initialized
    }
}

/// An exchange's request held by reference: as submitted, until the loop starts it, and then
/// for each hop (a redirect holds its next request in a new one). Passing and reading it never
/// copies the request, whose many references would each be retained and released.
final class PendingTransfer: Sendable {
    let id: UInt64
    let request: TransferRequest
    let submittedAt: UInt64

    init(id: UInt64, request: consuming TransferRequest, submittedAt: UInt64) {
        self.id = id
        self.request = request
        self.submittedAt = submittedAt
    }

    /// Lends the request to `reader` in place (reading `request` from outside copies it first).
    func lend<Result>(_ reader: (TransferRequest) -> Result) -> Result {
        reader(request)
    }
}

struct EngineInbox: Sendable {
    var adds: [PendingTransfer] = []
    var cancels: [UInt64] = []
    /// Work on the cookie jar (the cookie thread's inbox only).
    var cookieJobs: [@Sendable (CookieJar?) -> Void] = []
    var stopping = false

    /// Nothing waits, so the thread may be asleep: the first command after this wakes it.
    var isIdle: Bool {
        adds.isEmpty && cancels.isEmpty && cookieJobs.isEmpty
    }
}

/// What the caller side and one transfer thread share: the command inbox under a lock, the multi
/// handle (only for `wakeup`, which libcurl allows from any thread) and the event sink.
final class EngineShared: Sendable {
    let inbox = Locked(EngineInbox())
    let multi: MultiHandle
    /// The thread's share of the engine's limits.
    let configuration: TransferEngine.Configuration
    private let sink: @Sendable ([TransferEvent], Int) -> Void
    let bodyBuffers = BodyBufferPool()
    /// Closures for the transfer threads; an engine created without any still has its own, empty.
    let jobs: TransferThreadJobs
    /// This thread's index among the engine's.
    let lane: Int
    /// Whether `inFlight` is kept (with more than one thread, to choose between them).
    let countsInFlight: Bool
    /// Exchanges submitted to this thread and not ended.
    let inFlight = Atomic(0)

    init(lane: Int, configuration: TransferEngine.Configuration, jobs: TransferThreadJobs, countsInFlight: Bool,
         sink: @escaping @Sendable ([TransferEvent], Int) -> Void) {
        self.lane = lane
        self.configuration = configuration
        self.sink = sink
        self.countsInFlight = countsInFlight
        self.multi = MultiHandle()
        self.jobs = jobs
        jobs.attach(to: multi, lane: lane)
    }

    var isOnTransferThread: Bool {
        jobs.lanes[lane].isCurrentThread
    }

    /// The cookie thread's jar once its loop has ended, so that the cookie calls still reach it
    /// (one at a time, and no exchange uses it any more), and cookie work that came while the
    /// loop was ending.
    private let jarAfterStop = Locked<(jar: CookieJar?, handedOver: Bool, waiting: [@Sendable (CookieJar?) -> Void])>((nil, false, []))

    /// Runs cookie work that came after this thread began to stop: now with the jar, or when the
    /// ended loop hands it over.
    func runAfterStop(_ job: @escaping @Sendable (CookieJar?) -> Void) {
        jarAfterStop.withLock { state in
            if state.handedOver { job(state.jar) } else { state.waiting.append(job) }
        }
    }

    /// Called by the ended loop with its jar (nil on other threads): runs the work that waited for
    /// it, and keeps it for later work.
    func handOverCookieJar(_ jar: CookieJar?) {
        jarAfterStop.withLock { state in
            state.jar = jar
            state.handedOver = true
            for job in state.waiting { job(jar) }
            state.waiting.removeAll()
        }
    }

    /// Adds a command to the inbox unless the thread is stopping. Says whether it was added, and
    /// whether the inbox was idle before (the thread may be asleep then, and needs a wakeup).
    func post(_ command: (inout EngineInbox) -> Void) -> (accepted: Bool, wasIdle: Bool) {
        inbox.withLock { inbox in
            guard !inbox.stopping else { return (false, false) }
            let wasIdle = inbox.isIdle
            command(&inbox)
            return (true, wasIdle)
        }
    }

    /// Hands events of this thread's exchanges to the engine's sink.
    func deliver(_ events: [TransferEvent]) {
        sink(events, lane)
    }

    /// Wakes the transfer thread, unless this is it: the loop looks for work before it waits.
    func wakeUnlessOnTransferThread() {
        if !isOnTransferThread { multi.wakeup() }
    }

    /// An exchange submitted to this thread has ended.
    func ended() {
        if countsInFlight { inFlight.subtract(1, ordering: .relaxed) }
    }

    /// Whether commands or closures wait for the loop (checked before it waits).
    var hasWork: Bool {
        jobs.hasPending(lane: lane) || inbox.withLock { !$0.isIdle || $0.stopping }
    }
}

/// A libcurl multi handle. Only the transfer thread drives it; other threads may only wake it.
final class MultiHandle: @unchecked Sendable {
    let raw: UnsafeMutableRawPointer

    init() {
        guard let raw = curl_multi_init() else { fatalError("libcurl could not allocate a multi handle") }
        self.raw = raw
    }

    deinit {
        curl_multi_cleanup(raw)
    }

    func wakeup() {
        _ = curl_multi_wakeup(raw)
    }
}

extension TransferResult {
    /// The end of an exchange that never reached libcurl: cancelled, unless `error` says otherwise.
    static func endedBeforeStart(id: UInt64, error: TransferError = .cancelled) -> TransferResult {
        TransferResult(
            id: id, error: error, requestHead: [], requestBody: Data(), requestBodySize: 0,
            statusLine: "", statusCode: 0, responseHeaders: ReceivedHeaders(), responseBody: Data(),
            connection: ConnectionFacts(), timings: .zero
        )
    }
}

/// The events one turn of the transfer loop produced. Used only on the transfer thread, one access
/// at a time, so without the runtime's exclusivity checks (as `Transfer`).
final class EventOutbox {
    @exclusivity(unchecked) var events: [TransferEvent] = []
}

/// A transfer thread's loop. Everything here runs on that one thread, one access at a time, so
/// its hot properties go without the runtime's exclusivity checks (as `Transfer`).
private final class TransferLoop {
    private let shared: EngineShared
    @exclusivity(unchecked) private var pool = EasyHandlePool(capacity: 256)
    /// The engine's cookie jar, on the cookie thread only.
    private let cookieJar: CookieJar?
    @exclusivity(unchecked) private var active: [ExchangeKey: Transfer] = [:]
    /// Cancels for ids the loop did not know: an exchange cancelled just before it was
    /// submitted (the caller registers a request, then submits it) has its cancel here when its
    /// add arrives, and never starts. Bounded: most are cancels of exchanges already finished.
    @exclusivity(unchecked) private var earlyCancels = EarlyCancels(capacity: 1024)
    /// Events of the current turn, handed to the sink together at its end.
    private let outbox = EventOutbox()
    /// The thread's preemption count, read at most once a turn (wire capture only).
    private let preemptions = TurnPreemptions()
    private let logger = Logger(label: "curlew.transport")
    /// Exchanges each open connection has carried, by its local and remote address.
    @exclusivity(unchecked) private var connectionUses = ConnectionUses()
    /// Exchanges in flight that report progress, and when the loop last sampled them.
    @exclusivity(unchecked) private var progressReporters = 0
    @exclusivity(unchecked) private var lastProgressSample: UInt64 = 0
    /// The array the inbox's adds are swapped into each turn, kept with its capacity.
    @exclusivity(unchecked) private var takenAdds: [PendingTransfer] = []
    /// The closures this turn ran, kept until its transfers were driven (see `run`).
    @exclusivity(unchecked) private var ranJobs: [@Sendable () -> Void] = []

    init(shared: EngineShared) {
        self.shared = shared
        cookieJar = shared.lane == TransferEngine.cookieLane ? CookieJar() : nil
        let multi = shared.multi.raw
        let limits = shared.configuration
        _ = curlew_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, limits.maxConnectionsPerHost)
        _ = curlew_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, limits.maxTotalConnections)
        _ = curlew_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, limits.maxIdleConnections)
        _ = curlew_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
    }

    func run() {
        let multi = shared.multi.raw
        var running: Int32 = 0
        shared.jobs.enterTransferThread(lane: shared.lane)
        while true {
            preemptions.startTurn()
            // Closures handed over since the last turn (callbacks of its exchanges, which may
            // start more): what they submit is taken below, in this same turn.
            shared.jobs.runPending(lane: shared.lane, into: &ranJobs)
            // The adds change places with an empty array of the loop's, so neither is copied.
            var adds: [PendingTransfer] = []
            swap(&adds, &takenAdds)
            let (cancels, cookieJobs, stopping) = shared.inbox.withLock { inbox in
                swap(&inbox.adds, &adds)
                defer {
                    inbox.cancels.removeAll()
                    inbox.cookieJobs.removeAll()
                }
                return (inbox.cancels, inbox.cookieJobs, inbox.stopping)
            }
            // Cookie work first, so cookies added before an exchange was submitted go with it.
            for job in cookieJobs { job(cookieJar) }
            for pending in adds { start(pending) }
            adds.removeAll(keepingCapacity: true)
            swap(&adds, &takenAdds)
            for id in cancels { cancelActive(id) }
            if stopping {
                for key in Array(active.keys) { cancelActive(key.id) }
                handOver()
                shared.jobs.stop(lane: shared.lane)
                // Released while this is still a transfer thread: a release that ends the engine's
                // owner calls `shutdown` here, which must not wait for this very thread.
                ranJobs.removeAll()
                // Every exchange has left the jar: callers may use it from now on.
                shared.handOverCookieJar(cookieJar)
                return
            }
            let performed = curl_multi_perform(multi, &running)
            // When the exchanges libcurl finished in this call ended, as near as this thread can
            // tell: their timings compare it with libcurl's totals (`Transfer.libcurlHeld`).
            let performedAt = DispatchTime.now().uptimeNanoseconds
            if performed != CURLM_OK {
                logger.error("curl_multi_perform failed", metadata: ["code": "\(performed.rawValue)"])
            }
            // Only now are the closures that ran this turn released, with the finished exchanges
            // they held: a request a callback started went out first, and the server works on it
            // while this thread frees what the last one left.
            ranJobs.removeAll(keepingCapacity: true)
            collectFinished(endedAt: performedAt)
            sampleProgress()
            handOver()
            if shared.hasWork { continue }
            _ = curl_multi_poll(multi, nil, 0, 1000, nil)
        }
    }

    /// Samples the progress of the exchanges that report it, at most every
    /// `Transfer.progressInterval`: a clock read a turn while any is in flight, nothing otherwise.
    private func sampleProgress() {
        guard progressReporters > 0 else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        guard now - lastProgressSample >= Transfer.progressInterval else { return }
        lastProgressSample = now
        for transfer in active.values where transfer.reportsProgress { transfer.sampleProgress(at: now) }
    }

    /// Gives the sink this turn's events, if any.
    private func handOver() {
        guard !outbox.events.isEmpty else { return }
        shared.deliver(outbox.events)
        outbox.events.removeAll(keepingCapacity: true)
    }

    private func start(_ pending: PendingTransfer) {
        if earlyCancels.take(pending.id) {
            end(.endedBeforeStart(id: pending.id))
            return
        }
        guard let handle = pool.take() else {
            end(failedBeforeStart(pending.id, message: "libcurl could not allocate an easy handle"))
            return
        }
        let transfer = Transfer(pending, handle: handle, outbox: outbox, bodyBuffers: shared.bodyBuffers, preemptions: preemptions, cookieShare: cookieJar?.share,
                                proxies: shared.configuration.proxies)
        let configured = transfer.configure()
        guard configured == CURLE_OK else {
            let error = transfer.localFailure ?? TransferError(kind: configured == CURLE_UNSUPPORTED_PROTOCOL ? .invalidURL : .other,
                                                               code: Int(configured.rawValue), message: handle.errorMessage(for: configured))
            pool.give(handle, reusable: false)
            end(.endedBeforeStart(id: pending.id, error: error))
            return
        }
        transfer.markAdded()
        let added = curl_multi_add_handle(shared.multi.raw, handle.raw)
        guard added == CURLM_OK else {
            pool.give(handle, reusable: false)
            let message = String(cString: curl_multi_strerror(added))
            end(failedBeforeStart(pending.id, message: message))
            return
        }
        active[ExchangeKey(pending.id)] = transfer
        if transfer.reportsProgress { progressReporters += 1 }
        outbox.events.append(.started(id: pending.id))
    }

    private func collectFinished(endedAt: UInt64) {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(shared.multi.raw, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            var context: UnsafeMutableRawPointer?
            _ = curlew_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &context)
            guard let context else { continue }
            let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
            let code = message.pointee.data.result
            guard code == CURLE_OK else {
                finish(transfer, code: code, cancelled: false, endedAt: endedAt)
                continue
            }
            switch transfer.redirectDecision() {
            case .finish:
                finish(transfer, code: code, cancelled: false, endedAt: endedAt)
            case .refuse(let error):
                finish(transfer, code: code, cancelled: false, refusal: error, endedAt: endedAt)
            case .follow(let next):
                follow(transfer, to: next)
            }
        }
    }

    /// Puts a redirect's next hop on the wire with the same easy handle (and so the same
    /// connection pool), leaving the exchange active under its id.
    private func follow(_ transfer: Transfer, to next: TransferRequest) {
        guard let next = transfer.withRemainingTime(next) else {
            let error = TransferError(kind: .totalTimeout, code: 28, message: "the exchange, its redirects included, took longer than its timeout")
            finish(transfer, code: CURLE_OK, cancelled: false, refusal: error)
            return
        }
        _ = curl_multi_remove_handle(shared.multi.raw, transfer.handle.raw)
        let configured = transfer.beginNextHop(next)
        guard configured == CURLE_OK else {
            finish(transfer, code: configured, cancelled: false, refusal: transfer.localFailure, inMulti: false)
            return
        }
        let added = curl_multi_add_handle(shared.multi.raw, transfer.handle.raw)
        if added != CURLM_OK {
            let error = TransferError(kind: .other, message: String(cString: curl_multi_strerror(added)))
            finish(transfer, code: CURLE_OK, cancelled: false, refusal: error, inMulti: false, handleReusable: false)
        }
    }

    private func cancelActive(_ id: UInt64) {
        guard let transfer = active[ExchangeKey(id)] else {
            earlyCancels.insert(id)
            return
        }
        finish(transfer, code: CURLE_OK, cancelled: true)
    }

    /// `endedAt`: when libcurl finished the exchange (uptime nanoseconds); 0 for now.
    /// `handleReusable` false drops the handle whatever the outcome (its next hop could not be added).
    private func finish(_ transfer: Transfer, code: CURLcode, cancelled: Bool, refusal: TransferError? = nil, inMulti: Bool = true, endedAt: UInt64 = 0,
                        handleReusable: Bool = true) {
        let result = transfer.makeResult(code: code, cancelled: cancelled, refusal: refusal, connectionUses: &connectionUses, endedAt: endedAt)
        if inMulti { _ = curl_multi_remove_handle(shared.multi.raw, transfer.handle.raw) }
        if active.removeValue(forKey: ExchangeKey(transfer.id)) != nil, transfer.reportsProgress { progressReporters -= 1 }
        pool.give(transfer.handle, reusable: handleReusable && code == CURLE_OK && !cancelled)
        end(result)
    }

    /// Hands over an exchange's one `finished` event.
    private func end(_ result: TransferResult) {
        shared.ended()
        outbox.events.append(.finished(result))
    }

    private func failedBeforeStart(_ id: UInt64, message: String) -> TransferResult {
        TransferResult.endedBeforeStart(id: id, error: TransferError(kind: .other, message: message))
    }
}

/// The most recent cancels of unknown ids, oldest forgotten first. Used only on the transfer thread.
struct EarlyCancels {
    private var order: [UInt64] = []
    private var ids: Set<UInt64> = []
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    mutating func insert(_ id: UInt64) {
        guard ids.insert(id).inserted else { return }
        order.append(id)
        if order.count > capacity {
            ids.remove(order.removeFirst())
        }
    }

    /// Whether `id` was cancelled before it arrived; forgets it either way.
    mutating func take(_ id: UInt64) -> Bool {
        // Nearly always empty: no hashing then.
        guard !ids.isEmpty, ids.remove(id) != nil else { return false }
        order.removeAll { $0 == id }
        return true
    }
}
