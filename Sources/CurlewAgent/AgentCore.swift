import CurlewTransport
import Foundation
import CurlewLocking

/// Where a request sits inside a group, for requests started by a group. A class: a request
/// passes it along at every step, and copying a reference costs less than copying the group's
/// description with its optional fields.
final class RequestPlacement: Sendable {
    let group: GroupInfo
    let index: Int
    let label: String
    /// The group's transfer thread, which its members run on.
    let lane: Int

    init(group: GroupInfo, index: Int, label: String, lane: Int) {
        self.group = group
        self.index = index
        self.label = label
        self.lane = lane
    }
}

/// What one reaction of the agent produced: events for the observers and jobs for the callback
/// runner, handed over together.
struct DeliveryBatch {
    /// Whether observers listen: events are built and kept only then.
    let observed: Bool
    private(set) var events: [ObserverEvent] = []
    /// Callbacks for the transfer thread `callbackLane`, in order.
    private(set) var callbacks: [CallbackJob] = []
    /// The lane of the first callback added; nearly every batch has callbacks for one only.
    private(set) var callbackLane = 0
    /// Callbacks for other lanes, in order (a batch made off the transfer threads for several
    /// requests, such as a shutdown's, can have them).
    private(set) var otherLaneCallbacks: [(lane: Int, job: CallbackJob)] = []

    init(observed: Bool, events: [ObserverEvent] = []) {
        self.observed = observed
        self.events = events
    }

    /// A batch for `count` transport events of which `finishing` end an exchange: room made at
    /// once for what they most often add (two observer events each; an answer for each end),
    /// instead of growing the arrays a doubling at a time, each step a fresh allocation and a
    /// copy of what was added.
    init(observed: Bool, expecting count: Int, finishing: Int) {
        self.observed = observed
        if observed { events.reserveCapacity(2 * count) }
        callbacks.reserveCapacity(finishing)
    }

    /// Puts `earlier` before the events added so far (which move up in place when the array
    /// has room, instead of being copied into a new one with them).
    mutating func putFirst(_ earlier: [ObserverEvent]) {
        events.insert(contentsOf: earlier, at: 0)
    }

    mutating func add(_ event: @autoclosure () -> ObserverEvent) {
        if observed { events.append(event()) }
    }

    /// A callback for the request or group running on transfer thread `lane`.
    mutating func addCallback(_ job: CallbackJob, lane: Int) {
        if callbacks.isEmpty, otherLaneCallbacks.isEmpty { callbackLane = lane }
        if lane == callbackLane { callbacks.append(job) } else { otherLaneCallbacks.append((lane, job)) }
    }

    var hasCallbacks: Bool { !callbacks.isEmpty || !otherLaneCallbacks.isEmpty }

    /// A request's end for the observers: its debug message, if it has one, then its finish.
    mutating func addEnd(of info: @autoclosure () -> SharedRequestInfo, state: RequestState, message: SharedDebugMessage?) {
        if let message { add(.debugMessage(message)) }
        add(.finished(info(), state))
    }
}

/// The agent's bookkeeping of live requests and its reaction to transport events.
///
/// `handle(_:)` runs on the transfer thread (or on the thread that cancelled a request libcurl had
/// not taken yet): it updates state, hands over what each debug message is made of (its first
/// reader makes it) and hands everything, through the one publisher lock, to the observer lanes
/// and the callback runner. It never waits on either.
final class AgentCore: Sendable {
    /// A live request's bookkeeping: a class, so each transport event looks it up with a retain
    /// rather than a copy of the request and its callbacks.
    final class ActiveRequest: Sendable {
        let handle: RequestHandle
        let info: RequestInfo
        /// `info` for observer events; made when the request is registered with observers
        /// listening (`sharedInfo` makes it for events of one that was not).
        private let infoForEvents: SharedRequestInfo?
        /// What the verdict needs of the request (the request itself is not kept).
        let responseSerializer: ResponseSerializer
        let acceptableStatusCodes: Range<Int>?
        /// The request as composed; nil when nobody read descriptions as it started (the debug
        /// message of an observer attached since shows it as typed, and without the wire capture).
        let composed: ComposedRequest?
        let callbacks: RequestCallbacks
        /// What `callbacks` holds, known without copying them (their closures would each be retained).
        let hasCallbacks: Bool
        let hasDelegate: Bool
        let hasDebugCallback: Bool
        let placement: RequestPlacement?
        /// For an exchange of a pipelined request: takes the result, and what its stream carried,
        /// instead of the usual delivery; the pipeline publishes the exchange once it has decided
        /// what it means.
        let onFinish: (@Sendable (TransferResult, StreamRecord?) -> Void)?
        /// For a request with `streamsResponse`: follows its body as it arrives.
        let stream: StreamCollector?

        /// Answers the caller with `callbacks` read in place (see `RequestCallbacks.answer`); the
        /// response is made only when someone is left to read it (a delegate is held weakly).
        func answer(message: SharedDebugMessage?, response: () -> Response?, error: RequestError?, tip: String, serializer: ResponseSerializer?) {
            guard !callbacks.isEmpty else { return }
            callbacks.answer(handle, requestID: info.id, message: message, response: response(), error: error, tip: tip, serializer: serializer)
        }

        /// `info` for an observer event.
        var sharedInfo: SharedRequestInfo { infoForEvents ?? SharedRequestInfo(info) }

        init(handle: RequestHandle, info: RequestInfo, request: Request, composed: consuming ComposedRequest?, callbacks: consuming RequestCallbacks,
             placement: RequestPlacement?, observed: Bool, onFinish: (@Sendable (TransferResult, StreamRecord?) -> Void)? = nil) {
            self.handle = handle
            infoForEvents = observed ? SharedRequestInfo(info) : nil
            self.info = info
            responseSerializer = request.responseSerializer
            acceptableStatusCodes = request.acceptableStatusCodes
            self.composed = composed
            hasCallbacks = !callbacks.isEmpty
            hasDelegate = callbacks.delegate != nil
            hasDebugCallback = callbacks.debug != nil
            self.callbacks = callbacks
            self.placement = placement
            self.onFinish = onFinish
            stream = request.streamsResponse
                ? StreamCollector(lastEventID: request.headers["Last-Event-ID"], reconnectAttempt: request.reconnectAttempt) : nil
        }
    }

    let config: NetworkConfig
    let observers = ObserverHub()
    /// The requests in the transport, one table per transfer thread (by the thread each runs on):
    /// the transfer threads never take each other's lock (callers registering a request, or ending
    /// one that never started, take the lock of that request's thread).
    private let active: [RequestTable]
    /// The one publisher: every observer event and callback leaves the agent inside this lock,
    /// from whatever thread produced it (the transfer thread, a caller cancelling a request that
    /// never started, a group runner). It holds the `willSend` events of registered requests,
    /// which go out ahead of whatever is published next, so per-request order (announced, sent,
    /// finished) holds by construction rather than by timing.
    private let publisher = Locked<[ObserverEvent]>([])
    /// Runs callbacks on the callback queue or the transfer thread.
    let callbackRunner: CallbackRunner
    let callbackQueueLabel: String

    /// `transferThreads` is the engine's number of transfer threads.
    init(config: NetworkConfig, callbackRunner: CallbackRunner, transferThreads: Int = 1) {
        self.config = config
        self.callbackRunner = callbackRunner
        self.callbackQueueLabel = callbackRunner.label
        active = (0..<max(transferThreads, 1)).map { _ in RequestTable() }
    }

    /// The exchanges in the transport, with the transfer thread each runs on.
    var activeExchanges: [(id: UInt64, lane: Int)] {
        active.indices.flatMap { lane in active[lane].requests.withLock { $0.keys.map { ($0.id, lane) } } }
    }

    /// The table of the requests on transfer thread `lane`.
    private func table(_ lane: Int) -> RequestTable {
        precondition(active.indices.contains(lane), "transfer thread \(lane) of \(active.count)")
        return active[lane]
    }

    /// Records a composed request as pending and announces it. Call before submitting it to
    /// transfer thread `lane`.
    ///
    /// Observers hear the announcement with the transport's next events (it is queued here and
    /// goes out first in the next batch), so starting many requests costs no hand-over per request.
    func register(_ entry: ActiveRequest, lane: Int) {
        _ = entry.handle.transition(to: .pending)
        table(lane).requests.withLock { $0[ExchangeKey(entry.info.id)] = entry }
        if !observers.isEmpty {
            let shared = entry.sharedInfo
            publisher.withLock { $0.append(.willSend(shared)) }
        }
        if entry.hasDelegate, let delegate = entry.callbacks.delegate {
            let handle = entry.handle
            callbackRunner.run({ delegate.requestWillBeSent(handle) }, lane: handle.lane)
        }
    }

    /// Announces a request held before sending (behind a priority-first gate).
    func announceWaiting(handle: RequestHandle, info: RequestInfo, placement: RequestPlacement?) {
        _ = handle.transition(to: .pending)
        var batch = newBatch()
        batch.add(.waiting(SharedRequestInfo(info), .gated))
        appendMemberUpdate(placement, state: .pending, requestID: info.id, waitReason: .gated, to: &batch)
        dispatch(&batch)
    }

    /// For a request that belongs to a group, the matching member update.
    private func appendMemberUpdate(_ placement: RequestPlacement?, state: RequestState, requestID: UInt64,
                                    waitReason: WaitReason? = nil, progress: RequestProgress? = nil, to batch: inout DeliveryBatch) {
        guard let placement else { return }
        batch.add(.group(.memberChanged(placement.group, MemberUpdate(
            index: placement.index, label: placement.label, state: state, waitReason: waitReason,
            requestID: requestID, progress: progress))))
    }

    /// Ends a request that never reached the transport: refused (bad URL, header injection) or
    /// cancelled while waiting.
    func reject(handle: RequestHandle, info: RequestInfo, error: RequestError, callbacks: RequestCallbacks) {
        let state: RequestState = error.kind == .cancelled ? .cancelled : .failed
        guard handle.transition(to: state) else { return }
        let error = handle.explainingCancellation(error) ?? error
        let message = SharedDebugMessage(DebugMessage(
            requestID: info.id, name: info.name, groupID: info.groupID, step: info.step, state: state,
            startedAt: info.startedAt, original: Self.asTyped(info), sent: nil, response: nil, error: error,
            timings: nil, connection: nil, callbackQueue: callbackQueueLabel, firstExchangeID: info.firstExchangeID
        ))
        var batch = newBatch()
        deliver(message: message, info: info, state: state, handle: handle, response: nil, error: error, callbacks: callbacks, to: &batch)
        dispatch(&batch)
    }

    /// What a request that was never composed asked for: its method and URL as typed, so every
    /// view of it (Live, the log, the CLI) shows what the user wrote rather than nothing.
    static func asTyped(_ info: RequestInfo) -> ComposedRequest {
        ComposedRequest(method: info.method, url: URLPassword.masking(in: info.url), headers: [], params: .null, body: nil, timeoutMilliseconds: 0,
                        isAsTyped: true)
    }

    /// Reacts to one turn of transfer thread `lane`'s loop. Observers and the callback runner
    /// receive the turn's work together: one hand-over each, however many requests finished (and
    /// one more before each exchange of a pipelined request that ended, which the pipeline
    /// publishes).
    func handle(_ events: [TransferEvent], lane: Int) {
        let requests = table(lane)
        var finishing = 0
        for index in events.indices { if case .finished = events[index] { finishing += 1 } }
        var batch = DeliveryBatch(observed: !observers.isEmpty, expecting: events.count, finishing: finishing)
        // Each event is read where it lies: a finished exchange's result is large to copy.
        events.withUnsafeBufferPointer { events in
            for index in events.indices { handle(events[index], in: requests, into: &batch) }
        }
        dispatch(&batch)
    }

    private func handle(_ event: TransferEvent, in table: RequestTable, into batch: inout DeliveryBatch) {
        switch event {
        case .started(let id):
            guard let entry = table.requests.withLock({ $0[ExchangeKey(id)] }), entry.handle.transition(to: .inFlight) else { return }
            batch.add(.didSend(entry.sharedInfo))
            appendMemberUpdate(entry.placement, state: .inFlight, requestID: id, to: &batch)
            if entry.hasDelegate, let delegate = entry.callbacks.delegate {
                let handle = entry.handle
                batch.addCallback(.call { delegate.requestDidSend(handle) }, lane: handle.lane)
            }
        case .chunk(let id, let status, let contentType, let data):
            guard let entry = table.requests.withLock({ $0[ExchangeKey(id)] }), let collector = entry.stream else { return }
            let items = collector.consume(data, status: status, contentType: contentType)
            if batch.observed, !items.isEmpty {
                let shared = entry.sharedInfo
                for item in items { batch.add(.streamed(shared, item)) }
            }
            if let streamed = entry.callbacks.streamed {
                batch.addCallback(.call { for item in items { streamed(item) } }, lane: entry.handle.lane)
            }
        case .progress(let id, let progress):
            guard let entry = table.requests.withLock({ $0[ExchangeKey(id)] }) else { return }
            batch.add(.progress(entry.sharedInfo, progress))
            appendMemberUpdate(entry.placement, state: .inFlight, requestID: id, progress: progress, to: &batch)
            let callbacks = entry.callbacks
            if callbacks.progress != nil || callbacks.delegate != nil {
                let handle = entry.handle
                batch.addCallback(.call {
                    callbacks.progress?(progress)
                    callbacks.delegate?.request(handle, didProgress: progress)
                }, lane: handle.lane)
            }
        case .finished(let result):
            guard let entry = table.requests.withLock({ $0.removeValue(forKey: ExchangeKey(result.id)) }) else { return }
            if let onFinish = entry.onFinish {
                // The pipeline may publish the exchange's end at once, through the publisher:
                // what this turn produced before it (its own `didSend`, when one turn started
                // and ended it) goes out first.
                dispatchSoFar(&batch)
                onFinish(result, entry.stream?.record)
            } else {
                finish(entry, result: result, into: &batch)
            }
        }
    }

    private func finish(_ entry: ActiveRequest, result: TransferResult, into batch: inout DeliveryBatch) {
        let verdict = Verdict(result: result, serializer: entry.responseSerializer,
                              acceptable: entry.acceptableStatusCodes ?? config.acceptableStatusCodes)
        guard entry.handle.transition(to: verdict.state) else { return }
        let error = verdict.state == .cancelled ? entry.handle.explainingCancellation(verdict.error) : verdict.error
        // The debug message is the largest thing made per request: skipped when nobody reads it,
        // and made by its first reader, off the transfer thread. A download's is made here (its
        // body is read back from a file the caller may move once answered), and so is one with a
        // large body (made later, it keeps the body's buffer from going back to the pool, and the
        // next large body takes fresh memory).
        let message: SharedDebugMessage?
        if batch.observed || entry.hasDebugCallback {
            // The recipe keeps the values it reads, not the live-request record (whose callbacks
            // and what they hold must not outlive the answer).
            let (info, composed, stream, state) = (entry.info, entry.composed ?? Self.asTyped(entry.info), entry.stream?.record, verdict.state)
            let bodyReaders = debugBodyReaders(readByCallback: entry.hasDebugCallback)
            let make = { @Sendable [self] in
                debugMessage(info: info, composed: composed, result: result, state: state, error: error, pipeline: nil, stream: stream,
                             bodyReaders: bodyReaders)
            }
            message = result.download == nil && result.responseBody.count <= Self.lazyDebugMessageBodyLimit
                ? SharedDebugMessage(making: make) : SharedDebugMessage(make())
        } else {
            message = nil
        }
        batch.addEnd(of: entry.sharedInfo, state: verdict.state, message: message)
        guard entry.hasCallbacks else { return }
        // The response is made where the callbacks run, from the entry and the result (two
        // references), rather than copied into the hand-over with the callbacks.
        batch.addCallback(.answer(FinishedAnswer(entry: entry, result: result, value: verdict.value,
                                                 failure: error.map { FinishedAnswer.Failure(error: $0, tip: tip(for: $0)) }, message: message)),
                          lane: entry.handle.lane)
    }

    /// The largest response body whose exchange's debug message is left to its first reader.
    static let lazyDebugMessageBodyLimit = 16 << 10

    /// The response a transfer received, nil when none arrived.
    static func response(to id: UInt64, from result: TransferResult, value: ResponseValue?) -> Response? {
        guard !result.statusLine.isEmpty else { return nil }
        let response = Response(
            requestID: id, statusCode: result.statusCode, statusLine: result.statusLine,
            httpVersion: result.connection.httpVersion, headers: HTTPHeaders(received: result.responseHeaders),
            body: result.responseBody, value: value ?? .data(result.responseBody), url: result.connection.effectiveURL
        )
        // Matched, not assigned: copying an absent download costs as much as a present one. And
        // only then a mutable copy: returning a response changed after it was made copied it
        // whole and destroyed the original (about 700 instructions a request).
        guard case .some = result.download else { return response }
        var downloaded = response
        downloaded.download = result.download
        return downloaded
    }

    /// The debug message of a network exchange.
    func debugMessage(info: RequestInfo, composed: ComposedRequest, result: TransferResult, state: RequestState,
                      error: RequestError?, pipeline: PipelineRecord?, stream: StreamRecord? = nil, bodyReaders: BodyReaders,
                      requestGoesOn: Bool = false) -> DebugMessage {
        // The bytes sent carry the type the request declares, also for a body read from a file
        // (which the composed request holds no body of): redaction reads a JSON or form body by
        // its type, and one without a type only for declared values.
        let sent = result.requestHead.isEmpty ? nil : WireRequest(
            head: String(decoding: result.requestHead, as: UTF8.self),
            body: result.requestBodySize == 0 ? nil : BodySnapshot(
                kept: result.requestBody, size: result.requestBodySize,
                contentType: composed.body?.contentType ?? composed.headers.first { ASCII.equalsIgnoringCase($0.name, "content-type") }?.value)
        )
        // One copy of the connection's facts, and only when there are any.
        var connection: ConnectionInfo?
        if result.measured {
            connection = result.connection
            connection?.effectiveURL = URLPassword.masking(in: result.connection.effectiveURL)
        }
        var (original, transfer) = composed.splittingTransfer()
        if result.download != nil || result.responseBodySpilled {
            transfer = transfer ?? TransferRecord()
            transfer?.download = result.download
            transfer?.bodyInTemporaryFile = result.responseBodySpilled
        }
        return DebugMessage(
            requestID: info.id, name: info.name, groupID: info.groupID, step: info.step, state: state,
            startedAt: info.startedAt, original: original, sent: sent, response: snapshot(of: result, bodyReaders: bodyReaders),
            error: error, timings: result.measured ? result.timings : nil, connection: connection,
            callbackQueue: callbackQueueLabel, pipeline: pipeline,
            transfer: transfer, stream: stream, firstExchangeID: info.firstExchangeID, requestGoesOn: requestGoesOn
        )
    }

    /// Who reads a debug message's bodies: the observers, and the request's `debug` callback if
    /// it has one. The message keeps what the most demanding of them reads, at most `debugBodyLimit`.
    func debugBodyReaders(readByCallback: Bool) -> BodyReaders {
        BodyReaders(limits: readByCallback ? [] : observers.bodyReadLimits, readsEverything: readByCallback, cap: config.debugBodyLimit)
    }

    /// The response side of a debug message, with the body kept as far as its readers read.
    func snapshot(of result: TransferResult, bodyReaders: BodyReaders) -> ResponseSnapshot? {
        guard !result.statusLine.isEmpty else { return nil }
        let headers = result.responseHeaders
        return ResponseSnapshot(
            statusCode: result.statusCode, statusLine: result.statusLine, httpVersion: result.connection.httpVersion,
            fields: HTTPHeaders(received: headers),
            body: bodySnapshot(of: result, contentType: headers.contentType, readers: bodyReaders)
        )
    }

    /// The response body as far as its readers read: from memory, or read back from a download's file.
    private func bodySnapshot(of result: TransferResult, contentType: String?, readers: BodyReaders) -> BodySnapshot {
        if result.discardedBodySize > 0 {
            // An event stream: its events are in the message's stream record, its size here.
            return BodySnapshot(kept: Data(), size: result.discardedBodySize, contentType: contentType)
        }
        guard let download = result.download else {
            return BodySnapshot(data: result.responseBody, contentType: contentType, readers: readers)
        }
        let path = download.completed ? download.path : download.partialPath
        // Never blocking and never through a link: this runs on the transfer thread.
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        var info = stat()
        guard descriptor >= 0 else { return BodySnapshot(kept: Data(), size: download.fileSize, contentType: contentType) }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            return BodySnapshot(kept: Data(), size: download.fileSize, contentType: contentType)
        }
        let most = readers.mostBytes
        let prefix = most == 0 ? Data() : (try? handle.read(upToCount: most)) ?? nil
        return BodySnapshot(prefix: prefix ?? Data(), size: download.fileSize, contentType: contentType, readers: readers)
    }

    /// The response side of a debug message for an answer that did not come from a transfer.
    func snapshot(of response: Response, bodyReaders: BodyReaders) -> ResponseSnapshot {
        ResponseSnapshot(statusCode: response.statusCode, statusLine: response.statusLine, httpVersion: response.httpVersion,
                         fields: response.headers,
                         body: BodySnapshot(data: response.body, contentType: response.headers["Content-Type"], readers: bodyReaders))
    }

    /// Publishes one exchange of a pipelined request: its debug message and finished event, and
    /// for the request's last exchange, the outcome to its callbacks.
    func publish(_ exchange: FinishedExchange, final: PipelineDelivery?) {
        let requestGoesOn = final == nil
        // A caller already answered (a coalesced leader cancelled while others wait on it) gets
        // nothing more; observers still see how the exchange ended.
        let final = final.flatMap { $0.handle.transition(to: exchange.state) ? $0 : nil }
        var exchange = exchange
        if exchange.state == .cancelled, let handle = final?.handle { exchange.error = handle.explainingCancellation(exchange.error) }
        var batch = newBatch()
        let wantsMessage = batch.observed || (final?.callbacks.debug != nil)
        let message = wantsMessage
            ? SharedDebugMessage(exchange.debugMessage(core: self, bodyReaders: debugBodyReaders(readByCallback: final?.callbacks.debug != nil),
                                                       requestGoesOn: requestGoesOn)) : nil
        if let final {
            deliver(message: message, info: exchange.info, state: exchange.state, handle: final.handle, response: final.response,
                    error: exchange.error, callbacks: final.callbacks, to: &batch)
        } else {
            if let message { batch.add(.debugMessage(message)) }
            batch.add(.finished(SharedRequestInfo(exchange.info), exchange.state))
        }
        dispatch(&batch)
    }

    /// Answers a caller without an exchange to publish: a coalesced leader cancelled while its
    /// transfer goes on for the requests that joined it.
    func answerCaller(_ handle: RequestHandle, error: RequestError, callbacks: RequestCallbacks) {
        guard handle.transition(to: .cancelled), !callbacks.isEmpty else { return }
        let tip = tip(for: error)
        callbackRunner.run({
            callbacks.answer(handle, requestID: handle.id, message: nil, response: nil, error: error, tip: tip, serializer: nil)
        }, lane: handle.lane)
    }

    /// Publishes a `cacheThenNetwork` request's cached answer as an exchange of its own and hands
    /// the response to the `cached` callback.
    func publishProvisional(_ exchange: FinishedExchange, response: Response, callbacks: RequestCallbacks, lane: Int) {
        var batch = newBatch()
        batch.add(.debugMessage(SharedDebugMessage(exchange.debugMessage(core: self, bodyReaders: debugBodyReaders(readByCallback: false), requestGoesOn: true))))
        batch.add(.finished(SharedRequestInfo(exchange.info), exchange.state))
        if let cached = callbacks.cached { batch.addCallback(.call { cached(response) }, lane: lane) }
        dispatch(&batch)
    }

    /// Announces an exchange that is not registered with the transport (a cache hit, a fixture).
    func announce(_ info: RequestInfo) {
        guard !observers.isEmpty else { return }
        let shared = SharedRequestInfo(info)
        publisher.withLock { $0.append(.willSend(shared)) }
    }

    private func deliver(
        message: SharedDebugMessage?, info: RequestInfo, state: RequestState, handle: RequestHandle, response: Response?, error: RequestError?,
        callbacks: RequestCallbacks, to batch: inout DeliveryBatch
    ) {
        batch.addEnd(of: SharedRequestInfo(info), state: state, message: message)
        guard !callbacks.isEmpty else { return }
        let tip = error.map(tip(for:)) ?? ""
        let requestID = info.id
        batch.addCallback(.call {
            callbacks.answer(handle, requestID: requestID, message: message, response: response, error: error, tip: tip, serializer: nil)
        }, lane: handle.lane)
    }

    /// An empty batch that keeps events only when observers listen (asked once per batch, so a
    /// batch's events are all kept or none).
    private func newBatch() -> DeliveryBatch {
        DeliveryBatch(observed: !observers.isEmpty)
    }

    /// Hands over what `batch` holds so far and leaves it empty, for what comes next to follow it.
    private func dispatchSoFar(_ batch: inout DeliveryBatch) {
        guard !batch.events.isEmpty || batch.hasCallbacks else { return }
        dispatch(&batch)
        batch = DeliveryBatch(observed: batch.observed)
    }

    /// Publishes events that did not come from the transport (group events), through the same
    /// lock as everything else.
    func publish(_ events: [ObserverEvent]) {
        var batch = DeliveryBatch(observed: true, events: events)
        dispatch(&batch)
    }

    /// Hands a batch to the observer lanes and, in one block, to the callback runner, after any
    /// pending announcements, all under the publisher lock. The batch is spent: the
    /// announcements are put in front of its events, which move rather than being copied.
    private func dispatch(_ batch: inout DeliveryBatch) {
        publisher.withLock { announcements in
            if !announcements.isEmpty {
                batch.putFirst(announcements)
                announcements.removeAll(keepingCapacity: true)
            }
            observers.publish(batch.events)
            if !batch.callbacks.isEmpty {
                let callbacks = batch.callbacks
                callbackRunner.run({ for job in callbacks { job.run() } }, lane: batch.callbackLane)
            }
            guard !batch.otherLaneCallbacks.isEmpty else { return }
            // Each other lane's callbacks in one block, in the order they were added.
            var lanes: [Int] = []
            for (lane, _) in batch.otherLaneCallbacks where !lanes.contains(lane) { lanes.append(lane) }
            for lane in lanes {
                let callbacks = batch.otherLaneCallbacks.filter { $0.lane == lane }.map(\.job)
                callbackRunner.run({ for job in callbacks { job.run() } }, lane: lane)
            }
        }
    }

    /// The config's user-facing text for an error (HLNetworking's tips).
    func tip(for error: RequestError) -> String {
        let tips = config.tips
        let text = error.kind == .tooFrequent ? tips.tooFrequent : error.isUnreachable ? tips.notReachable : tips.generalError
        guard tips.appendsErrorCode, let code = error.code else { return text }
        return "\(text) (code \(code))"
    }
}

/// The requests one transfer thread runs, by id, under their own lock.
final class RequestTable: Sendable {
    let requests = Locked<[ExchangeKey: AgentCore.ActiveRequest]>([:])
}
