import CurlewAgent
import CurlewLocking

/// Keeps every debug message the agent produces, redacted, for a HAR file written at the end.
/// A chain's capture that a log hides is hidden in every message after it, as the logger does.
final class MessageCollector: NetworkObserver {
    private let messages = Locked<[DebugMessage]>([])
    private let redaction: Locked<RedactionPolicy>

    init(redaction: RedactionPolicy) {
        self.redaction = Locked(redaction)
    }

    func requestDidProduce(_ message: DebugMessage) {
        let redacted = redaction.withLock { $0 }.redact(message)
        messages.withLock { $0.append(redacted) }
    }

    func requestGroup(_ event: GroupEvent) {
        guard case .captured = event else { return }
        redaction.withLock { _ = $0.hideCaptured(event) }
    }

    var collected: [DebugMessage] { messages.withLock { $0 } }
}
