import CurlewAgent
import Foundation
import CurlewLocking

/// An observer that records every event it receives, in order, for assertions.
public final class EventRecorder: NetworkObserver {
    public enum Event: Sendable, Equatable {
        case willSend(UInt64)
        case didSend(UInt64)
        case progress(UInt64)
        case debugMessage(UInt64)
        case finished(UInt64, RequestState)
    }

    private let recorded = Locked<[Event]>([])
    private let recordedMessages = Locked<[DebugMessage]>([])
    private let recordedGroupEvents = Locked<[(event: GroupEvent, at: ContinuousClock.Instant)]>([])

    public init() {}

    public var events: [Event] { recorded.withLock { $0 } }
    public var messages: [DebugMessage] { recordedMessages.withLock { $0 } }
    public var groupEvents: [GroupEvent] { recordedGroupEvents.withLock { $0.map(\.event) } }
    /// Group events with the moment each arrived.
    public var timedGroupEvents: [(event: GroupEvent, at: ContinuousClock.Instant)] { recordedGroupEvents.withLock { $0 } }

    /// Member updates of one group, in order.
    public func memberUpdates(of groupID: UInt64) -> [MemberUpdate] {
        groupEvents.compactMap { event in
            if case .memberChanged(let info, let update) = event, info.id == groupID { return update }
            return nil
        }
    }

    /// Whether a group member's request has been handed to the transport.
    public func hasSent(_ member: MemberSnapshot) -> Bool {
        member.requestID.map { events(for: $0).contains(.didSend($0)) } ?? false
    }

    public func events(for id: UInt64) -> [Event] {
        events.filter { event in
            switch event {
            case .willSend(let eventID), .didSend(let eventID), .progress(let eventID), .debugMessage(let eventID), .finished(let eventID, _):
                eventID == id
            }
        }
    }

    public func requestWillBeSent(_ request: RequestInfo) { recorded.withLock { $0.append(.willSend(request.id)) } }
    public func requestDidSend(_ request: RequestInfo) { recorded.withLock { $0.append(.didSend(request.id)) } }
    public func request(_ request: RequestInfo, didProgress progress: RequestProgress) { recorded.withLock { $0.append(.progress(request.id)) } }
    public func requestDidProduce(_ message: DebugMessage) {
        recordedMessages.withLock { $0.append(message) }
        recorded.withLock { $0.append(.debugMessage(message.requestID)) }
    }
    public func requestDidFinish(_ request: RequestInfo, state: RequestState) { recorded.withLock { $0.append(.finished(request.id, state)) } }
    public func requestGroup(_ event: GroupEvent) { recordedGroupEvents.withLock { $0.append((event, .now)) } }
}
