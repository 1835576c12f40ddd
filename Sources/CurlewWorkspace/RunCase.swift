import CurlewAgent

/// What `WorkspaceRunner` runs: a named request or a named group.
public enum RunTarget: Sendable, Equatable, CustomStringConvertible {
    case request(String)
    case group(String)

    public var name: String {
        switch self {
        case .request(let name), .group(let name): name
        }
    }

    public var description: String {
        switch self {
        case .request(let name): "request \(name)"
        case .group(let name): "group \(name)"
        }
    }
}

/// One request's result in a run: its answer, its assertions, and whether it passed.
public struct RunCase: Sendable {
    public var request: String
    /// The group it ran in (the top-level target), or nil for a request run on its own.
    public var group: String?
    /// The labels of the groups it is nested in below `group`, outermost first; empty for a
    /// direct member or a request run on its own.
    public var path: [String] = []
    /// Which repetition (from 1).
    public var iteration: Int
    public var statusCode: Int?
    public var error: RequestError?
    public var failures: [ExpectationFailure]
    public var duration: Duration?
    /// It never ran: its group stopped first, or the run was interrupted.
    public var skipped = false

    public var passed: Bool { !skipped && error == nil && failures.isEmpty }

    /// Where it ran inside its top-level group: `profile › me` (`me` for a direct member, or a
    /// request run on its own).
    public var placeInGroup: String {
        (path + [request]).joined(separator: " › ")
    }

    /// Where it ran, from its top-level group down: `flow › profile › me`.
    public var place: String {
        group.map { "\($0) › \(placeInGroup)" } ?? placeInGroup
    }
}

/// A group nested in a group target, once it ended: its own verdict, judged as a top-level
/// group's is (it succeeded and none of its requests failed an assertion).
public struct NestedGroupResult: Sendable {
    /// The top-level group it ran in.
    public var group: String
    /// Its label, after those of the groups it is nested in (`steps › login-batch`).
    public var path: [String]
    /// Which repetition (from 1).
    public var iteration: Int
    public var state: RequestState
    /// Its requests' cases, those of the groups nested in it included.
    public var cases: [RunCase]
    /// Why the step failed when it was not its requests (a chain's capture from the group's
    /// last answer found nothing), hidden as the log hides it.
    public var stepError: RequestError? = nil

    public var passed: Bool { state == .succeeded && cases.allSatisfy(\.failures.isEmpty) }
}

/// A top-level target's result: its cases, and for a group its own verdict.
public struct RunResult: Sendable {
    public var target: RunTarget
    public var iteration: Int
    public var cases: [RunCase]
    /// A group's final state; nil for a request.
    public var groupState: GroupState?
    /// A target that could not even be built (an undefined variable, a bad file path).
    public var buildError: WorkspaceError?
    /// When the run of it started and ended, as the runner measured; nil for one not run.
    public var ranDuring: ClosedRange<ContinuousClock.Instant>?
    /// For a group, the verdicts of the groups nested in it, innermost first.
    public var nested: [NestedGroupResult] = []

    /// A request passes when it was answered and its assertions held. A group passes when it
    /// succeeded by its own policy (a `policy: any` batch may have failing members) and no
    /// member's assertion failed.
    public var passed: Bool {
        guard buildError == nil else { return false }
        guard let groupState else { return cases.allSatisfy(\.passed) }
        return groupState == .succeeded && cases.allSatisfy(\.failures.isEmpty)
    }
}
