import CurlewAgent
import CurlewLocking

/// Keeps every debug message the agent produces, redacted, for a HAR file written at the end.
final class MessageCollector: NetworkObserver {
    private let messages = Locked<[DebugMessage]>([])
    private let redaction: RedactionPolicy

    init(redaction: RedactionPolicy) {
        self.redaction = redaction
    }

    func requestDidProduce(_ message: DebugMessage) {
        let redacted = redaction.redact(message)
        messages.withLock { $0.append(redacted) }
    }

    var collected: [DebugMessage] { messages.withLock { $0 } }
}
