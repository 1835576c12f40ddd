import CurlewTransport

/// One finished exchange of a pipelined request, ready to publish: from the network (`result`),
/// or answered without it (`answer`: a cache hit, a fixture, a shared duplicate's response).
struct FinishedExchange {
    var info: RequestInfo
    var composed: ComposedRequest?
    var result: TransferResult?
    /// Made into a snapshot only when a debug message is built.
    var answer: Response?
    var state: RequestState
    var error: RequestError?
    var record: PipelineRecord
    /// What the exchange's stream carried, for a request with `streamsResponse`.
    var stream: StreamRecord?

    /// Its debug message, keeping of the response body what its readers read; `requestGoesOn`
    /// when the request goes on with another exchange after this one.
    func debugMessage(core: AgentCore, bodyReaders: BodyReaders, requestGoesOn: Bool) -> DebugMessage {
        if let result, let composed {
            return core.debugMessage(info: info, composed: composed, result: result, state: state,
                                     error: error, pipeline: record, stream: stream, bodyReaders: bodyReaders, requestGoesOn: requestGoesOn)
        }
        let (original, transfer) = (composed ?? AgentCore.asTyped(info)).splittingTransfer()
        return DebugMessage(
            requestID: info.id, name: info.name, groupID: info.groupID, step: info.step, state: state, startedAt: info.startedAt,
            original: original, sent: nil, response: answer.map { core.snapshot(of: $0, bodyReaders: bodyReaders) }, error: error,
            timings: nil, connection: nil,
            callbackQueue: core.callbackQueueLabel, pipeline: record, transfer: transfer, firstExchangeID: info.firstExchangeID,
            requestGoesOn: requestGoesOn
        )
    }
}

/// The caller's side of a pipelined request's last exchange.
struct PipelineDelivery {
    var handle: RequestHandle
    var response: Response?
    var callbacks: RequestCallbacks
}
