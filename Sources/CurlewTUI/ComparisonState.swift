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
    /// The log entry each side was read from (the number `LOG#N` takes), nil for one from Live.
    public let logEntries: (left: Int?, right: Int?)

    /// `hiding`: the policy whose secrets both sides hide, nil while they are revealed.
    public init(_ left: DebugMessage, _ right: DebugMessage, hiding: RedactionPolicy?, logEntries: (left: Int?, right: Int?) = (nil, nil)) {
        self.left = left
        self.right = right
        self.logEntries = logEntries
        let (shownLeft, shownRight) = (hiding?.redact(left) ?? left, hiding?.redact(right) ?? right)
        diff = ExchangeDiff(shownLeft, shownRight)
        // As the detail's title has it: `entry 8 · #13 GET item 5`.
        func title(_ message: DebugMessage, _ entry: Int?) -> String {
            (entry.map { "entry \($0) · " } ?? "") + "#\(message.requestID) \(message.original?.method ?? "") \(message.name ?? message.original?.url ?? "")"
        }
        titles = (title(shownLeft, logEntries.left), title(shownRight, logEntries.right))
    }

    public var rows: [ExchangeDiff.Row] { showsAll ? diff.rows : diff.differences }
}

/// An exchange marked for comparison (`m`), with the log entry it was read from.
public struct MarkedExchange: Sendable {
    public let message: DebugMessage
    /// The number `LOG#N` takes; nil for an exchange from Live.
    public let logEntry: Int?

    /// How the status line names it: `entry 8 · #13`, or `#13`.
    var label: String {
        (logEntry.map { "entry \($0) · " } ?? "") + "#\(message.requestID)"
    }
}
