/// The delegate style of receiving results (HLNetworking's response observers, YTKNetwork's
/// request delegate). Every method has an empty default. Calls run where the config's `callbackDelivery` says.
public protocol RequestDelegate: AnyObject, Sendable {
    func requestWillBeSent(_ handle: RequestHandle)
    func requestDidSend(_ handle: RequestHandle)
    func request(_ handle: RequestHandle, didProgress progress: RequestProgress)
    func requestDidSucceed(_ handle: RequestHandle, response: Response)
    func requestDidFail(_ handle: RequestHandle, failure: RequestFailure)
}

extension RequestDelegate {
    public func requestWillBeSent(_ handle: RequestHandle) {}
    public func requestDidSend(_ handle: RequestHandle) {}
    public func request(_ handle: RequestHandle, didProgress progress: RequestProgress) {}
    public func requestDidSucceed(_ handle: RequestHandle, response: Response) {}
    public func requestDidFail(_ handle: RequestHandle, failure: RequestFailure) {}
}

/// The closure style of receiving results. All optional; they run where the config's `callbackDelivery` says (the callback queue by default).
/// A cancelled request calls `failure` with a `cancelled` error.
public struct RequestCallbacks: Sendable {
    public var success: (@Sendable (Response) -> Void)?
    public var failure: (@Sendable (RequestFailure) -> Void)?
    public var progress: (@Sendable (RequestProgress) -> Void)?
    /// The request's debug message, before `success` or `failure`.
    public var debug: (@Sendable (DebugMessage) -> Void)?
    /// Under `cacheThenNetwork`, the cached response, before the network's answer reaches
    /// `success` or `failure`.
    public var cached: (@Sendable (Response) -> Void)?
    /// For a request with `streamsResponse`: each chunk and event as it arrives, before
    /// `success` or `failure`.
    public var streamed: (@Sendable (StreamItem) -> Void)?
    public weak var delegate: (any RequestDelegate)?

    public init(
        success: (@Sendable (Response) -> Void)? = nil,
        failure: (@Sendable (RequestFailure) -> Void)? = nil,
        progress: (@Sendable (RequestProgress) -> Void)? = nil,
        debug: (@Sendable (DebugMessage) -> Void)? = nil,
        cached: (@Sendable (Response) -> Void)? = nil,
        streamed: (@Sendable (StreamItem) -> Void)? = nil,
        delegate: (any RequestDelegate)? = nil
    ) {
        self.streamed = streamed
        self.success = success
        self.failure = failure
        self.progress = progress
        self.debug = debug
        self.cached = cached
        self.delegate = delegate
    }

    var isEmpty: Bool {
        success == nil && failure == nil && progress == nil && debug == nil && cached == nil && streamed == nil && delegate == nil
    }

    /// Answers the caller once a request has ended (`requestID`: the exchange that ended it): the
    /// debug message first, then the response or the failure, to the closures and then the delegate. `serializer` makes the response's
    /// value here, for a value the agent left to be read where callbacks run.
    func answer(_ handle: RequestHandle, requestID: UInt64, message: SharedDebugMessage?, response: consuming Response?, error: RequestError?,
                tip: String, serializer: ResponseSerializer?) {
        if let debug, let message { message.made.lend(debug) }
        if let error {
            let failure = RequestFailure(requestID: requestID, error: error, response: response, tip: tip)
            self.failure?(failure)
            delegate?.requestDidFail(handle, failure: failure)
        } else if var response = response.take() {
            if let serializer { response.value = Verdict.automaticValue(of: response, serializer: serializer) }
            success?(response)
            delegate?.requestDidSucceed(handle, response: response)
        }
    }
}
