import CurlewAgent

/// What a finished group's verdict must be, given how its members ended and its policy.
enum VerdictCheck {
    static func problems(of handle: GroupHandle, policy: Workload.Policy) -> [String] {
        let members = handle.members
        var problems: [String] = []
        if let running = members.first(where: { !$0.state.isTerminal }) {
            problems.append("group \(handle.id) finished with member \(running.index) still \(running.state.rawValue)")
        }
        let succeeded = members.map { $0.state == .succeeded }
        let expected: GroupState
        switch policy {
        case .batch(.all), .orderedWindow:
            expected = succeeded.allSatisfy { $0 } ? .succeeded : .failed
        case .batch(.any):
            expected = succeeded.isEmpty || succeeded.contains(true) ? .succeeded : .failed
        case .batch(.required(let required)):
            expected = required.allSatisfy { $0 < succeeded.count && succeeded[$0] } ? .succeeded : .failed
        case .chain(.stop):
            expected = succeeded.allSatisfy { $0 } ? .succeeded : .failed
            if let firstFailure = succeeded.firstIndex(of: false),
               members[(firstFailure + 1)...].contains(where: { $0.requestID != nil && $0.state != .cancelled }) {
                problems.append("chain \(handle.id) (stop) ran a step after step \(firstFailure) failed")
            }
        case .chain(.continue):
            expected = succeeded.allSatisfy { $0 } ? .succeeded : .failed
        }
        if handle.state != expected {
            let states = members.map { "\($0.index):\($0.state.rawValue)" }.joined(separator: " ")
            problems.append("\(handle.kind.label) \(handle.id) ended \(handle.state.rawValue), its policy says \(expected.rawValue) (\(states))")
        }
        return problems
    }
}
