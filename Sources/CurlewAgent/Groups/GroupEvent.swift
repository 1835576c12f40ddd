import Foundation

/// How a group ended.
public enum GroupVerdict: String, Sendable, Equatable, Codable {
    case succeeded
    case failed
    case cancelled
}

/// The identity of a group as observers see it.
public struct GroupInfo: Sendable, Equatable {
    public var id: UInt64
    public var name: String?
    public var kind: RequestGroup.Kind
    /// The enclosing group, for a nested group.
    public var parentID: UInt64?
    /// This group's position in its parent.
    public var indexInParent: Int?
    /// Registered as the priority-first gate.
    public var isPriorityGate: Bool

    public init(id: UInt64, name: String?, kind: RequestGroup.Kind, parentID: UInt64?, indexInParent: Int?, isPriorityGate: Bool) {
        self.id = id
        self.name = name
        self.kind = kind
        self.parentID = parentID
        self.indexInParent = indexInParent
        self.isPriorityGate = isPriorityGate
    }
}

/// Why something is waiting.
public enum WaitReason: String, Sendable, Equatable, Codable {
    /// Held by a priority-first request or group until it finishes.
    case gated
    /// Waiting for its turn in its group (concurrency limit, earlier chain step).
    case queued
}

/// A change in one member of a group.
public struct MemberUpdate: Sendable, Equatable {
    public var index: Int
    public var label: String
    public var state: RequestState
    /// Why a pending member waits.
    public var waitReason: WaitReason?
    /// The member's request, when it is a request that has been started.
    public var requestID: UInt64?
    /// The member's group, when it is a nested group.
    public var childGroupID: UInt64?
    public var progress: RequestProgress?
    public var statusCode: Int?
    public var error: RequestError?
    /// When the member changed, by the agent's clock: observers hear of it later (a lane
    /// delivers a batch of events at a time), so times measured on arrival would be skewed.
    public var at: ContinuousClock.Instant

    public init(index: Int, label: String, state: RequestState, waitReason: WaitReason? = nil, requestID: UInt64? = nil,
                childGroupID: UInt64? = nil, progress: RequestProgress? = nil, statusCode: Int? = nil, error: RequestError? = nil,
                at: ContinuousClock.Instant = .now) {
        self.at = at
        self.index = index
        self.label = label
        self.state = state
        self.waitReason = waitReason
        self.requestID = requestID
        self.childGroupID = childGroupID
        self.progress = progress
        self.statusCode = statusCode
        self.error = error
    }
}

/// Everything a group does, as observers see it. Per group: `created`, possibly `waiting`, then
/// `started`, member changes, captures and added steps, and exactly one `finished`.
public enum GroupEvent: Sendable, Equatable {
    case created(GroupInfo, memberLabels: [String])
    case waiting(GroupInfo, reason: WaitReason)
    /// `at` by the agent's clock, as `MemberUpdate.at`.
    case started(GroupInfo, at: ContinuousClock.Instant)
    case memberChanged(GroupInfo, MemberUpdate)
    /// A chain step's capture: `value` taken from `source` into `{{name}}`. Whether a log hides
    /// it is `RedactionPolicy.hidesCapture(named:from:)`.
    case captured(GroupInfo, step: Int, name: String, value: String, source: Capture.Source)
    case stepAdded(GroupInfo, index: Int, label: String)
    /// `duration` in microseconds from start to finish; `failedMembers` by index.
    case finished(GroupInfo, verdict: GroupVerdict, duration: Int64, failedMembers: [Int])

    public var group: GroupInfo {
        switch self {
        case .created(let info, _), .waiting(let info, _), .started(let info, _), .memberChanged(let info, _),
             .captured(let info, _, _, _, _), .stepAdded(let info, _, _), .finished(let info, _, _, _):
            info
        }
    }
}
