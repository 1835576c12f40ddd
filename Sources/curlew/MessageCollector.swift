import CurlewAgent
import CurlewLocking

/// Keeps every debug message the agent produces, for a HAR file written at the end, redacted
/// then with what the run learned by its end: a chain's capture that a log hides is hidden in
/// every message, the capturing step's own answer included (a log written as it goes can only
/// hide it in the entries after it).
final class MessageCollector: NetworkObserver {
    private let messages = Locked<[DebugMessage]>([])
    private let redaction: Locked<RedactionPolicy>

    init(redaction: RedactionPolicy) {
        self.redaction = Locked(redaction)
    }

    func requestDidProduce(_ message: DebugMessage) {
        messages.withLock { $0.append(message) }
    }

    /// Every value a log hides that the run captured stays hidden in the file, not only the
    /// latest (`RedactionPolicy.hideCaptured` keeps 64, for a log written as it goes): the
    /// messages are all redacted at the end, the first login's answer with the seventieth's.
    func requestGroup(_ event: GroupEvent) {
        guard case .captured(_, _, let name, let value, let source) = event else { return }
        redaction.withLock { policy in
            if policy.hiddenCapture(named: name, value: value, from: source) { policy.hideAlso(RedactionPolicy.wireForms(of: value)) }
        }
    }

    /// The messages so far, redacted.
    var collected: [DebugMessage] {
        let policy = redaction.withLock { $0 }
        return messages.withLock { $0 }.map(policy.redact)
    }
}
