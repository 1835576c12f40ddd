import CurlewAgent
import CurlewSessions

/// Two exchanges side by side: request, headers, body (JSON member by member) and timing, with
/// what differs marked. Any two exchanges compare, from Live or from any log.
public struct ComparisonState: Sendable {
    public let left: DebugMessage
    public let right: DebugMessage
    public let diff: ExchangeDiff
    /// Every row, or only those that differ.
    public var showsAll = false
    public var scroll = 0

    /// Each side's heading, from the exchange as shown.
    public let titles: (left: String, right: String)

    /// `hiding`: the policy whose secrets both sides hide, nil while they are revealed.
    public init(_ left: DebugMessage, _ right: DebugMessage, hiding: RedactionPolicy?) {
        self.left = left
        self.right = right
        let (shownLeft, shownRight) = (hiding?.redact(left) ?? left, hiding?.redact(right) ?? right)
        diff = ExchangeDiff(shownLeft, shownRight)
        func title(_ message: DebugMessage) -> String {
            "#\(message.requestID) \(message.original?.method ?? "") \(message.name ?? message.original?.url ?? "")"
        }
        titles = (title(shownLeft), title(shownRight))
    }

    public var rows: [ExchangeDiff.Row] { showsAll ? diff.rows : diff.differences }
}
