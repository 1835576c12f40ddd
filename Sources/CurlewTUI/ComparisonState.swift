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
    /// Where each side was read from: the log file and entry (the number `LOG#N` takes); nil
    /// for one from Live.
    public let sources: (left: LogEntrySource?, right: LogEntrySource?)

    /// `hiding`: the policy whose secrets both sides hide, nil while they are revealed.
    public init(_ left: DebugMessage, _ right: DebugMessage, hiding: RedactionPolicy?,
                sources: (left: LogEntrySource?, right: LogEntrySource?) = (nil, nil)) {
        self.left = left
        self.right = right
        self.sources = sources
        let (shownLeft, shownRight) = (hiding?.redact(left) ?? left, hiding?.redact(right) ?? right)
        diff = ExchangeDiff(shownLeft, shownRight)
        // The file is named only when the two sides come from different ones.
        let namesFiles = sources.left?.file != sources.right?.file
        func title(_ message: DebugMessage, _ source: LogEntrySource?) -> String {
            LogEntrySource.prefix(source, namingFile: namesFiles) + "#\(message.requestID) \(message.original?.method ?? "") \(message.name ?? message.original?.url ?? "")"
        }
        titles = (title(shownLeft, sources.left), title(shownRight, sources.right))
    }

    public var rows: [ExchangeDiff.Row] { showsAll ? diff.rows : diff.differences }
}

/// An exchange marked for comparison (`m`), with where it was read from.
public struct MarkedExchange: Sendable {
    public let message: DebugMessage
    /// nil for an exchange from Live.
    public let source: LogEntrySource?

    /// How the status line names it: `entry 8 · #13`, or `#13`.
    var label: String {
        LogEntrySource.prefix(source, namingFile: false) + "#\(message.requestID)"
    }
}

/// A log entry an exchange was read from: the file's name and the entry's number in it, the
/// one `LOG#N` takes.
public struct LogEntrySource: Sendable, Equatable {
    public let file: String
    public let entry: Int

    /// What leads an exchange's heading (the detail's title, a comparison's sides):
    /// `entry 8 · `, or `a.jsonl entry 8 · ` with `namingFile`; nothing for none.
    static func prefix(_ source: LogEntrySource?, namingFile: Bool) -> String {
        guard let source else { return "" }
        return (namingFile ? "\(source.file) " : "") + "entry \(source.entry) · "
    }
}
