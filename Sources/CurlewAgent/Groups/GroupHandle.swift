import Foundation
import CurlewLocking

/// Where a group is in its life.
public enum GroupState: String, Sendable, Equatable, Codable {
    case created
    /// Held by a priority-first gate.
    case waiting
    case running
    case succeeded
    case failed
    case cancelled

    public var isTerminal: Bool {
        self == .succeeded || self == .failed || self == .cancelled
    }
}

/// One member of a running or finished group, as it stands.
public struct MemberSnapshot: Sendable {
    public var index: Int
    public var label: String
    public var state: RequestState
    public var waitReason: WaitReason?
    /// The member's request once started (nil for a nested group).
    public var requestID: UInt64?
    public var response: Response?
    public var error: RequestError?
    /// The nested group, for a member that is a group.
    public var child: GroupHandle?
    public var progress: RequestProgress?
    public var startedAt: Date?
    public var finishedAt: Date?
    /// What the chain captured from this member's response, every value in order (a later
    /// capture of a name replaces it in `GroupHandle.variables`, never here).
    public var captured: [CapturedValue] = []
    /// The values the chain had captured when this member started, those its templates were
    /// filled with (a nested group's members start with its parent's too).
    public var startedWith = ChainVariables()

    /// Seconds from start to finish, once finished.
    public var duration: TimeInterval? {
        guard let startedAt, let finishedAt else { return nil }
        return finishedAt.timeIntervalSince(startedAt)
    }
}

/// A started group: its live state and its members, indexable in the order they were added
/// (`group[0]`). Pass it to `Agent.cancel(_:)` to cancel the group.
public final class GroupHandle: Sendable, RandomAccessCollection {
    /// The identity observers see in this group's events.
    public let info: GroupInfo
    public var id: UInt64 { info.id }
    public var name: String? { info.name }
    public var kind: RequestGroup.Kind { info.kind }

    struct Snapshot: Sendable {
        var state: GroupState = .created
        var members: [MemberSnapshot]
        var variables = ChainVariables()
        var startedAt: Date?
        var finishedAt: Date?
    }

    private let snapshot: Locked<Snapshot>

    init(info: GroupInfo, labels: [String]) {
        self.info = info
        snapshot = Locked(Snapshot(members: labels.enumerated().map { MemberSnapshot(index: $0.offset, label: $0.element, state: .created) }))
    }

    public var state: GroupState { snapshot.withLock { $0.state } }
    public var members: [MemberSnapshot] { snapshot.withLock { $0.members } }
    /// Members that failed (not those cancelled because of another's failure).
    public var failedMembers: [MemberSnapshot] { members.filter { $0.state == .failed } }
    /// Values a chain captured so far.
    public var variables: ChainVariables { snapshot.withLock { $0.variables } }
    /// The response of the last member that has one, in member order: a chain's final answer.
    public var lastResponse: Response? { members.last { $0.response != nil }?.response }
    public var startedAt: Date? { snapshot.withLock { $0.startedAt } }
    public var finishedAt: Date? { snapshot.withLock { $0.finishedAt } }

    public var startIndex: Int { 0 }
    public var endIndex: Int { snapshot.withLock { $0.members.count } }
    public subscript(position: Int) -> MemberSnapshot { snapshot.withLock { $0.members[position] } }

    func update(_ change: (inout Snapshot) -> Void) {
        snapshot.withLock { change(&$0) }
    }
}

/// What a chain step's `onFinish` sees and may decide. Decisions take effect when it returns.
public final class ChainStepContext: Sendable {
    public let chain: GroupHandle
    /// The index of the step that just finished.
    public let step: Int
    public let finished: MemberSnapshot

    struct Decisions: Sendable {
        var nextRequest: Request?
        var addedSteps: [ChainStep] = []
        var earlyVerdict: GroupVerdict?
        var variables: [(String, String)] = []
    }

    private let decisions = Locked(Decisions())

    init(chain: GroupHandle, step: Int, finished: MemberSnapshot) {
        self.chain = chain
        self.step = step
        self.finished = finished
    }

    /// The finished step's response, when it got one.
    public var response: Response? { finished.response }
    public var succeeded: Bool { finished.state == .succeeded }
    public var variables: ChainVariables { chain.variables }

    /// Replaces the next step's request (or, when there is none, adds one), built from this result.
    public func setNextRequest(_ request: Request) {
        decisions.withLock { $0.nextRequest = request }
    }

    /// Appends a step at the end of the chain.
    public func addStep(_ step: ChainStep) {
        decisions.withLock { $0.addedSteps.append(step) }
    }

    /// Ends the chain now with this verdict; later steps never start.
    public func finish(_ verdict: GroupVerdict) {
        decisions.withLock { $0.earlyVerdict = verdict }
    }

    /// Sets a chain variable for later steps.
    public func setVariable(_ name: String, _ value: String) {
        decisions.withLock { $0.variables.append((name, value)) }
    }

    var made: Decisions { decisions.withLock { $0 } }
}

/// The delegate style of hearing about groups (YTKNetwork's batch and chain delegates).
/// Calls run where the config's `callbackDelivery` says (the callback queue by default).
public protocol RequestGroupDelegate: AnyObject, Sendable {
    func requestGroup(_ group: GroupHandle, memberDidFinish member: MemberSnapshot)
    func requestGroupAllDidFinished(_ group: GroupHandle)
}

extension RequestGroupDelegate {
    public func requestGroup(_ group: GroupHandle, memberDidFinish member: MemberSnapshot) {}
    public func requestGroupAllDidFinished(_ group: GroupHandle) {}
}

/// The closure style of hearing about groups. `failure` also reports a cancelled group.
public struct GroupCallbacks: Sendable {
    public var success: (@Sendable (GroupHandle) -> Void)?
    public var failure: (@Sendable (GroupHandle) -> Void)?
    public var memberFinished: (@Sendable (GroupHandle, MemberSnapshot) -> Void)?
    /// The debug message of each request the group runs, at any depth, before that member
    /// finishes (as a request's `debug` callback hears it, before its answer).
    public var memberDebug: (@Sendable (DebugMessage) -> Void)?
    public weak var delegate: (any RequestGroupDelegate)?

    public init(
        success: (@Sendable (GroupHandle) -> Void)? = nil,
        failure: (@Sendable (GroupHandle) -> Void)? = nil,
        memberFinished: (@Sendable (GroupHandle, MemberSnapshot) -> Void)? = nil,
        memberDebug: (@Sendable (DebugMessage) -> Void)? = nil,
        delegate: (any RequestGroupDelegate)? = nil
    ) {
        self.success = success
        self.failure = failure
        self.memberFinished = memberFinished
        self.memberDebug = memberDebug
        self.delegate = delegate
    }
}

/// A group that did not succeed, thrown by `Agent.run(_:)`.
public struct GroupFailure: Error, Sendable, CustomStringConvertible {
    public let group: GroupHandle

    public var description: String {
        let failed = group.failedMembers.map { "#\($0.index + 1) \($0.label): \($0.error?.description ?? "failed")" }
        return "\(group.kind.label) \(group.name ?? "#\(group.id)") \(group.state.rawValue)" + (failed.isEmpty ? "" : ": " + failed.joined(separator: "; "))
    }
}
