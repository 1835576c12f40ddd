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

    /// `hiding`: the policy whose secrets both sides hide, nil while they are revealed.
    public init(_ left: DebugMessage, _ right: DebugMessage, hiding: RedactionPolicy? = nil) {
        self.left = left
        self.right = right
        diff = ExchangeDiff(hiding?.redact(left) ?? left, hiding?.redact(right) ?? right)
    }

    public var rows: [ExchangeDiff.Row] { showsAll ? diff.rows : diff.differences }
}
