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
/// Kept small (56 bytes): a delivery batch holds one for each request a turn of the transfer loop
/// finished, and an array of them from 1 KiB up is a large block for the allocator, which then
/// sorts all its small free blocks first (about 10,000 instructions a batch). Inline, the error
/// and its tip made it 104 bytes, nine to the KiB (seventeen now); a request that failed holds them by reference.
struct FinishedAnswer: Sendable {
    let entry: AgentCore.ActiveRequest
    let result: TransferResult
    /// The response's value when the verdict made one; nil leaves it to be read here.
    let value: ResponseValue?
    let failure: Failure?
    let message: SharedDebugMessage?

    /// Why a request failed, and the config's text for it.
    final class Failure: Sendable {
        let error: RequestError
        let tip: String

        init(error: RequestError, tip: String) {
            self.error = error
            self.tip = tip
        }
    }

    /// Makes the response where the callbacks run and answers the caller.
    func run() {
        entry.answer(message: message, response: { AgentCore.response(to: entry.info.id, from: result, value: value) }, error: failure?.error,
                     tip: failure?.tip ?? "",
                     // Without a value of the verdict's, the response holds the body's bytes: what every serializer
                     // but `.automatic` reads.
                     serializer: value == nil && entry.responseSerializer == .automatic ? .automatic : nil)
    }
}
