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
        struct Key: Hashable {
            var method: String
            var path: String
        }
        var groups: [Key: [DebugMessage]] = [:]
        var order: [Key] = []
        for message in messages {
            guard let original = message.original else { continue }
            let key = Key(method: original.method, path: Self.endpointPath(original.url))
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(message)
        }
        endpoints = order.map { Self.endpoint(method: $0.method, path: $0.path, groups[$0] ?? []) }
        total = Self.endpoint(method: "", path: "all", messages.filter { $0.original != nil })
        histogram = Self.histogram(of: messages.compactMap { $0.phase(named: "total") })
    }

    /// Counts of durations (microseconds) per bucket of `bucketBounds`.
    public static func histogram(of durations: [Int64]) -> [Int] {
        var counts = Array(repeating: 0, count: bucketBounds.count + 1)
        for duration in durations {
            let milliseconds = Double(duration) / 1000
            counts[bucketBounds.firstIndex { milliseconds < $0 } ?? bucketBounds.count] += 1
        }
        return counts
    }

    private static func endpoint(method: String, path: String, _ messages: [DebugMessage]) -> Endpoint {
        // An error status, no response, or an exchange that did not succeed (a stream cancelled
        // after its 200, a body cut by a timeout).
        let errors = messages.filter { ($0.response?.statusCode ?? 0) >= 400 || $0.response == nil || $0.error != nil }.count
        let phases = phaseNames.map { name -> Phase in
            let values = messages.compactMap { $0.phase(named: name) }.sorted()
            return Phase(name: name, p50: values.percentile(0.5), p90: values.percentile(0.9), p99: values.percentile(0.99))
        }
        return Endpoint(method: method, path: path, count: messages.count, errors: errors, phases: phases)
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
