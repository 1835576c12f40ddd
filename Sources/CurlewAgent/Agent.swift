import CurlewTransport
import Foundation
import Synchronization

/// The network agent: starts requests, cancels them, and reports everything to its observers.
///
/// Results arrive three ways: closures and a delegate (`start(_:callbacks:)`), or `async`
/// (`send(_:)`). One agent owns one transfer thread and one connection pool; create one per
/// configuration and keep it for the life of the program.
public final class Agent: Sendable {
    public let config: NetworkConfig
    private let core: AgentCore
    private let engine: TransferEngine
    private let composer: RequestComposer
    private let nextID = Atomic<UInt64>(1)

    public init(config: NetworkConfig = NetworkConfig()) {
        self.config = config
        let core = AgentCore(config: config)
        self.core = core
        self.composer = RequestComposer(config: config)
        self.engine = TransferEngine(
            configuration: TransferEngine.Configuration(
                maxConnectionsPerHost: config.maxConnectionsPerHost,
                maxTotalConnections: config.maxTotalConnections
            ),
            eventSink: { event in core.handle(event) }
        )
    }

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

    /// Starts a request. Its callbacks run on the config's callback queue; exactly one of
    /// `success` and `failure` is called, also when the request is refused before sending.
    @discardableResult
    public func start(_ request: Request, callbacks: RequestCallbacks = RequestCallbacks()) -> RequestHandle {
        start(request, callbacks: callbacks, placement: nil)
    }

    /// Starts a request with a single completion closure.
    @discardableResult
    public func start(_ request: Request, completion: @escaping @Sendable (Result<Response, RequestFailure>) -> Void) -> RequestHandle {
        start(request, callbacks: RequestCallbacks(
            success: { completion(.success($0)) },
            failure: { completion(.failure($0)) }
        ))
    }

    func start(_ request: Request, callbacks: RequestCallbacks, placement: RequestPlacement?) -> RequestHandle {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        let handle = RequestHandle(id: id, name: request.name)
        var info = RequestInfo(
            id: id, name: request.name, method: request.method.rawValue,
            url: request.customURL ?? request.path, groupID: placement?.groupID, step: placement?.step, startedAt: Date()
        )
        do {
            let (transfer, composed) = try composer.compose(request)
            info.url = composed.url
            core.register(AgentCore.ActiveRequest(handle: handle, info: info, request: request, composed: composed, callbacks: callbacks))
            engine.submit(transfer, id: id)
        } catch {
            core.reject(handle: handle, info: info, error: error, callbacks: callbacks)
        }
        return handle
    }

    /// Sends a request and returns its response. Throws `RequestFailure`. Cancelling the calling
    /// task cancels the request, wherever it is.
    public func send(_ request: Request) async throws -> Response {
        let slot = HandleSlot()
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
        engine.cancel(id: handle.id)
    }

    /// Cancels every request not yet finished.
    public func cancelAll() {
        for id in core.activeIDs { engine.cancel(id: id) }
    }

    /// The user-facing text for an error, from the config's tips.
    public func tip(for error: RequestError) -> String {
        core.tip(for: error)
    }

    /// Cancels everything and stops the transfer thread. Requests started afterwards fail as cancelled.
    public func shutdown() {
        engine.shutdown()
    }
}

/// Connects a task's cancellation to a handle that may not exist yet.
private final class HandleSlot: Sendable {
    private let state = Mutex<(handle: RequestHandle?, cancelled: Bool)>((nil, false))

    /// Stores the handle; returns true when cancellation was already requested.
    func store(_ handle: RequestHandle) -> Bool {
        state.withLock { state in
            state.handle = handle
            return state.cancelled
        }
    }

    /// Marks cancellation; returns the handle when it is already known.
    func markCancelled() -> RequestHandle? {
        state.withLock { state in
            state.cancelled = true
            return state.handle
        }
    }
}
