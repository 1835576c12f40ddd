import CurlewTransport

/// One piece of work a delivery batch hands to the callback runner.
enum CallbackJob: Sendable {
    /// The answer to a request the transport finished: kept as the values it is made of, so the
    /// most frequent job needs no closure of its own.
    case answer(FinishedAnswer)
    case call(@Sendable () -> Void)

    func run() {
        switch self {
        case .answer(let answer): answer.run()
        case .call(let job): job()
        }
    }
}

/// What answering a finished request takes: its bookkeeping, the transfer's result and the verdict.
struct FinishedAnswer: Sendable {
    let entry: AgentCore.ActiveRequest
    let result: TransferResult
    /// The response's value when the verdict made one; nil leaves it to be read here.
    let value: ResponseValue?
    let error: RequestError?
    let message: SharedDebugMessage?
    let tip: String

    /// Makes the response where the callbacks run and answers the caller.
    func run() {
        entry.answer(message: message, response: { AgentCore.response(to: entry.info.id, from: result, value: value) }, error: error, tip: tip,
                     serializer: value == nil ? entry.responseSerializer : nil)
    }
}
