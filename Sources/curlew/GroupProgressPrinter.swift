import CurlewAgent
import Foundation
import CurlewLocking

/// Prints each group member's result as it finishes, captures as they are made, and each
/// group's verdict: the command-line view of the agent's group events.
final class GroupProgressPrinter: NetworkObserver {
    /// When each running member started, by the agent's clock (`MemberUpdate.at`).
    private let started = Locked<[String: ContinuousClock.Instant]>([:])
    /// Member requests' own elapsed time, from their debug messages (which arrive before the
    /// member's end), so the printed time is the request's, not the gap between two deliveries;
    /// kept under every id the message answers for (a retried member's attempts have their own),
    /// with those ids, so the member's end removes them all.
    private let elapsedByRequest = Locked<[UInt64: (elapsed: Int64, ids: [UInt64])]>([:])
    /// What the printed captures hide: a value named like a credential.
    private let redaction = RedactionPolicy()

    func requestDidProduce(_ message: DebugMessage) {
        guard message.groupID != nil, let timings = message.timings else { return }
        let ids = message.answeredRequestIDs
        elapsedByRequest.withLock { byRequest in
            for id in ids { byRequest[id] = (timings.elapsed, ids) }
        }
    }

    func requestGroup(_ event: GroupEvent) {
        switch event {
        case .started(let group, _):
            emit("\(indent(group))▶ \(group.kind.label) \(title(group)) started")
        case .memberChanged(let group, let update):
            let key = "\(group.id)/\(update.index)"
            if update.state == .pending, update.waitReason == nil {
                started.withLock { $0[key] = update.at }
            }
            guard update.state.isTerminal else { return }
            let waited = started.withLock { $0.removeValue(forKey: key) }.map { (update.at - $0).wholeMicroseconds }
            let own = update.requestID.flatMap { id in
                elapsedByRequest.withLock { byRequest -> Int64? in
                    guard let entry = byRequest[id] else { return nil }
                    for answered in entry.ids { byRequest[answered] = nil }
                    return entry.elapsed
                }
            }
            let duration = (own ?? waited).map(TimingBreakdown.format) ?? "-"
            let outcome: String = switch update.state {
            case .succeeded: "✓ \(update.statusCode.map(String.init) ?? "ok")"
            case .cancelled: "⊘ cancelled"
            default: "✗ " + (update.error.map { "\($0.kind.rawValue): \($0.message)" } ?? "failed")
            }
            emit("\(indent(group))  #\(update.index + 1) \(update.label.padding(toLength: 20, withPad: " ", startingAt: 0)) \(outcome)  \(duration)")
        case .captured(let group, let step, let name, let value, let source):
            let hidden = redaction.hiddenCapture(named: name, value: value, from: source) ? RedactionPolicy.marker : redaction.shown(variable: name, value: value)
            let shown = hidden.count > 16 ? String(hidden.prefix(12)) + "…" : hidden
            emit("\(indent(group))    captured {{\(name)}} = \(shown) from #\(step + 1)")
        case .stepAdded(let group, let index, let label):
            emit("\(indent(group))  + step #\(index + 1) \(label)")
        case .waiting(let group, let reason):
            emit("\(indent(group))… \(title(group)) waiting (\(reason.rawValue))")
        case .finished(let group, let verdict, let duration, let failed):
            let failures = failed.isEmpty ? "" : "; failed: " + failed.map { "#\($0 + 1)" }.joined(separator: ", ")
            emit("\(indent(group))■ \(group.kind.label) \(title(group)) \(verdict.rawValue) in \(TimingBreakdown.format(duration))\(failures)")
        case .created:
            break
        }
    }

    private func title(_ group: GroupInfo) -> String {
        group.name.map { "'\($0)'" } ?? "#\(group.id)"
    }

    private func indent(_ group: GroupInfo) -> String {
        group.parentID == nil ? "" : "    "
    }

    private func emit(_ line: String) {
        print(line)
        fflush(nil)
    }
}
