/// How a group's kind decides three things: how many members run at once, whether a member's
/// failure ends the group, and the verdict. Pure, and apart from chain mechanics (captures,
/// variables, step callbacks), which live in `GroupMachine`.
enum GroupPolicy: Sendable, Equatable {
    case batch(BatchPolicy, maxConcurrency: Int?)
    case orderedWindow(maxInFlight: Int)
    case chain(ChainFailurePolicy)

    init(_ plan: RequestGroup.Plan) {
        switch plan {
        case .batch(_, let policy, let limit): self = .batch(policy, maxConcurrency: limit)
        case .orderedWindow(_, let window): self = .orderedWindow(maxInFlight: window)
        case .chain(_, let onFailure): self = .chain(onFailure)
        }
    }

    /// Members running at once.
    var concurrency: Int {
        switch self {
        case .batch(_, let limit): limit ?? Int.max
        case .orderedWindow(let window): window
        case .chain: 1
        }
    }

    /// Whether the failure (or cancellation) of member `index` ends the group at once.
    func endsGroup(failedIndex index: Int) -> Bool {
        switch self {
        case .batch(.all, _): true
        case .batch(.required(let required), _): required.contains(index)
        case .batch(.any, _), .orderedWindow: false
        case .chain(let onFailure): onFailure == .stop
        }
    }

    /// The verdict once every member has ended; `outcomes[i]` is whether member i succeeded.
    func verdict(outcomes: [Bool]) -> GroupVerdict {
        switch self {
        case .batch(.all, _), .orderedWindow, .chain:
            outcomes.allSatisfy { $0 } ? .succeeded : .failed
        case .batch(.required(let required), _):
            required.filter { $0 < outcomes.count }.allSatisfy { outcomes[$0] } ? .succeeded : .failed
        case .batch(.any, _):
            outcomes.isEmpty || outcomes.contains(true) ? .succeeded : .failed
        }
    }
}
