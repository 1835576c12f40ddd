import CurlewLocking
import CurlewTransport
import Foundation

/// One request through the middle layer, from filters to delivery: dynamic domain, URL filters,
/// plugins, mocks, signing, cache, duplicate detection, reachability, attempts with retry,
/// validation and the reformer. It runs as a task, off the transfer thread and the callback
/// queue; every network try is an exchange of its own, published with its attempt number, and
/// the last one carries the whole pipeline record.
final class PipelineRun: Sendable {
    private struct Control {
        var cancelled = false
        var currentExchange: UInt64?
        var task: Task<Void, Never>?
        /// The fingerprint this request leads or follows under duplicate detection.
        var leading: String?
        var following: String?
    }

    /// What a finished attempt left for the conclusion.
    private struct Outcome {
        var info: RequestInfo
        var composed: ComposedRequest
        var result: TransferResult?
        var response: Response?
        var error: RequestError?
        /// The cache key the request was looked up under, to store the answer under.
        var cacheKey: RequestKey?
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

    /// Cancels the request wherever it is. A request others are coalesced onto ends for its caller
    /// at once but keeps its transfer running for them.
    func cancel() {
        let (exchange, task, leading, following) = control.withLock { control in
            control.cancelled = true
            return (control.currentExchange, control.task, control.leading, control.following)
        }
        if let following {
            services.duplicates.withdraw(following, followerID: handle.id)
            return
        }
        if let leading, services.duplicates.hasFollowers(leading, leaderID: handle.id) {
            publishCancelled(info: exchangeInfo(id: exchange ?? handle.id, attempt: 1), composed: nil,
                             record: PipelineRecord(duplicate: "cancelled; the transfer goes on for the requests coalesced onto it"))
            return
        }
        task?.cancel()
        if let exchange { services.engine.cancel(id: exchange) }
    }

    private var isCancelled: Bool { control.withLock { $0.cancelled } }

    // MARK: The flow

    private func execute() async {
        var record = PipelineRecord()
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
        var exchangeCount = 0
        while true {
            var prepared = request
            for plugin in plugins { prepared = plugin.prepare(prepared) }
            guard let outcome = await send(prepared, plugins: plugins, record: &record, exchangeCount: &exchangeCount) else { return }
            // The leader's raw outcome goes to the requests coalesced onto it before its own checks.
            shareWithFollowers(outcome)
            var concluded = await conclude(outcome, request: prepared, record: &record)
            let pluginOutcome = PluginOutcome(response: concluded.response, error: concluded.error)
            for plugin in plugins { plugin.didReceive(pluginOutcome, for: outcome.info) }
            var decision = PluginDecision.deliver(pluginOutcome)
            for plugin in plugins {
                guard case .deliver(let current) = decision else { break }
                decision = await plugin.process(current, for: outcome.info, replays: replays)
            }
            switch decision {
            case .replay(let reason) where replays < config.maxReplays && !isCancelled:
                replays += 1
                record.notes.append("replay \(replays): \(reason)")
                publishIntermediate(outcome, record: record, error: concluded.error ?? RequestError(.other, "replayed by a plugin"))
                continue
            case .replay(let reason):
                record.notes.append("replay refused after \(replays): \(reason)")
            case .deliver(let changed):
                concluded.response = changed.response
                concluded.error = changed.error
            }
            let state: RequestState = concluded.error == nil ? .succeeded : (concluded.error?.kind == .cancelled ? .cancelled : .failed)
            var finalResponse = concluded.response
            finalResponse?.requestID = outcome.info.id
            core.publish(FinishedExchange(info: outcome.info, composed: outcome.composed, result: outcome.result,
                                          answer: outcome.result == nil ? concluded.response.map(core.snapshot(of:)) : nil,
                                          state: state, error: concluded.error, record: record),
                         final: PipelineDelivery(handle: handle, response: finalResponse, callbacks: callbacks))
            return
        }
    }

    /// Composes, mocks, consults the cache and duplicate detection, checks reachability and sends
    /// with retries. Nil when the request was delivered on the way (refused, answered from the
    /// cache or a fixture, rejected, cancelled).
    private func send(_ prepared: Request, plugins: [any AgentPlugin], record: inout PipelineRecord, exchangeCount: inout Int) async -> Outcome? {
        var transfer: TransferRequest
        var composed: ComposedRequest
        do {
            (transfer, composed) = try services.composer.compose(prepared)
        } catch {
            deliverRefused(error, info: baseInfo, composed: nil, record: record)
            return nil
        }
        if let (rule, action) = mockAction(for: prepared, url: transfer.url) {
            switch action {
            case .redirect:
                guard let target = config.mocks.redirected(transfer.url) else {
                    deliverRefused(RequestError(.mockFailed, "mock rule \(rule.debugDescription) redirects, but no mockBaseURL is set"),
                                   info: baseInfo, composed: composed, record: record)
                    return nil
                }
                transfer.url = target
                composed.url = URLPassword.masking(in: target)
                record.mock = "redirected to \(composed.url) by rule \(rule)"
            case .fixture(let fixture):
                record.mock = "fixture for rule \(rule)"
                record.source = .fixture
                await answer(with: fixture, request: prepared, composed: composed, exchangeCount: &exchangeCount, record: record)
                return nil
            }
        }
        var revalidating: CacheEntry?
        let plan = services.cache.flatMap {
            _ in CachePlan(request: prepared, composed: composed, body: transfer.body, settings: config.cache, cacheExists: true)
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
                    exchangeCount += 1
                    let info = exchangeInfo(id: nextExchangeID(exchangeCount), attempt: exchangeCount, url: composed.url)
                    core.announce(info)
                    let response = entry.response(requestID: info.id)
                    let concluded = await conclude(Outcome(info: info, composed: composed, result: nil, response: response, error: nil),
                                                   request: prepared, record: &record)
                    deliverAnswer(concluded, info: info, composed: composed, record: record)
                    return nil
                case .cacheThenNetwork:
                    exchangeCount += 1
                    let info = exchangeInfo(id: nextExchangeID(exchangeCount), attempt: exchangeCount, url: composed.url)
                    core.announce(info)
                    var provisionalRecord = record
                    provisionalRecord.cache.append(.provisionalHit)
                    provisionalRecord.source = .cache
                    let response = entry.response(requestID: info.id)
                    core.publishProvisional(FinishedExchange(info: info, composed: composed, result: nil, answer: core.snapshot(of: response),
                                                             state: .succeeded, error: nil, record: provisionalRecord),
                                            response: response, callbacks: callbacks)
                    record.cache.append(.provisionalHit)
                case .revalidate:
                    revalidating = entry
                    for header in CachePlan.conditionalHeaders(for: entry) {
                        transfer.headers.removeAll { $0.name.caseInsensitiveCompare(header.name) == .orderedSame }
                        transfer.headers.append((header.name, header.value))
                        composed.headers.append(header)
                    }
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
                                 keyHeaders: config.duplicates.keyHeaders, isVolatileParam: { _ in false })
            switch services.duplicates.admit(key.text, id: handle.id, policy: duplicatePolicy) {
            case .lead:
                control.withLock { $0.leading = key.text }
            case .rejected(let leaderID):
                record.duplicate = "rejected: the same request is in flight as #\(leaderID)"
                deliverRefused(RequestError(.tooFrequent, "an identical request (#\(leaderID)) is still in flight"),
                               info: baseInfo, composed: composed, record: record)
                return nil
            case .follow(let leaderID, let slot):
                record.duplicate = "coalesced with #\(leaderID)"
                control.withLock { $0.following = key.text }
                exchangeCount += 1
                let info = exchangeInfo(id: nextExchangeID(exchangeCount), attempt: exchangeCount, url: composed.url)
                core.announce(info)
                guard let shared = await slot.value() else {
                    deliverCancelled(info: info, composed: composed, record: record)
                    return nil
                }
                var response = shared.response
                response?.requestID = info.id
                return Outcome(info: info, composed: composed, result: nil, response: response, error: shared.error)
            }
        }
        if prepared.reachabilityPrecheck ?? config.reachability.precheck {
            let status = await services.reachability.verdict(for: transfer.url)
            record.reachability = status.rawValue
            if status == .notReachable {
                deliverRefused(RequestError(.notReachable, "the host of \(composed.url) is not reachable (reachability pre-check)"),
                               info: baseInfo, composed: composed, record: record)
                return nil
            }
        }
        return await transmit(transfer, composed: composed, prepared: prepared, plugins: plugins, revalidating: revalidating,
                              cacheKey: plan?.key, record: &record, exchangeCount: &exchangeCount)
    }

    /// The network attempts, with retries.
    private func transmit(_ transfer: TransferRequest, composed: ComposedRequest, prepared: Request, plugins: [any AgentPlugin],
                          revalidating: CacheEntry?, cacheKey: RequestKey?, record: inout PipelineRecord, exchangeCount: inout Int) async -> Outcome? {
        let policy = prepared.retry ?? config.retry
        var attempt = 0
        while true {
            attempt += 1
            exchangeCount += 1
            let info = exchangeInfo(id: nextExchangeID(exchangeCount), attempt: exchangeCount, url: composed.url)
            var signedTransfer = transfer
            var signedComposed = composed
            if let signerName = prepared.signer {
                do {
                    try sign(&signedTransfer, &signedComposed, with: signerName)
                    record.signer = signerName
                } catch {
                    deliverRefused(error, info: info, composed: composed, record: record)
                    return nil
                }
            }
            guard control.withLock({ control -> Bool in
                guard !control.cancelled else { return false }
                control.currentExchange = info.id
                return true
            }) else {
                deliverCancelled(info: info, composed: signedComposed, record: record)
                return nil
            }
            for plugin in plugins { plugin.willSend(info) }
            let result = await exchange(signedTransfer, composed: signedComposed, info: info, request: prepared)
            var verdict = Verdict(result: result, request: prepared, acceptable: config.acceptableStatusCodes)
            var response = AgentCore.response(to: info.id, from: result, headers: result.fieldHeaders, value: verdict.value)
            if result.statusCode == 304, let revalidating, result.error == nil {
                response = revalidating.response(requestID: info.id)
                verdict.error = nil
                record.cache.append(.revalidated)
            }
            if prepared.reachabilityPrecheck ?? config.reachability.precheck {
                services.reachability.learn(from: signedTransfer.url, reached: response != nil ? true : (verdict.error?.isUnreachable == true ? false : nil))
            }
            let decision = policy?.decision(afterAttempt: attempt, method: prepared.method, status: response?.statusCode,
                                            error: verdict.error, retryAfter: result.responseHeader("Retry-After"))
                ?? .stop(verdict.error == nil ? "succeeded" : "no retry policy")
            switch decision {
            case .retry(let delay, let reason) where !isCancelled:
                record.attempts.append(PipelineRecord.Attempt(
                    number: attempt, requestID: info.id, status: response?.statusCode, error: verdict.error?.kind.rawValue,
                    delayBeforeNextMilliseconds: delay.wholeMilliseconds, decision: reason))
                record.attempt = attempt
                publishIntermediate(Outcome(info: info, composed: signedComposed, result: result, response: response, error: verdict.error),
                                    record: record, error: verdict.error ?? RequestError(.unacceptableStatus, "retried", code: response?.statusCode))
                do {
                    try await Task.sleep(for: delay)
                } catch {
                    deliverCancelled(info: info, composed: signedComposed, record: record)
                    return nil
                }
            case .retry, .stop:
                let reason: String = if case .stop(let reason) = decision { reason } else { "cancelled" }
                if policy != nil || attempt > 1 {
                    record.attempts.append(PipelineRecord.Attempt(
                        number: attempt, requestID: info.id, status: response?.statusCode, error: verdict.error?.kind.rawValue,
                        delayBeforeNextMilliseconds: nil, decision: reason))
                }
                record.attempt = attempt
                return Outcome(info: info, composed: signedComposed, result: result, response: response, error: verdict.error, cacheKey: cacheKey)
            }
        }
    }

    /// Registers one exchange with the transport and waits for its result.
    private func exchange(_ transfer: TransferRequest, composed: ComposedRequest, info: RequestInfo, request: Request) async -> TransferResult {
        var transfer = transfer
        let observed = !core.observers.isEmpty
        transfer.reportsProgress = callbacks.progress != nil || callbacks.delegate != nil || observed
        transfer.capturesWire = callbacks.debug != nil || observed
        let slot = OneShot<TransferResult>()
        core.register(AgentCore.ActiveRequest(handle: handle, info: info, request: request, composed: composed, callbacks: callbacks,
                                              placement: placement, onFinish: { slot.fulfil($0) }))
        services.engine.submit(transfer, id: info.id)
        return await slot.value()
    }

    // MARK: After the network

    /// Validation, the cache's store and the reformer, for a response that passed its status check.
    private func conclude(_ outcome: Outcome, request: Request, record: inout PipelineRecord) async -> (response: Response?, error: RequestError?) {
        guard var response = outcome.response, outcome.error == nil else { return (outcome.response, outcome.error) }
        if case .data = response.value, request.responseSerializer == .automatic {
            response.value = Verdict.automaticValue(of: response, serializer: .automatic)
        }
        var validation = request.validation
        if validation.business == nil { validation.business = config.businessValidator }
        let (checks, failure) = validation.run(on: response)
        record.checks += checks
        if let failure { return (response, failure) }
        // Stored under the key it was looked up by (before signing and conditional headers); a
        // revalidated entry is stored again with a new lifetime.
        if outcome.result != nil, let key = outcome.cacheKey, let cache = services.cache,
           let plan = CachePlan(request: request, composed: outcome.composed, body: nil, settings: config.cache, cacheExists: true),
           !plan.ignored {
            if let entry = plan.entry(for: response) {
                cache.store(entry, for: key)
                if !record.cache.contains(.revalidated) { record.cache.append(.stored) }
            } else if (200..<300).contains(response.statusCode) {
                record.cache.append(.notStored)
            }
        }
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

    private func shareWithFollowers(_ outcome: Outcome) {
        share(response: outcome.response, error: outcome.error)
    }

    /// Hands the requests coalesced onto this one their outcome, once; the fingerprint is free again.
    private func share(response: Response?, error: RequestError?) {
        guard let leading = control.withLock({ control -> String? in
            defer { control.leading = nil }
            return control.leading
        }) else { return }
        services.duplicates.finish(leading, leaderID: handle.id, outcome: SharedOutcome(
            leaderID: handle.id, response: response, snapshot: nil, error: error))
    }

    // MARK: Answers without the network

    private func answer(with fixture: MockFixture, request: Request, composed: ComposedRequest, exchangeCount: inout Int, record: PipelineRecord) async {
        exchangeCount += 1
        let info = exchangeInfo(id: nextExchangeID(exchangeCount), attempt: exchangeCount, url: composed.url)
        core.announce(info)
        guard control.withLock({ control -> Bool in
            guard !control.cancelled else { return false }
            control.currentExchange = info.id
            return true
        }) else {
            deliverCancelled(info: info, composed: composed, record: record)
            return
        }
        if fixture.delay > .zero {
            do { try await Task.sleep(for: fixture.delay) } catch {
                deliverCancelled(info: info, composed: composed, record: record)
                return
            }
        }
        var body = fixture.body
        if let file = fixture.bodyFile {
            guard let contents = FileManager.default.contents(atPath: file) else {
                deliverRefused(RequestError(.mockFailed, "mock fixture body file \(file.debugDescription) cannot be read"),
                               info: info, composed: composed, record: record)
                return
            }
            body = contents
        }
        let statusLine = "HTTP/1.1 \(fixture.status) \(fixture.status < 400 ? "OK" : "Mocked")"
        let response = Response(requestID: info.id, statusCode: fixture.status, statusLine: statusLine, httpVersion: "1.1",
                                headers: HTTPHeaders(fixture.headers), body: body, value: .data(body), url: composed.url, source: .fixture)
        var record = record
        let acceptable = request.acceptableStatusCodes ?? config.acceptableStatusCodes
        var concluded: (response: Response?, error: RequestError?)
        if acceptable.contains(fixture.status) {
            concluded = await conclude(Outcome(info: info, composed: composed, result: nil, response: response, error: nil), request: request, record: &record)
        } else {
            concluded = (response, RequestError(.unacceptableStatus, "mock fixture answered \(statusLine)", code: fixture.status))
        }
        deliverAnswer(concluded, info: info, composed: composed, record: record)
    }

    private func deliverAnswer(_ concluded: (response: Response?, error: RequestError?), info: RequestInfo, composed: ComposedRequest,
                               record: PipelineRecord) {
        let state: RequestState = concluded.error == nil ? .succeeded : .failed
        core.publish(FinishedExchange(info: info, composed: composed, result: nil, answer: concluded.response.map(core.snapshot(of:)),
                                      state: state, error: concluded.error, record: record),
                     final: PipelineDelivery(handle: handle, response: concluded.response, callbacks: callbacks))
    }

    // MARK: Delivery helpers

    private func deliverRefused(_ error: RequestError, info: RequestInfo, composed: ComposedRequest?, record: PipelineRecord) {
        share(response: nil, error: error)
        core.announce(info)
        core.publish(FinishedExchange(info: info, composed: composed, result: nil, answer: nil,
                                      state: error.kind == .cancelled ? .cancelled : .failed, error: error, record: record),
                     final: PipelineDelivery(handle: handle, response: nil, callbacks: callbacks))
    }

    private func deliverCancelled(info: RequestInfo, composed: ComposedRequest?, record: PipelineRecord) {
        share(response: nil, error: RequestError(.cancelled, "the request this one was coalesced onto was cancelled before it was sent"))
        publishCancelled(info: info, composed: composed, record: record)
    }

    private func publishCancelled(info: RequestInfo, composed: ComposedRequest?, record: PipelineRecord) {
        core.publish(FinishedExchange(info: info, composed: composed, result: nil, answer: nil, state: .cancelled,
                                      error: RequestError(.cancelled, "cancelled"), record: record),
                     final: PipelineDelivery(handle: handle, response: nil, callbacks: callbacks))
    }

    /// An attempt that is not the last (retried or replayed): observers see it; callbacks do not.
    private func publishIntermediate(_ outcome: Outcome, record: PipelineRecord, error: RequestError) {
        core.publish(FinishedExchange(info: outcome.info, composed: outcome.composed, result: outcome.result,
                                      answer: outcome.result == nil ? outcome.response.map(core.snapshot(of:)) : nil,
                                      state: .failed, error: error, record: record), final: nil)
    }

    private func mockAction(for request: Request, url: String) -> (String, MockAction)? {
        guard config.mocks.enabled else { return nil }
        if let action = request.mock { return ("request's own mock", action) }
        return config.mocks.action(method: request.method.rawValue, url: url)
    }

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
            transfer.headers.removeAll { $0.name.caseInsensitiveCompare(header.name) == .orderedSame }
            transfer.headers.append((header.name, header.value))
            composed.headers.removeAll { $0.name.caseInsensitiveCompare(header.name) == .orderedSame }
            composed.headers.append(header)
        }
        if !output.queryParams.isEmpty {
            let query = output.queryParams.percentEncoded
            let (beforeFragment, fragment) = transfer.url.firstIndex(of: "#").map { (String(transfer.url[..<$0]), String(transfer.url[$0...])) } ?? (transfer.url, "")
            transfer.url = beforeFragment + (beforeFragment.contains("?") ? "&" : "?") + query + fragment
            composed.url = URLPassword.masking(in: transfer.url)
        }
    }

    // MARK: Identity

    /// The first exchange keeps the handle's id; later ones get fresh ids.
    private func nextExchangeID(_ count: Int) -> UInt64 {
        count == 1 ? handle.id : services.makeID()
    }

    private func exchangeInfo(id: UInt64, attempt: Int, url: String? = nil) -> RequestInfo {
        var info = baseInfo
        if let url { info.url = url }
        info.id = id
        info.attempt = attempt
        info.firstExchangeID = id == handle.id ? nil : handle.id
        return info
    }
}
