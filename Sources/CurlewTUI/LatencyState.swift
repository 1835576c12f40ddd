import CurlewAgent
import CurlewSessions

/// Latency mode: one request sent many times in a row, its percentiles per phase and a
/// histogram of total times filling in as the answers arrive.
public struct LatencyState: Sendable {
    public let name: String
    public let total: Int
    /// The batch that sends the copies; its members' messages are counted.
    public let groupID: UInt64
    public private(set) var messages: [DebugMessage] = []
    private var figures: LogStats?

    public init(name: String, total: Int, groupID: UInt64) {
        self.name = name
        self.total = total
        self.groupID = groupID
    }

    mutating func add(_ message: DebugMessage) {
        messages.append(message)
        figures = nil
    }

    /// The figures so far, computed once per batch of answers.
    mutating func stats() -> LogStats {
        if let figures { return figures }
        let computed = LogStats(messages)
        figures = computed
        return computed
    }

    /// The most copies one latency run sends.
    public static let maxCount = 10_000
    /// Copies sent when `:latency` names no count.
    public static let defaultCount = 50
}
