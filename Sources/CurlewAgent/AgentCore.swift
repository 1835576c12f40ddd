import CurlewTransport
import Foundation
import CurlewLocking

/// Where a request sits inside a group, for requests started by a group.
struct RequestPlacement: Sendable {
    var group: GroupInfo
    var index: Int
    var label: String
}

/// What one reaction of the agent produced: events for the observers and closures for the
/// callback queue, handed over together.
struct DeliveryBatch {
    var events: [ObserverEvent] = []
    var callbacks: [@Sendable () -> Void] = []
}

/// The agent's bookkeeping of live requests and its reaction to transport events.
///
/// `handle(_:)` runs on the transfer thread (or on the thread that cancelled a request libcurl had
/// not taken yet): it updates state, builds the debug messages and hands everything, through the
/// one publisher lock, to the observer lanes and the callback queue. It never waits on either.
final class AgentCore: Sendable {
    struct ActiveRequest: Sendable {
        let handle: RequestHandle
        let info: RequestInfo
        let request: Request
        let composed: ComposedRequest
        let callbacks: RequestCallbacks
        let placement: RequestPlacement?
    }

    let config: NetworkConfig
    let observers = ObserverHub()
    private let active = Locked<[UInt64: ActiveRequest]>([:])
    /// The one publisher: every observer event and callback leaves the agent inside this lock,
    /// from whatever thread produced it (the transfer thread, a caller cancelling a request that
    /// never started, a group runner). It holds the `willSend` events of registered requests,
    /// which go out ahead of whatever is published next, so per-request order (announced, sent,
    /// finished) holds by construction rather than by timing.
    private let publisher = Locked<[ObserverEvent]>([])
    private let callbackQueueLabel: String

    init(config: NetworkConfig) {
        self.config = config
        self.callbackQueueLabel = config.callbackQueue.label
    }

    var activeIDs: [UInt64] {
        active.withLock { Array($0.keys) }
    }

    /// Records a composed request as pending and announces it. Call before submitting it.
    ///
    /// Observers hear the announcement with the transport's next events (it is queued here and
    /// goes out first in the next batch), so starting many requests costs no hand-over per request.
    func register(_ entry: ActiveRequest) {
        _ = entry.handle.transition(to: .pending)
        active.withLock { $0[entry.info.id] = entry }
        if !observers.isEmpty {
            publisher.withLock { $0.append(.willSend(entry.info)) }
        }
        if let delegate = entry.callbacks.delegate {
            let handle = entry.handle
            config.callbackQueue.async { delegate.requestWillBeSent(handle) }
        }
    }

    /// Announces a request held before sending (behind a priority-first gate).
    func announceWaiting(handle: RequestHandle, info: RequestInfo, placement: RequestPlacement?) {
        _ = handle.transition(to: .pending)
        var batch = DeliveryBatch()
        batch.events.append(.waiting(info, .gated))
        appendMemberUpdate(placement, state: .pending, requestID: info.id, waitReason: .gated, to: &batch)
        dispatch(batch)
    }

    /// For a request that belongs to a group, the matching member update.
    private func appendMemberUpdate(_ placement: RequestPlacement?, state: RequestState, requestID: UInt64,
                                    waitReason: WaitReason? = nil, progress: RequestProgress? = nil, to batch: inout DeliveryBatch) {
        guard let placement else { return }
        batch.events.append(.group(.memberChanged(placement.group, MemberUpdate(
            index: placement.index, label: placement.label, state: state, waitReason: waitReason,
            requestID: requestID, progress: progress))))
    }

    /// Ends a request that never reached the transport: refused (bad URL, header injection) or
    /// cancelled while waiting.
    func reject(handle: RequestHandle, info: RequestInfo, error: RequestError, callbacks: RequestCallbacks) {
        let state: RequestState = error.kind == .cancelled ? .cancelled : .failed
        guard handle.transition(to: state) else { return }
        let message = DebugMessage(
            requestID: info.id, name: info.name, groupID: info.groupID, step: info.step, state: state,
            startedAt: info.startedAt, original: Self.asTyped(info), sent: nil, response: nil, error: error,
            timings: nil, connection: nil, callbackQueue: callbackQueueLabel
        )
        var batch = DeliveryBatch()
        deliver(message: message, info: info, state: state, handle: handle, response: nil, error: error, callbacks: callbacks, to: &batch)
        dispatch(batch)
    }

    /// What a request that was never composed asked for: its method and URL as typed, so every
    /// view of it (Live, the log, the CLI) shows what the user wrote rather than nothing.
    private static func asTyped(_ info: RequestInfo) -> ComposedRequest {
        ComposedRequest(method: info.method, url: URLPassword.masking(in: info.url), headers: [], params: .null, body: nil, timeoutMilliseconds: 0)
    }

    /// Reacts to one turn of the transfer loop. Observers and the callback queue receive the
    /// turn's work together: one hand-over each, however many requests finished.
    func handle(_ events: [TransferEvent]) {
        var batch = DeliveryBatch()
        for event in events { handle(event, into: &batch) }
        dispatch(batch)
    }

    private func handle(_ event: TransferEvent, into batch: inout DeliveryBatch) {
        switch event {
        case .started(let id):
            guard let entry = active.withLock({ $0[id] }), entry.handle.transition(to: .inFlight) else { return }
            batch.events.append(.didSend(entry.info))
            appendMemberUpdate(entry.placement, state: .inFlight, requestID: id, to: &batch)
            if let delegate = entry.callbacks.delegate {
                let handle = entry.handle
                batch.callbacks.append { delegate.requestDidSend(handle) }
            }
        case .progress(let id, let progress):
            guard let entry = active.withLock({ $0[id] }) else { return }
            batch.events.append(.progress(entry.info, progress))
            appendMemberUpdate(entry.placement, state: .inFlight, requestID: id, progress: progress, to: &batch)
            let callbacks = entry.callbacks
            if callbacks.progress != nil || callbacks.delegate != nil {
                let handle = entry.handle
                batch.callbacks.append {
                    callbacks.progress?(progress)
                    callbacks.delegate?.request(handle, didProgress: progress)
                }
            }
        case .finished(let result):
            guard let entry = active.withLock({ $0.removeValue(forKey: result.id) }) else { return }
            finish(entry, result: result, into: &batch)
        }
    }

    private func finish(_ entry: ActiveRequest, result: TransferResult, into batch: inout DeliveryBatch) {
        let verdict = Verdict(result: result, request: entry.request)
        guard entry.handle.transition(to: verdict.state) else { return }
        let info = entry.info
        let responseHeaders = result.responseHeaders.map { HeaderField(name: $0.name, value: $0.value) }
        let response = result.statusLine.isEmpty ? nil : Response(
            requestID: info.id, statusCode: result.statusCode, statusLine: result.statusLine,
            httpVersion: result.connection.httpVersion, headers: HTTPHeaders(responseHeaders), body: result.responseBody,
            value: verdict.value ?? .data(result.responseBody), url: result.connection.effectiveURL
        )
        // The debug message is the largest thing built per request; skip it when nobody reads it.
        let message = observers.isEmpty && entry.callbacks.debug == nil
            ? nil : debugMessage(entry, result: result, verdict: verdict, responseHeaders: responseHeaders)
        deliver(message: message, info: info, state: verdict.state, handle: entry.handle, response: response, error: verdict.error,
                callbacks: entry.callbacks, lazilyReadAs: verdict.value == nil ? entry.request.responseSerializer : nil, to: &batch)
    }

    private func debugMessage(_ entry: ActiveRequest, result: TransferResult, verdict: Verdict, responseHeaders: [HeaderField]) -> DebugMessage {
        let limit = config.debugBodyLimit
        let contentType = result.responseHeader("Content-Type")
        let sent = result.requestHead.isEmpty ? nil : WireRequest(
            head: String(decoding: result.requestHead, as: UTF8.self),
            body: result.requestBodySize == 0 ? nil : BodySnapshot(
                kept: result.requestBody, size: result.requestBodySize, contentType: entry.composed.body?.contentType)
        )
        let responseSnapshot = result.statusLine.isEmpty ? nil : ResponseSnapshot(
            statusCode: result.statusCode, statusLine: result.statusLine, httpVersion: result.connection.httpVersion,
            headers: responseHeaders, body: BodySnapshot(data: result.responseBody, contentType: contentType, limit: limit)
        )
        var connection = result.connection
        connection.effectiveURL = URLPassword.masking(in: connection.effectiveURL)
        let info = entry.info
        return DebugMessage(
            requestID: info.id, name: info.name, groupID: info.groupID, step: info.step, state: verdict.state,
            startedAt: info.startedAt, original: entry.composed, sent: sent, response: responseSnapshot,
            error: verdict.error, timings: result.timings, connection: connection, callbackQueue: callbackQueueLabel
        )
    }

    private func deliver(
        message: DebugMessage?, info: RequestInfo, state: RequestState, handle: RequestHandle, response: Response?, error: RequestError?,
        callbacks: RequestCallbacks, lazilyReadAs serializer: ResponseSerializer? = nil, to batch: inout DeliveryBatch
    ) {
        if let message { batch.events.append(.debugMessage(message)) }
        batch.events.append(.finished(info, state))
        guard !callbacks.isEmpty else { return }
        let tip = error.map(tip(for:)) ?? ""
        batch.callbacks.append {
            if let message { callbacks.debug?(message) }
            if let error {
                let failure = RequestFailure(requestID: info.id, error: error, response: response, tip: tip)
                callbacks.failure?(failure)
                callbacks.delegate?.requestDidFail(handle, failure: failure)
            } else if var response {
                if let serializer { response.value = Verdict.automaticValue(of: response, serializer: serializer) }
                callbacks.success?(response)
                callbacks.delegate?.requestDidSucceed(handle, response: response)
            }
        }
    }

    /// Publishes events that did not come from the transport (group events), through the same
    /// lock as everything else.
    func publish(_ events: [ObserverEvent]) {
        dispatch(DeliveryBatch(events: events))
    }

    /// Hands a batch to the observer lanes and, in one block, to the callback queue, after any
    /// pending announcements, all under the publisher lock.
    private func dispatch(_ batch: DeliveryBatch) {
        publisher.withLock { announcements in
            if announcements.isEmpty {
                observers.publish(batch.events)
            } else {
                observers.publish(announcements + batch.events)
                announcements.removeAll(keepingCapacity: true)
            }
            guard !batch.callbacks.isEmpty else { return }
            let callbacks = batch.callbacks
            config.callbackQueue.async {
                for callback in callbacks { callback() }
            }
        }
    }

    /// The config's user-facing text for an error (HLNetworking's tips).
    func tip(for error: RequestError) -> String {
        let tips = config.tips
        let text = error.isUnreachable ? tips.notReachable : tips.generalError
        guard tips.appendsErrorCode, let code = error.code else { return text }
        return "\(text) (code \(code))"
    }
}
