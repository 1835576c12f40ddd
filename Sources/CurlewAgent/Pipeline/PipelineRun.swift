import CurlewLocking
import CurlewTransport
import Foundation

/// One request through the middle layer, from filters to delivery: dynamic domain, URL filters,
/// plugins, mocks, signing, cache, duplicate detection, reachability, attempts with retry,
/// validation and the reformer. It runs as a task, off the transfer thread and the callback
/// queue. Every try is an exchange of its own, announced once and finished once for observers,
/// with its attempt number; the last one carries the whole pipeline record, and only it reaches
/// the caller.
final class PipelineRun: Sendable {
    private struct Control {
        /// The caller cancelled: stop at the next step and answer `cancelled`.
        var cancelled = false
        /// The caller has been answered, but the run goes on for the requests coalesced onto it.
        var callerAnswered = false
        var exchangeCount = 0
        /// The exchange a cancel aborts, with the transfer thread it runs on.
        var currentExchange: (id: UInt64, lane: Int)?
        var task: Task<Void, Never>?
        /// The fingerprint this request leads or follows under duplicate detection.
        var leading: String?
        var following: String?
    }

    /// What one round (an attempt, or a shared answer) left for the conclusion.
    private struct Outcome {
        var info: RequestInfo
        var composed: ComposedRequest
        var result: TransferResult?
        var response: Response?
        var error: RequestError?
        /// The cache plan the request was looked up with, to store the answer under the same key.
        var cachePlan: CachePlan?
        /// The response is the stored entry confirmed by a 304.
        var revalidated = false
        /// The URL as sent (password included), for the cache keys an unsafe method makes stale.
        var sentURL = ""
        /// What the exchange's stream carried, for a request with `streamsResponse`.
        var stream: StreamRecord?
    }

    let handle: RequestHandle
    private let services: PipelineServices
    private let baseInfo: RequestInfo
    private let request: Request
    private let callbacks: RequestCallbacks
    private let placement: RequestPlacement?
    private let onEnd: @Sendable () -> Void
    private let control = Locked(Control())

    init(services: PipelineServices, handle: RequestHandle, info: RequestInfo, request: Request, callbacks: RequestCallbacks,
         placement: RequestPlacement?, onEnd: @escaping @Sendable () -> Void) {
        self.services = services
        self.handle = handle
        self.baseInfo = info
        self.request = request
        self.callbacks = callbacks
        self.placement = placement
        self.onEnd = onEnd
    }

    private var config: NetworkConfig { services.config }
    private var core: AgentCore { services.core }

    func start() {
        let task = Task { [self] in
            await execute()
            onEnd()
        }
        control.withLock { $0.task = task }
    }

    /// Cancels the request wherever it is. A request others are coalesced onto answers its caller
    /// at once but goes on for them; a request coalesced onto another stops waiting.
    func cancel() {
        enum Step { case none, withdraw(String), answerCaller, abort((id: UInt64, lane: Int)?, Task<Void, Never>?) }
        let step = control.withLock { control -> Step in
            guard !control.cancelled, !control.callerAnswered else { return .none }
            if let following = control.following {
                control.cancelled = true
                return .withdraw(following)
            }
            if let leading = control.leading, services.duplicates.leaderCancelled(leading, leaderID: handle.id) {
                control.callerAnswered = true
                return .answerCaller
            }
            control.cancelled = true
            control.leading = nil
            return .abort(control.currentExchange, control.task)
        }
        switch step {
        case .none:
            break
        case .withdraw(let fingerprint):
            services.duplicates.withdraw(fingerprint, followerID: handle.id)
        case .answerCaller:
            core.answerCaller(handle, error: RequestError(.cancelled, "cancelled; the transfer goes on for the requests coalesced onto it"),
                              callbacks: callbacks)
        case .abort(let exchange, let task):
            task?.cancel()
            if let exchange { services.engine.cancel(id: exchange.id, lane: exchange.lane) }
        }
    }

    private var isCancelled: Bool { control.withLock { $0.cancelled } }

    // MARK: The flow

    private func execute() async {
        var record = PipelineRecord()
        guard !isCancelled else { return deliverCancelled(on: nil, composed: nil, record: record) }
        var request = self.request
        if request.baseURL == nil, request.customURL == nil, let provider = config.baseURLProvider {
            request.baseURL = provider()
        }
        for filter in config.urlFilters + request.urlFilters {
            filter.filter(&request)
            record.filters.append(filter.name)
        }
        let plugins = config.plugins + request.plugins
        record.plugins = plugins.map(\.name)
        var replays = 0
        while true {
            var prepared = request
            for plugin in plugins { prepared = plugin.prepare(prepared) }
            guard let outcome = await send(prepared, plugins: plugins, record: &record) else { return }
            // The requests coalesced onto this one get the raw answer before this one's own checks.
            share(response: outcome.response, transportError: outcome.result?.error.map(RequestError.init))
            var concluded = await conclude(outcome, request: prepared, record: &record)
            var pluginOutcome = PluginOutcome(response: concluded.response, error: concluded.error, request: prepared)
            for plugin in plugins { plugin.didReceive(pluginOutcome, for: outcome.info) }
            var replay: String?
            for plugin in plugins {
                switch await plugin.process(pluginOutcome, for: outcome.info, replays: replays) {
                case .deliver(let changed): pluginOutcome = changed
                case .replay(let reason): replay = reason
                }
                if replay != nil { break }
            }
            concluded = (pluginOutcome.response, pluginOutcome.error)
            if isCancelled, concluded.error?.kind != .cancelled {
                publish(outcome, concluded: concluded, record: record, final: false)
                return deliverCancelled(on: nil, composed: outcome.composed, record: record)
            }
            if let replay {
                if replays < config.maxReplays {
                    replays += 1
                    record.notes.append("replay \(replays): \(replay)")
                    publish(outcome, concluded: concluded, record: record, final: false)
                    continue
                }
                record.notes.append("replay refused after \(replays): \(replay)")
            }
            publish(outcome, concluded: concluded, record: record, final: true)
            return
        }
    }

    /// Composes, mocks, consults the cache and duplicate detection, checks reachability and sends
    /// with retries. Nil when the request was answered on the way (refused, from the cache or a
    /// fixture, rejected, cancelled).
    private func send(_ prepared: Request, plugins: [any AgentPlugin], record: inout PipelineRecord) async -> Outcome? {
        var transfer: TransferRequest
        var composed: ComposedRequest
        do {
            (transfer, composed) = try services.composer.compose(prepared)
        } catch {
            deliverRefused(error, composed: nil, record: record)
            return nil
        }
        if let (rule, action) = mockAction(for: prepared, url: transfer.url) {
            switch action {
            case .redirect:
                guard let target = config.mocks.redirected(transfer.url) else {
                    deliverRefused(RequestError(.mockFailed, "mock rule \(rule.debugDescription) redirects, but no mockBaseURL is set"),
                                   composed: composed, record: record)
                    return nil
                }
                transfer.url = target
                composed.url = URLPassword.masking(in: target)
                record.mock = "redirected to \(composed.url) by rule \(rule)"
            case .fixture(let fixture):
                record.mock = "fixture for rule \(rule)"
                record.source = .fixture
                await answer(with: fixture, request: prepared, composed: composed, record: record)
                return nil
            }
        }
        var revalidating: CacheEntry?
        var plan: CachePlan?
        // A download's body is in its file, and a body read from a file is not part of the key:
        // neither can be cached. (A streamed response can: it is kept as any other, unless it
        // turns out to be an event stream, which `store` leaves out.)
        let cacheable = prepared.download == nil && prepared.uploadFile == nil && prepared.form == nil
        if services.cache != nil, !cacheable {
            record.notes.append("cache not used: downloads, uploads from files and forms are not cached")
        }
        if let cache = services.cache, cacheable {
            if let problem = cache.problem { record.notes.append(problem) }
            plan = CachePlan(request: prepared, method: transfer.method, url: transfer.url, headers: composed.headers, body: transfer.body,
                             settings: config.cache, credentialHeaders: services.credentialHeaders)
        }
        if let plan, let cache = services.cache {
            record.cacheKey = String(plan.key.digest.prefix(12))
            if plan.ignored {
                record.cache.append(.ignored)
            } else if let entry = cache.entry(for: plan.key), entry.metadata.version == plan.version {
                let fresh = entry.isFresh(at: Date(), version: plan.version)
                switch plan.policy {
                case .cacheElseNetwork where fresh:
                    record.cache.append(.freshHit)
                    record.source = .cache
                    let info = openExchange(showing: composed, announced: true)
                    let concluded = await conclude(Outcome(info: info, composed: composed, result: nil, response: entry.response(requestID: info.id)),
                                                   request: prepared, record: &record)
                    publish(Outcome(info: info, composed: composed), concluded: concluded, record: record, final: true)
                    return nil
                case .cacheThenNetwork:
                    let info = openExchange(showing: composed, announced: true)
                    var provisionalRecord = record
                    provisionalRecord.cache.append(.provisionalHit)
                    provisionalRecord.source = .cache
                    let response = entry.response(requestID: info.id)
                    core.publishProvisional(FinishedExchange(info: info, composed: composed, result: nil, answer: response,
                                                             state: .succeeded, error: nil, record: provisionalRecord),
                                            response: response, callbacks: callbacks, lane: handle.lane)
                    record.cache.append(.provisionalHit)
                case .revalidate:
                    revalidating = entry
                    for header in CachePlan.conditionalHeaders(for: entry) { Self.replace(header, in: &transfer, &composed) }
                default:
                    record.cache.append(.stale)
                }
            } else {
                record.cache.append(.miss)
            }
        }
        let duplicatePolicy = prepared.duplicatePolicy ?? config.duplicates.policy
        if duplicatePolicy != .allow {
            let key = RequestKey(method: composed.method, url: transfer.url, headers: composed.headers, body: transfer.body,
                                 keyHeaders: config.duplicates.keyHeaders, credentialHeaders: services.credentialHeaders,
                                 isVolatileParam: { _ in false })
            switch services.duplicates.admit(key.text, id: handle.id, policy: duplicatePolicy) {
            case .lead:
                control.withLock { $0.leading = key.text }
            case .rejected(let leaderID):
                record.duplicate = "rejected: the same request is in flight as #\(leaderID)"
                deliverRefused(RequestError(.tooFrequent, "an identical request (#\(leaderID)) is still in flight"), composed: composed, record: record)
                return nil
            case .follow(let leaderID, let slot):
                record.duplicate = "coalesced with #\(leaderID)"
                let info = openExchange(showing: composed, announced: true)
                control.withLock { $0.following = key.text }
                let shared = await slot.value()
                let cancelled = control.withLock { control -> Bool in
                    control.following = nil
                    return control.cancelled
                }
                guard let shared, !cancelled else {
                    deliverCancelled(on: info, composed: composed, record: record)
                    return nil
                }
                var response = shared.response
                response?.requestID = info.id
                return Outcome(info: info, composed: composed, result: nil, response: response,
                               error: shared.transportError ?? statusError(of: response, for: prepared), cachePlan: plan)
            }
        }
        let prechecks = prepared.reachabilityPrecheck ?? config.reachability.precheck
        if prechecks, services.engine.mayUseProxy(for: transfer.url) {
            record.reachability = "not checked: a proxy may carry the request"
        } else if prechecks {
            let status = await services.reachability.verdict(for: transfer.url)
            record.reachability = status.rawValue
            guard !isCancelled else {
                deliverCancelled(on: nil, composed: composed, record: record)
                return nil
            }
            if status == .notReachable {
                deliverRefused(RequestError(.notReachable, "the host of \(ClippedText.quoted(composed.url)) is not reachable (reachability pre-check)"),
                               composed: composed, record: record)
                return nil
            }
        }
        return await transmit(transfer, composed: composed, prepared: prepared, plugins: plugins, revalidating: revalidating,
                              cachePlan: plan, record: &record)
    }

    /// The network attempts, with retries.
    private func transmit(_ transfer: TransferRequest, composed: ComposedRequest, prepared: Request, plugins: [any AgentPlugin],
                          revalidating: CacheEntry?, cachePlan: CachePlan?, record: inout PipelineRecord) async -> Outcome? {
        let policy = prepared.retry ?? config.retry
        var attempt = 0
        while true {
            attempt += 1
            let info = openExchange(showing: composed, announced: false)
            var signedTransfer = transfer
            var signedComposed = composed
            if let signerName = prepared.signer {
                do {
                    try sign(&signedTransfer, &signedComposed, with: signerName)
                    record.signer = signerName
                } catch {
                    core.announce(info)
                    deliverRefused(error, on: info, composed: composed, record: record)
                    return nil
                }
            }
            // The request's thread, unless a plugin turned cookies on: then the cookie thread.
            let lane = services.engine.lane(forExchangeUsingCookies: signedTransfer.usesCookies, preferred: handle.lane)
            guard claim(info.id, lane: lane) else {
                core.announce(info)
                // A retry cancelled just as its delay ended: its record lists it, as one cancelled
                // during the delay does.
                if attempt > 1 { Self.recordCancelled(attempt: attempt, id: info.id, reason: "cancelled before it went out", in: &record) }
                deliverCancelled(on: info, composed: signedComposed, record: record)
                return nil
            }
            for plugin in plugins { plugin.willSend(info) }
            let (result, stream) = await exchange(signedTransfer, lane: lane, composed: signedComposed, info: info, request: prepared)
            var verdict = Verdict(result: result, serializer: prepared.responseSerializer,
                                  acceptable: prepared.acceptableStatusCodes ?? config.acceptableStatusCodes)
            var response = AgentCore.response(to: info.id, from: result, value: verdict.value)
            var revalidated = false
            if result.statusCode == 304, result.error == nil, let revalidating {
                response = CachePlan.revalidated(revalidating, with: result.responseHeaders.fields).response(requestID: info.id)
                verdict.error = nil
                revalidated = true
                record.cache.append(.revalidated)
            }
            if prepared.reachabilityPrecheck ?? config.reachability.precheck, !services.engine.mayUseProxy(for: signedTransfer.url) {
                services.reachability.learn(from: signedTransfer.url, reached: response != nil ? true : (verdict.error?.isUnreachable == true ? false : nil))
            }
            let decision = policy?.decision(afterAttempt: attempt, method: prepared.method, status: response?.statusCode,
                                            error: verdict.error, retryAfter: result.responseHeader("Retry-After"))
                ?? .stop(verdict.error == nil ? "succeeded" : "no retry policy")
            let outcome = Outcome(info: info, composed: signedComposed, result: result, response: response, error: verdict.error,
                                  cachePlan: cachePlan, revalidated: revalidated, sentURL: transfer.url, stream: stream)
            if case .retry(let delay, let reason) = decision, !isCancelled {
                record.attempts.append(PipelineRecord.Attempt(
                    number: attempt, requestID: info.id, status: response?.statusCode, error: verdict.error?.kind.rawValue,
                    delayBeforeNextMilliseconds: delay.wholeMilliseconds, decision: reason))
                record.attempt = attempt
                publish(outcome, concluded: (response, verdict.error ?? RequestError(.unacceptableStatus, "retried: \(reason)", code: response?.statusCode)),
                        record: record, final: false)
                do {
                    try await Task.sleep(for: delay)
                } catch {
                    // The exchange that ends the request is the next attempt, cancelled before it
                    // went out; its record says so (found by a new user's trial: the log listed
                    // only the attempt before it).
                    let cancelled = openExchange(showing: composed, announced: true)
                    Self.recordCancelled(attempt: attempt + 1, id: cancelled.id, reason: "cancelled during the delay before it", in: &record)
                    deliverCancelled(on: cancelled, composed: composed, record: record)
                    return nil
                }
                continue
            }
            let reason: String = if case .stop(let reason) = decision { reason } else { "cancelled" }
            if policy != nil || attempt > 1 {
                record.attempts.append(PipelineRecord.Attempt(
                    number: attempt, requestID: info.id, status: response?.statusCode, error: verdict.error?.kind.rawValue,
                    delayBeforeNextMilliseconds: nil, decision: reason))
            }
            record.attempt = attempt
            return outcome
        }
    }

    /// Adds a retry that was cancelled before it went out to the request's attempts.
    private static func recordCancelled(attempt: Int, id: UInt64, reason: String, in record: inout PipelineRecord) {
        record.attempts.append(PipelineRecord.Attempt(number: attempt, requestID: id, status: nil, error: RequestError.Kind.cancelled.rawValue,
                                                      delayBeforeNextMilliseconds: nil, decision: reason))
        record.attempt = attempt
    }

    /// Registers one exchange with the transport (which announces it) and waits for its result,
    /// with what its stream carried. `lane` is the transfer thread it runs on.
    private func exchange(_ transfer: TransferRequest, lane: Int, composed: ComposedRequest, info: RequestInfo,
                          request: Request) async -> (TransferResult, StreamRecord?) {
        var transfer = transfer
        let observed = !core.observers.isEmpty
        transfer.reportsProgress = callbacks.progress != nil || callbacks.delegate != nil || observed
        transfer.capturesWire = callbacks.debug != nil || observed
        let slot = OneShot<(TransferResult, StreamRecord?)>()
        core.register(AgentCore.ActiveRequest(handle: handle, info: info, request: request, composed: composed, callbacks: callbacks,
                                              placement: placement, observed: observed, onFinish: { slot.fulfil(($0, $1)) }), lane: lane)
        services.engine.submit(transfer, id: info.id, lane: lane)
        return await slot.value()
    }

    // MARK: After the network

    /// Serialization of answers that did not come from this exchange's transfer, validation, the
    /// cache's store and the reformer, for a response that passed its status check.
    private func conclude(_ outcome: Outcome, request: Request, record: inout PipelineRecord) async -> (response: Response?, error: RequestError?) {
        guard var response = outcome.response, outcome.error == nil else { return (outcome.response, outcome.error) }
        if outcome.result == nil || outcome.revalidated {
            switch Verdict.serialized(response.body, as: request.responseSerializer) {
            case .success(let value): response.value = value ?? response.value
            case .failure(let failure): return (response, failure)
            }
        }
        if case .data = response.value, request.responseSerializer == .automatic {
            response.value = Verdict.automaticValue(of: response, serializer: .automatic)
        }
        // An unsafe method's answer made stale what the cache holds of its URL, whatever the
        // checks below make of it: the server took the request.
        let storable = outcome.cachePlan != nil
        if !storable { store(response, outcome: outcome, request: request, record: &record) }
        var validation = request.validation
        if validation.business == nil { validation.business = config.businessValidator }
        let (checks, failure, captured) = validation.run(on: response)
        record.checks += checks
        response.captured = captured
        if let failure { return (response, failure) }
        if storable { store(response, outcome: outcome, request: request, record: &record) }
        if let reformer = request.reformer {
            record.checks.append(reformer.name)
            do {
                response.reformed = try reformer.transform(response)
            } catch {
                return (response, RequestError(.reformFailed, "\(reformer.name) failed: \(error)"))
            }
        }
        return (response, nil)
    }

    /// Stores a network answer under the key it was looked up by (a revalidated entry again, with
    /// a new lifetime), or forgets what an unsafe method made stale.
    private func store(_ response: Response, outcome: Outcome, request: Request, record: inout PipelineRecord) {
        guard outcome.result != nil, let cache = services.cache else { return }
        guard let plan = outcome.cachePlan else {
            if !CachePlan.isCacheable(outcome.composed.method), (200..<400).contains(response.statusCode) {
                for key in CachePlan.invalidatedKeys(url: outcome.sentURL, headers: outcome.composed.headers, settings: config.cache,
                                                     credentialHeaders: services.credentialHeaders) {
                    cache.remove(key)
                }
                record.cache.append(.invalidated)
            }
            return
        }
        guard !plan.ignored else { return }
        if EventStreamResponse.matches(status: response.statusCode, contentType: response.headers["Content-Type"]) {
            // An event stream: its events went to the caller as they came, with no body kept
            // (one that closed before any event kept nothing either: not an answer to replay).
            record.notes.append("not stored in the cache: an event stream's events are not kept as a body")
            return
        }
        if let entry = plan.entry(for: response) {
            let stored = cache.store(entry, for: plan.key)
            if !stored { record.cache.append(.storeFailed) } else if !outcome.revalidated { record.cache.append(.stored) }
        } else if (200..<300).contains(response.statusCode) {
            record.cache.append(.notStored)
        }
    }

    /// Hands the requests coalesced onto this one their answer, once; the fingerprint is free again.
    private func share(response: Response?, transportError: RequestError?) {
        guard let leading = control.withLock({ control -> String? in
            defer { control.leading = nil }
            return control.leading
        }) else { return }
        services.duplicates.finish(leading, leaderID: handle.id,
                                   outcome: SharedOutcome(leaderID: handle.id, response: response, transportError: transportError))
    }

    /// `unacceptableStatus` when a shared response's status is outside this request's range.
    private func statusError(of response: Response?, for request: Request) -> RequestError? {
        guard let response else { return RequestError(.emptyResponse, "the request this one was coalesced onto got no response") }
        guard !(request.acceptableStatusCodes ?? config.acceptableStatusCodes).contains(response.statusCode) else { return nil }
        return RequestError(.unacceptableStatus, "server answered \(response.statusLine)", code: response.statusCode)
    }

    // MARK: Answers without the network

    private func answer(with fixture: MockFixture, request: Request, composed: ComposedRequest, record: PipelineRecord) async {
        let info = openExchange(showing: composed, announced: true)
        guard claim(info.id, lane: handle.lane) else { return deliverCancelled(on: info, composed: composed, record: record) }
        if fixture.delay > .zero {
            do { try await Task.sleep(for: fixture.delay) } catch {
                return deliverCancelled(on: info, composed: composed, record: record)
            }
        }
        var body = fixture.body
        if let file = fixture.bodyFile {
            guard let contents = FileManager.default.contents(atPath: file) else {
                return deliverRefused(RequestError(.mockFailed, "mock fixture body file \(file.debugDescription) cannot be read"),
                                      on: info, composed: composed, record: record)
            }
            body = contents
        }
        let statusLine = "HTTP/1.1 \(fixture.status) \(fixture.status < 400 ? "OK" : "Mocked")"
        let response = Response(requestID: info.id, statusCode: fixture.status, statusLine: statusLine, httpVersion: "1.1",
                                headers: HTTPHeaders(fixture.headers), body: body, value: .data(body), url: composed.url, source: .fixture)
        var record = record
        let concluded = await conclude(Outcome(info: info, composed: composed, result: nil, response: response,
                                               error: statusError(of: response, for: request)), request: request, record: &record)
        publish(Outcome(info: info, composed: composed), concluded: concluded, record: record, final: true)
    }

    // MARK: Exchanges and delivery

    /// Opens the request's next exchange: the first keeps the handle's id, later ones get fresh
    /// ids. Announced here unless the transport will announce it (`register`).
    private func openExchange(showing composed: ComposedRequest?, announced: Bool) -> RequestInfo {
        let count = control.withLock { control -> Int in
            control.exchangeCount += 1
            return control.exchangeCount
        }
        var info = baseInfo
        info.id = count == 1 ? handle.id : services.makeID()
        info.attempt = count
        info.firstExchangeID = count == 1 ? nil : handle.id
        // A later exchange starts now, not when the request did: a HAR file or a log lists each
        // attempt at its own time.
        if count > 1 { info.startedAt = Date() }
        if let composed { info.url = RedactionPolicy.hidingPasswords(in: composed.url, sentWith: composed.headers) }
        if announced { core.announce(info) }
        return info
    }

    /// Makes `exchange` the one a cancel aborts; false when the request was cancelled already.
    private func claim(_ exchange: UInt64, lane: Int) -> Bool {
        control.withLock { control in
            guard !control.cancelled else { return false }
            control.currentExchange = (exchange, lane)
            return true
        }
    }

    /// Publishes a round's exchange with its conclusion; `final` also answers the caller.
    private func publish(_ outcome: Outcome, concluded: (response: Response?, error: RequestError?), record: PipelineRecord, final: Bool) {
        let error = concluded.error
        let state: RequestState = error == nil ? .succeeded : (error?.kind == .cancelled ? .cancelled : .failed)
        var response = concluded.response
        response?.requestID = outcome.info.id
        core.publish(FinishedExchange(info: outcome.info, composed: outcome.composed, result: outcome.result,
                                      answer: outcome.result == nil ? response : nil, state: final ? state : (error == nil ? .succeeded : .failed),
                                      error: error, record: record, stream: outcome.stream),
                     final: final ? PipelineDelivery(handle: handle, response: response, callbacks: callbacks) : nil)
    }

    /// Ends the request with `error` before or instead of the network, on `info` or a new exchange.
    private func deliverRefused(_ error: RequestError, on info: RequestInfo? = nil, composed: ComposedRequest?, record: PipelineRecord) {
        share(response: nil, transportError: error)
        let info = info ?? openExchange(showing: composed, announced: true)
        core.publish(FinishedExchange(info: info, composed: composed, result: nil, answer: nil,
                                      state: error.kind == .cancelled ? .cancelled : .failed, error: error, record: record),
                     final: PipelineDelivery(handle: handle, response: nil, callbacks: callbacks))
    }

    /// Ends the request as cancelled, on `info` or a new exchange.
    private func deliverCancelled(on info: RequestInfo?, composed: ComposedRequest?, record: PipelineRecord) {
        deliverRefused(RequestError(.cancelled, "stopped by the caller"), on: info, composed: composed, record: record)
    }

    /// Sets a header the agent adds after composing, in what is sent and in what is recorded
    /// alike, replacing any of the same name.
    private static func replace(_ header: HeaderField, in transfer: inout TransferRequest, _ composed: inout ComposedRequest) {
        transfer.headers.removeAll { $0.name.caseInsensitiveCompare(header.name) == .orderedSame }
        transfer.headers.append((header.name, header.value))
        composed.headers.removeAll { $0.name.caseInsensitiveCompare(header.name) == .orderedSame }
        composed.headers.append(header)
    }

    private func mockAction(for request: Request, url: String) -> (String, MockAction)? {
        guard config.mocks.enabled else { return nil }
        if let action = request.mock { return ("request's own mock", action) }
        return config.mocks.action(method: request.method.rawValue, url: url)
    }

    /// Runs the request's signer on what will be sent and adds what it returns. The headers it
    /// adds are credentials: a redirect to another origin drops them.
    private func sign(_ transfer: inout TransferRequest, _ composed: inout ComposedRequest, with name: String) throws(RequestError) {
        guard let signer = config.signers[name] else {
            throw RequestError(.signingFailed, "no signer named \(name.debugDescription) is registered")
        }
        let input = SigningInput(method: transfer.method, url: transfer.url,
                                 headers: transfer.headers.map { HeaderField(name: $0.name, value: $0.value) }, body: transfer.body ?? Data())
        let output: SigningOutput
        do { output = try signer.sign(input) } catch { throw RequestError(.signingFailed, "signer \(name.debugDescription) failed: \(error)") }
        try HTTPHeaders(output.headers).validate()
        for header in output.headers {
            Self.replace(header, in: &transfer, &composed)
            transfer.originBoundHeaderNames.append(header.name)
        }
        if !output.queryParams.isEmpty {
            transfer.url = URLText.appendingQuery(output.queryParams.percentEncoded, to: transfer.url)
            composed.url = URLPassword.masking(in: transfer.url)
        }
        // What it added must still fit in a request head, as the composer checked before it.
        try RequestComposer.checkHeadSize(method: transfer.method, url: transfer.url,
                                          fieldBytes: RequestHeadLimit.size(of: transfer.headers.lazy.map { HeaderField(name: $0.name, value: $0.value) }))
    }
}
