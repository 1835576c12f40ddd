import CurlewAgent
import Foundation

/// Two exchanges compared field by field: the request line and headers (as sent), the status and
/// response headers, the body (JSON member by member when both are JSON, else line by line)
/// and each timing phase with its change.
public struct ExchangeDiff: Sendable {
    /// One compared field: its two values (nil where a side has none).
    public struct Row: Sendable, Equatable {
        public var section: String
        public var field: String
        public var left: String?
        public var right: String?
        public var differs: Bool { left != right }
    }

    public var rows: [Row]

    /// The most body lines or JSON members compared.
    static let bodyLimit = 2000

    public init(_ left: DebugMessage, _ right: DebugMessage) {
        var rows: [Row] = []
        func add(_ section: String, _ field: String, _ a: String?, _ b: String?) { rows.append(Row(section: section, field: field, left: a, right: b)) }
        add("request", "method", left.original?.method, right.original?.method)
        add("request", "url", left.original?.url, right.original?.url)
        // As sent where the message has the wire capture, so a log and its HAR export (which
        // holds the headers as sent) compare equal.
        Self.headers(left.sentHeaders, right.sentHeaders).forEach { add("request header", $0.0, $0.1, $0.2) }
        add("response", "status", left.response.map { String($0.statusCode) } ?? left.error.map { "error: \($0.kind.rawValue)" },
            right.response.map { String($0.statusCode) } ?? right.error.map { "error: \($0.kind.rawValue)" })
        // A success against the same status failed by the agent's checks (validation, a
        // chain's capture) differs here.
        add("response", "outcome", Self.outcome(left), Self.outcome(right))
        add("response", "http version", left.response?.httpVersion, right.response?.httpVersion)
        Self.headers(left.response?.headers ?? [], right.response?.headers ?? [], skipping: ["date", "age", "expires", "last-modified"])
            .forEach { add("response header", $0.0, $0.1, $0.2) }
        Self.body(left.response?.body, right.response?.body).forEach { add("body", $0.0, $0.1, $0.2) }
        for phase in TimingBreakdown.phaseNames {
            let (a, b) = (Self.timing(left, phase), Self.timing(right, phase))
            // Most exchanges follow no redirect: the row shows only when one of them did.
            if phase == "redirects", a == nil, b == nil { continue }
            add("timing", phase, a.map(TimingBreakdown.format), b.map(TimingBreakdown.format))
        }
        self.rows = rows
        timingDeltas = TimingBreakdown.phaseNames.compactMap { phase in
            guard let a = Self.timing(left, phase), let b = Self.timing(right, phase) else { return nil }
            let (delta, overflow) = b.subtractingReportingOverflow(a)
            return (phase, overflow ? (b > a ? .max : .min + 1) : max(delta, .min + 1))
        }
    }

    /// A phase of `message` as the diff shows it. The time queued has a row of its
    /// own, so `total` runs from submission to the last byte, as the total under the waterfall
    /// of the interface and of `curlew send` does, and as `log show` times an exchange.
    static func timing(_ message: DebugMessage, _ phase: String) -> Int64? {
        phase == "total" ? message.timings?.elapsed : message.phase(named: phase)
    }

    /// How the exchange ended: its state, and its error's kind.
    static func outcome(_ message: DebugMessage) -> String {
        message.state.rawValue + (message.error.map { " (\($0.kind.rawValue))" } ?? "")
    }

    /// Right minus left per phase both have, in microseconds, between `-Int64.max` and
    /// `Int64.max` (a log's timings are input; the difference saturates instead of trapping).
    public var timingDeltas: [(phase: String, delta: Int64)]

    public var differences: [Row] { rows.filter(\.differs) }

    /// Headers by name (any case), several values of one name joined, in the left's order.
    static func headers(_ left: [HeaderField], _ right: [HeaderField], skipping: Set<String> = []) -> [(String, String?, String?)] {
        func grouped(_ fields: [HeaderField]) -> [(String, String)] {
            var order: [String] = []
            var values: [String: [String]] = [:]
            var names: [String: String] = [:]
            for field in fields where !skipping.contains(field.name.lowercased()) {
                let key = field.name.lowercased()
                if values[key] == nil { order.append(key); names[key] = field.name }
                values[key, default: []].append(field.value)
            }
            return order.map { (names[$0]!, values[$0]!.joined(separator: ", ")) }
        }
        let a = grouped(left), b = grouped(right)
        // Looked up by name, not searched: a response of tens of thousands of fields is input.
        var rightValues: [String: String] = [:]
        for entry in b { rightValues[entry.0.lowercased()] = entry.1 }
        let leftNames = Set(a.map { $0.0.lowercased() })
        var rows = a.map { entry in (entry.0, Optional(entry.1), rightValues[entry.0.lowercased()]) }
        rows += b.filter { !leftNames.contains($0.0.lowercased()) }.map { ($0.0, nil, Optional($0.1)) }
        return rows
    }

    /// JSON bodies member by member (`$.a.b[0]`); text bodies line by line; others by size and digest.
    static func body(_ left: BodySnapshot?, _ right: BodySnapshot?) -> [(String, String?, String?)] {
        // The size first, and how much of it the log kept: what lies past that is not compared
        // (found by a new user's trial: two bodies differing only there compared equal, unsaid).
        func size(_ body: BodySnapshot?) -> String? {
            body.map { "\($0.size) bytes" + ($0.isTruncated ? ", the first \($0.data.count) kept and compared" : "") }
        }
        let sizes: [(String, String?, String?)] = [("size", size(left), size(right))]
        if let left, let right, let a = try? JSONValue.parse(left.data), let b = try? JSONValue.parse(right.data) {
            var rows: [(String, String?, String?)] = []
            compare(a, b, "$", into: &rows)
            return sizes + rows + Self.cutNote(rows.count, bodiesDiffer: left.data != right.data)
        }
        let a = left?.text.map { $0.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
        let b = right?.text.map { $0.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
        if a != nil || b != nil, (left == nil || a != nil), (right == nil || b != nil) {
            let lines = max(a?.count ?? 0, b?.count ?? 0)
            let rows = (0..<min(bodyLimit, lines)).map { index in ("line \(index + 1)", a.flatMap { index < $0.count ? $0[index] : nil }, b.flatMap { index < $0.count ? $0[index] : nil }) }
            return sizes + rows + Self.cutNote(lines, bodiesDiffer: left?.data != right?.data)
        }
        func describe(_ body: BodySnapshot?) -> String? { body.map { "\($0.size) bytes of \($0.contentType ?? "data")" } }
        // For bodies that are not text, a row of their sizes and whether the bytes kept match.
        let kept = left?.isTruncated == true || right?.isTruncated == true ? sizes : []
        return kept + [("bytes", describe(left), left?.data == right?.data ? describe(left) : describe(right).map { $0 + " (other bytes)" })]
    }

    /// Two JSON values at one path. Objects that both have members are compared member by member
    /// (a member on one side only shows with nothing on the other), arrays that both have
    /// elements element by element; anything else, including a member whose type changed (an
    /// object on one side, `null` on the other) and an empty object or array against a full one,
    /// is one row with each side's whole value, cut to `valueLimit` characters.
    private static func compare(_ a: JSONValue?, _ b: JSONValue?, _ path: String, into rows: inout [(String, String?, String?)]) {
        guard rows.count < bodyLimit else { return }
        switch (a, b) {
        case (.object(let left)?, .object(let right)?) where !left.isEmpty && !right.isEmpty:
            // A member named twice is read as its last, as `JSONValue`'s lookup, JavaScript,
            // Python and jq read it; it keeps the place of its first.
            var rightByKey: [String: JSONValue] = [:]
            for member in right { rightByKey[member.key] = member.value }
            var leftByKey: [String: JSONValue] = [:]
            for member in left { leftByKey[member.key] = member.value }
            var leftKeys = Set<String>()
            for member in left where leftKeys.insert(member.key).inserted {
                guard rows.count < bodyLimit else { return }
                compare(leftByKey[member.key], rightByKey[member.key], path + "." + Self.shownKey(member.key), into: &rows)
            }
            for member in right where !leftKeys.contains(member.key) {
                guard rows.count < bodyLimit else { return }
                leftKeys.insert(member.key)
                compare(nil, rightByKey[member.key], path + "." + Self.shownKey(member.key), into: &rows)
            }
        case (.array(let left)?, .array(let right)?) where !left.isEmpty && !right.isEmpty:
            for index in 0..<max(left.count, right.count) {
                guard rows.count < bodyLimit else { return }
                // `JSONValue` is itself nil-expressible: spelled out, a missing element is not `null`.
                let missing: JSONValue? = .none
                compare(index < left.count ? left[index] : missing, index < right.count ? right[index] : missing, "\(path)[\(index)]", into: &rows)
            }
        default:
            var (left, right) = (a.map { $0.serialized() }, b.map { $0.serialized() })
            if let whole = left, whole.count > valueLimit { left = cut(whole, differing: a != b && right.map { Self.cut($0) } == Self.cut(whole)) }
            if let whole = right, whole.count > valueLimit { right = cut(whole, differing: false) }
            rows.append((path, left, right))
        }
    }

    /// A member's name as a row's path shows it: cut to `keyLimit` characters, so a body of
    /// megabyte names makes rows of short paths, not a copy of each name in every row under it.
    private static func shownKey(_ key: String) -> String {
        key.utf8.count <= keyLimit || key.count <= keyLimit ? key : String(key.prefix(keyLimit)) + "…"
    }

    /// A row saying the body was compared only as far as `bodyLimit` rows when `rows` were more:
    /// a difference of its own when the bodies' bytes are not the same, so a pair that differs
    /// only past the rows compared is never counted as without differences (found by a new
    /// user's trial).
    private static func cutNote(_ rows: Int, bodiesDiffer: Bool) -> [(String, String?, String?)] {
        guard rows >= bodyLimit else { return [] }
        let text = "compared as far as \(bodyLimit) rows; the rest is not"
        return [("…", text, bodiesDiffer ? text + ", and the bodies are not the same" : text)]
    }

    /// The most characters of a member's name a path shows.
    static let keyLimit = 64

    /// The most characters of one side's value a row holds: a subtree of megabytes stays one
    /// row a screen can draw.
    public static let valueLimit = 4096

    /// `value` cut to `valueLimit` characters with its full length said; `differing` marks a
    /// left side whose cut reads as the right's although the values differ further on.
    private static func cut(_ value: String, differing: Bool = false) -> String {
        guard value.count > valueLimit else { return value }
        return String(value.prefix(valueLimit)) + "… (\(value.utf8.count) bytes\(differing ? ", differs further on" : ""))"
    }
}
