import CurlewAgent
import CurlewSessions

/// Latency mode: one request sent many times in a row (or a group run many times), its
/// percentiles per phase and a histogram of total times filling in as the answers arrive.
public struct LatencyState: Sendable {
    public let name: String
    public let total: Int
    /// The batch that sends the copies; its members' messages are counted.
    public let groupID: UInt64
    /// The copies are runs of a group: each run's time is counted, and its requests' phases.
    public let runsGroup: Bool
    /// The answers (an error status included) whose figures are counted, one per copy (or per
    /// request of a run): its last message, so a retried request's earlier attempts and a
    /// message published before a cancel are replaced by what came after them.
    public var messages: [DebugMessage] { answers.compactMap { $0 } }
    /// How many copies (or requests of the runs) are counted as answered.
    public private(set) var answeredCount = 0
    /// Requests that ended without an answer (a refused connection, a timeout, a TLS failure),
    /// by kind: counted apart, never in the figures, where a refusal's few microseconds would
    /// pass for the fastest answers.
    public private(set) var unanswered: [RequestError.Kind: Int] = [:]
    /// How many requests ended without an answer.
    public var unansweredCount: Int { unanswered.values.reduce(0, +) }
    /// Copies stopped before an answer (`x`), those never sent included once the run ended:
    /// counted apart, never in the figures, where the time until the stop would pass for an
    /// answer's.
    public var cancelled: Int { ended && !runsGroup ? max(0, total - answeredCount - unansweredCount) : cancelledSeen }
    private var cancelledSeen = 0
    /// Answers in the order they came; nil where a later message of the same request took the place.
    private var answers: [DebugMessage?] = []
    /// How each request ended, by its last message so far.
    private var endings: [RequestKey: Ending] = [:]

    private enum Ending {
        case answered(slot: Int)
        case unanswered(RequestError.Kind)
        case cancelled
    }

    /// One copy, or one request of a run: its group and place there, which every attempt of a
    /// retried request shares.
    private struct RequestKey: Hashable {
        let group: UInt64
        let place: Int?
        let id: UInt64?

        init(_ message: DebugMessage, group: UInt64) {
            self.group = group
            place = message.step
            id = message.step == nil ? message.requestID : nil
        }
    }
    /// The batch of copies or runs has finished (all done, or stopped).
    public private(set) var ended = false
    /// The groups of the runs and every group nested in them: their requests are counted.
    private var runGroups: Set<UInt64>
    /// Each finished run's time, in microseconds, with whether it succeeded; a cancelled run is
    /// counted in `cancelledRuns` instead.
    public private(set) var runs: [(duration: Int64, succeeded: Bool)] = []
    /// Runs stopped, those never started included once the run ended.
    public var cancelledRuns: Int { ended ? total - runs.count : cancelledRunsSeen }
    private var cancelledRunsSeen = 0
    private var figures: LogStats?

    public init(name: String, total: Int, groupID: UInt64, runsGroup: Bool = false) {
        self.name = name
        self.total = total
        self.groupID = groupID
        self.runsGroup = runsGroup
        runGroups = [groupID]
    }

    /// How many copies or runs ran to their end, cancelled ones left out.
    public var completed: Int { runsGroup ? runs.count : min(total, answeredCount + unansweredCount) }

    /// How many copies or runs have ended, cancelled ones included.
    public var done: Int { ended ? total : runsGroup ? runs.count + cancelledRunsSeen : min(total, answeredCount + unansweredCount + cancelledSeen) }

    /// The unanswered count with its commonest kind, for the title; nil when every request
    /// was answered.
    public var unansweredSummary: String? {
        guard let commonest = unanswered.max(by: { $0.value < $1.value || ($0.value == $1.value && $0.key.rawValue > $1.key.rawValue) }) else { return nil }
        let others = unanswered.count > 1 ? " and others" : ""
        return "\(unansweredCount) unanswered (\(commonest.key.rawValue)\(others))"
    }

    /// Takes a debug message when it belongs to the run; false when it does not.
    @discardableResult
    mutating func take(_ message: DebugMessage) -> Bool {
        guard let id = message.groupID, runGroups.contains(id) else { return false }
        let key = RequestKey(message, group: id)
        switch endings[key] {
        case .answered(let slot):
            answers[slot] = nil
            answeredCount -= 1
            figures = nil
        case .unanswered(let kind):
            unanswered[kind, default: 1] -= 1
            if unanswered[kind] == 0 { unanswered[kind] = nil }
        case .cancelled:
            cancelledSeen -= 1
        case nil:
            break
        }
        if message.state == .cancelled {
            cancelledSeen += 1
            endings[key] = .cancelled
        } else if message.response == nil {
            let kind = message.error?.kind ?? .couldNotConnect
            unanswered[kind, default: 0] += 1
            endings[key] = .unanswered(kind)
        } else {
            endings[key] = .answered(slot: answers.count)
            answers.append(message)
            answeredCount += 1
            figures = nil
        }
        return true
    }

    /// Follows the run's groups: nested ones as they are created, each run as it finishes.
    mutating func take(_ event: GroupEvent) {
        switch event {
        case .created(let info, _):
            if let parent = info.parentID, runGroups.contains(parent) { runGroups.insert(info.id) }
        case .finished(let info, _, _, _) where info.id == groupID:
            ended = true
        case .finished(let info, .cancelled, _, _) where runsGroup && info.parentID == groupID:
            cancelledRunsSeen += 1
        case .finished(let info, let verdict, let duration, _) where runsGroup && info.parentID == groupID:
            runs.append((duration, verdict == .succeeded))
            figures = nil
        default:
            break
        }
    }

    /// Percentiles of whole runs, in microseconds.
    public var runPercentiles: (p50: Int64?, p90: Int64?, p99: Int64?) {
        let sorted = runs.map(\.duration).sorted()
        return (sorted.percentile(0.5), sorted.percentile(0.9), sorted.percentile(0.99))
    }

    /// Counts of run times per histogram bucket, as `LogStats.histogram` counts request times.
    public var runHistogram: [Int] { LogStats.histogram(of: runs.map(\.duration)) }

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
