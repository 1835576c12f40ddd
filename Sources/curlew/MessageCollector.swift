import CurlewAgent
import CurlewLocking

/// Keeps every debug message the agent produces, for a HAR file written at the end, each
/// redacted as it arrives with what the run had learned by then, as the session log is: a
/// chain's capture that a log hides is hidden in every message after it, and in the answer it
/// was captured from, which came just before it.
final class MessageCollector: NetworkObserver {
    private struct Collected {
        var messages: [DebugMessage] = []
        var policy: RedactionPolicy
    }
    private let state: Locked<Collected>

    init(redaction: RedactionPolicy) {
        state = Locked(Collected(policy: redaction))
    }

    func requestDidProduce(_ message: DebugMessage) {
        state.withLock { $0.messages.append($0.policy.redact(message)) }
    }

    /// Hides a capture a log hides from now on (the latest 64, as the log does, so a run that
    /// logs in thousands of times does not make each message slower), and in the step's own
    /// answer, the latest message of that group's step.
    func requestGroup(_ event: GroupEvent) {
        guard case .captured(let group, let step, let name, let value, let source) = event else { return }
        state.withLock { state in
            guard state.policy.hideCaptured(value, named: name, from: source),
                  let index = state.messages.lastIndex(where: { $0.groupID == group.id && $0.step == step }) else { return }
            state.messages[index] = state.policy.redact(state.messages[index])
        }
    }

    /// The messages so far, redacted.
    var collected: [DebugMessage] {
        state.withLock { $0.messages }
    }
}
