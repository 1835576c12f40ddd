/// The agent's logger-delegate hooks. The file logger, the TUI and the headless runner are all
/// observers; every method has an empty default, so an observer implements only what it needs.
///
/// Calls arrive off the transfer thread, in order per request (will send, did send, progress,
/// debug message, finished), each observer on its own serial lane. A slow observer builds a
/// backlog (see `Agent.observerBacklog(of:)`); it never stalls transfers or other observers.
public protocol NetworkObserver: AnyObject, Sendable {
    /// The request was accepted and composed; nothing is on the wire yet.
    func requestWillBeSent(_ request: RequestInfo)
    /// The transport took the request; it is in flight.
    func requestDidSend(_ request: RequestInfo)
    func request(_ request: RequestInfo, didProgress progress: RequestProgress)
    /// A chunk or event of a streamed response, as it arrived. A lane keeps at most
    /// `ObserverLane.maxQueuedStreamItems` of them waiting; when an observer falls further behind,
    /// the oldest are dropped and `droppedBefore` counts them.
    func requestDidStream(_ update: StreamUpdate)
    /// Stream items of this request the lane dropped after the last one it delivered, which no
    /// later item can count: the observer fell behind at the stream's end. Called once, just
    /// before `requestDidFinish`, and only when there were some.
    func request(_ request: RequestInfo, didDropStreamItems count: Int)
    /// The full record of a finished request. Exactly one per request.
    func requestDidProduce(_ message: DebugMessage)
    /// The request reached its terminal state. Exactly one per request, after its debug message.
    func requestDidFinish(_ request: RequestInfo, state: RequestState)
    /// The request is held before sending (behind a priority-first gate).
    func requestIsWaiting(_ request: RequestInfo, reason: WaitReason)
    /// Something happened in a batch, chain or ordered window.
    func requestGroup(_ event: GroupEvent)
    /// The lane has delivered everything queued for now: a moment to write what was buffered.
    /// Under load a batch holds many events; when the observer keeps up, one or two.
    func observerDidFinishBatch()
    /// How much of a body this observer reads from a debug message, of text and of binary
    /// bodies; by default all the agent keeps (`NetworkConfig.debugBodyLimit`). Read once, when
    /// the observer is added. A debug message keeps no more of a body than its most demanding
    /// reader reads, so an observer that reads less (the file logger reads up to its caps) does
    /// not keep a megabyte body alive while its lane catches up.
    var bodyBytesRead: BodyReadLimit { get }
}

extension NetworkObserver {
    public var bodyBytesRead: BodyReadLimit { .all }
    public func requestWillBeSent(_ request: RequestInfo) {}
    public func requestDidSend(_ request: RequestInfo) {}
    public func request(_ request: RequestInfo, didProgress progress: RequestProgress) {}
    public func requestDidStream(_ update: StreamUpdate) {}
    public func request(_ request: RequestInfo, didDropStreamItems count: Int) {}
    public func requestDidProduce(_ message: DebugMessage) {}
    public func requestDidFinish(_ request: RequestInfo, state: RequestState) {}
    public func requestIsWaiting(_ request: RequestInfo, reason: WaitReason) {}
    public func requestGroup(_ event: GroupEvent) {}
    public func observerDidFinishBatch() {}
}

/// A request's `RequestInfo` as its observer events hold it: by reference, so an event put in a
/// batch and read out on every lane retains one object, where the struct was copied into each
/// event and out of it again on each lane, its strings retained and released every time.
final class SharedRequestInfo: Sendable {
    let info: RequestInfo

    init(_ info: RequestInfo) {
        self.info = info
    }

    /// Lends the identity to `reader` in place (`shared.info` read from outside copied it).
    func lend(_ reader: (RequestInfo) -> Void) {
        reader(info)
    }
}

/// One event for observers.
enum ObserverEvent: Sendable {
    case willSend(SharedRequestInfo)
    case didSend(SharedRequestInfo)
    case progress(SharedRequestInfo, RequestProgress)
    case streamed(SharedRequestInfo, StreamItem)
    case debugMessage(SharedDebugMessage)
    case finished(SharedRequestInfo, RequestState)
    case waiting(SharedRequestInfo, WaitReason)
    /// Boxed: a group event holds clock instants, whose layout the compiler does not know, and
    /// inline they made every event's copy go through the runtime (7,000 instructions more per
    /// request with the logger).
    indirect case group(GroupEvent)

    var isStreamItem: Bool {
        if case .streamed = self { return true }
        return false
    }

    /// How many of `events` are stream items, each read in place.
    static func streamItemCount(in events: [ObserverEvent]) -> Int {
        events.withUnsafeBufferPointer { events in
            var count = 0
            for index in events.indices where events[index].isStreamItem { count += 1 }
            return count
        }
    }

    /// Hands the event at `event` to `observer`, read where it lies: a copy of an event (and of
    /// the `RequestInfo` in it) for each of a request's events on each lane was most of what a
    /// lane did besides its observer's own work. A stream item carries the count of its
    /// request's items the lane dropped before it (`droppedBefore`, which it takes), and the
    /// request's end carries the count of those no item came after.
    static func deliver(_ event: UnsafePointer<ObserverEvent>, to observer: any NetworkObserver, droppedBefore: inout [UInt64: Int]) {
        switch event.pointee {
        case .willSend(let shared): shared.lend { observer.requestWillBeSent($0) }
        case .didSend(let shared): shared.lend { observer.requestDidSend($0) }
        case .progress(let shared, let progress): shared.lend { observer.request($0, didProgress: progress) }
        case .streamed(let shared, let item):
            let info = shared.info
            observer.requestDidStream(StreamUpdate(request: info, item: item, droppedBefore: droppedBefore.removeValue(forKey: info.id) ?? 0))
        case .debugMessage(let shared): shared.made.lend { observer.requestDidProduce($0) }
        case .finished(let shared, let state):
            shared.lend { info in
                if !droppedBefore.isEmpty, let count = droppedBefore.removeValue(forKey: info.id) {
                    observer.request(info, didDropStreamItems: count)
                }
                observer.requestDidFinish(info, state: state)
            }
        case .waiting(let shared, let reason): shared.lend { observer.requestIsWaiting($0, reason: reason) }
        case .group(let event): observer.requestGroup(event)
        }
    }
}
