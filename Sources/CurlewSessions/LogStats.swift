import CurlewAgent
import Foundation

/// Per-endpoint figures of a log: counts, error rates and latency percentiles per phase, with a
/// histogram of total times. An endpoint is a method and a path whose ids (numbers, UUIDs, long
/// hex) read as `{id}`, so `/users/1` and `/users/2` count together.
public struct LogStats: Sendable {
    /// One timing phase's percentiles.
    public struct Phase: Sendable, Equatable {
        public var name: String
        /// Microseconds; nil when the phase never happened in this endpoint's exchanges.
        public var p50: Int64?
        public var p90: Int64?
        public var p99: Int64?
    }

    /// The figures of one endpoint (or of all exchanges).
    public struct Endpoint: Sendable {
        public var method: String
        public var path: String
        public var count: Int
        /// No response, or a status of 400 or more.
        public var errors: Int
        public var phases: [Phase]
        public var errorRate: Double { count == 0 ? 0 : Double(errors) / Double(count) }
    }

    /// Upper bounds of the histogram's buckets in milliseconds; the last bucket is open.
    public static let bucketBounds: [Double] = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000]

    public var endpoints: [Endpoint]
    public var total: Endpoint
    /// Counts of total times per bucket (`bucketBounds.count + 1` of them).
    public var histogram: [Int]

    static let phaseNames = TimingBreakdown.phaseNames.filter { $0 != "queued" && $0 != "redirects" }

    public init(_ messages: [DebugMessage]) {
        var tally = Tally()
        for message in messages { tally.add(message) }
        self.init(tally)
    }

    /// The figures of the exchanges `tally` counted.
    public init(_ tally: Tally) {
        endpoints = tally.order.compactMap { key in tally.groups[key]?.endpoint(method: key.method, path: key.path) }
        total = tally.total.endpoint(method: "", path: "all")
        histogram = tally.histogram
    }

    /// The figures gathered an exchange at a time: what each needs of it (its endpoint, whether
    /// it failed, its phases' durations), so a log is counted without keeping its exchanges.
    public struct Tally: Sendable {
        fileprivate struct Key: Hashable {
            var method: String
            var path: String
        }

        fileprivate var groups: [Key: EndpointTally] = [:]
        fileprivate var order: [Key] = []
        fileprivate var total = EndpointTally()
        fileprivate var histogram = Array(repeating: 0, count: LogStats.bucketBounds.count + 1)

        public init() {}

        public mutating func add(_ message: DebugMessage) {
            if let total = message.phase(named: "total") { histogram[LogStats.bucket(of: total)] += 1 }
            guard let original = message.original else { return }
            let key = Key(method: original.method, path: LogStats.endpointPath(original.url))
            if groups[key] == nil { order.append(key) }
            // Each phase read once, for the endpoint and the total alike.
            let durations = LogStats.phaseNames.map { message.phase(named: $0) }
            let failed = (message.response?.statusCode ?? 0) >= 400 || message.response == nil || message.error != nil
            groups[key, default: EndpointTally()].add(durations, failed: failed)
            total.add(durations, failed: failed)
        }
    }

    /// One endpoint's count, errors and each phase's durations.
    fileprivate struct EndpointTally: Sendable {
        var count = 0
        var errors = 0
        /// Microseconds, by `phaseNames`.
        var durations: [[Int64]] = Array(repeating: [], count: LogStats.phaseNames.count)

        /// An exchange's phases by `phaseNames` (nil where it had none); `failed`: an error
        /// status, no response, or an exchange that did not succeed (a stream cancelled after its
        /// 200, a body cut by a timeout).
        mutating func add(_ phases: [Int64?], failed: Bool) {
            count += 1
            if failed { errors += 1 }
            for (index, value) in phases.enumerated() {
                if let value { durations[index].append(value) }
            }
        }

        func endpoint(method: String, path: String) -> Endpoint {
            let phases = zip(LogStats.phaseNames, durations).map { name, values -> Phase in
                let sorted = values.sorted()
                return Phase(name: name, p50: sorted.percentile(0.5), p90: sorted.percentile(0.9), p99: sorted.percentile(0.99))
            }
            return Endpoint(method: method, path: path, count: count, errors: errors, phases: phases)
        }
    }

    /// Counts of durations (microseconds) per bucket of `bucketBounds`.
    public static func histogram(of durations: [Int64]) -> [Int] {
        var counts = Array(repeating: 0, count: bucketBounds.count + 1)
        for duration in durations { counts[bucket(of: duration)] += 1 }
        return counts
    }

    /// The bucket of `bucketBounds` a duration (microseconds) falls in.
    static func bucket(of duration: Int64) -> Int {
        let milliseconds = Double(duration) / 1000
        return bucketBounds.firstIndex { milliseconds < $0 } ?? bucketBounds.count
    }

    /// The URL's path with ids folded: `/users/42/orders/9f8e…` is `/users/{id}/orders/{id}`.
    public static func endpointPath(_ url: String) -> String {
        var rest = Substring(url)
        if let scheme = rest.range(of: "://") { rest = rest[scheme.upperBound...].drop { $0 != "/" } }
        let path = rest.prefix { $0 != "?" && $0 != "#" }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).map { segment -> String in
            // Digits, with at most one point between them (`42`, `0.1`): a number is a parameter.
            let digits = segment.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
            let isNumber = !segment.isEmpty && digits.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }
            let isHex = segment.count >= 16 && segment.allSatisfy { $0.isHexDigit || $0 == "-" }
            return isNumber || isHex ? "{id}" : String(segment)
        }
        let joined = segments.joined(separator: "/")
        return joined.isEmpty ? "/" : joined
    }
}
