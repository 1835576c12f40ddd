import CurlewAgent
import CurlewSessions
import Foundation

/// One `expect:` assertion of a named request, checked against the exchange once it finishes.
public enum Expectation: Sendable, Equatable {
    /// How a header's or JSON value's text is compared.
    public enum Match: Sendable, Equatable {
        case exists(Bool)
        case equals(JSONValue)
        /// A regular expression that must match somewhere in the value.
        case matches(String)
    }

    /// The status is one of these codes or ranges.
    case status([Range<Int>])
    case header(String, Match)
    case json(JSONPath, Match)
    case bodyContains(String)
    case maxDuration(Duration)
    /// The body is JSON of this shape (the agent's `JSONShape`).
    case shape(JSONShape)
}

/// An assertion that did not hold: what was checked, what was expected and what was found.
public struct ExpectationFailure: Sendable, Equatable, CustomStringConvertible {
    public var assertion: String
    public var expected: String
    public var actual: String

    public var description: String { "\(assertion): expected \(expected), got \(actual)" }

    /// `, 2 assertions failed` after a group's verdict, or nothing when none failed: the words
    /// `curlew run` and the interface both use.
    public static func countText(_ count: Int) -> String {
        count == 0 ? "" : ", \(count) assertion\(count == 1 ? "" : "s") failed"
    }
}

/// What an assertion is checked against.
public struct ExchangeOutcome: Sendable {
    public var response: Response?
    public var error: RequestError?
    public var duration: Duration?

    public init(response: Response?, error: RequestError?, duration: Duration?) {
        self.response = response
        self.error = error
        self.duration = duration
    }

    /// The duration a `maxDuration` assertion checks, from an exchange's timings: the network's
    /// total, without time queued (in the agent, or in libcurl waiting for a connection). The
    /// one rule for `curlew run` and the interface.
    public static func duration(of timings: TimingBreakdown?) -> Duration? {
        timings.map { .microseconds($0.total) }
    }
}

extension Expectation {
    /// The longest body text searched or matched, so a hostile 1 GiB answer cannot stall a run.
    static let bodyTextLimit = 4 << 20

    /// What `expectations` find wrong with an exchange that got no answer: one failure standing
    /// for them all, since none could be checked (a `policy: any` group holding it must not pass
    /// on checks never made); none for a cancelled one, which was stopped, not answered wrong.
    /// The one rule for `curlew run` and the interface.
    public static func unansweredFailures(of expectations: [Expectation], error: RequestError?) -> [ExpectationFailure] {
        guard !expectations.isEmpty, let error, error.kind != .cancelled else { return [] }
        return [ExpectationFailure(assertion: "answer", expected: "a response for \(expectations.count) assertion\(expectations.count == 1 ? "" : "s")",
                                   actual: "none (\(error.kind.rawValue))")]
    }

    /// Nil when the assertion holds. `hiding` hides credentials in the texts a failure shows
    /// before they are cut (a cut secret would no longer be found).
    public func failure(in outcome: ExchangeOutcome, hiding: (String) -> String = { $0 }) -> ExpectationFailure? {
        switch self {
        case .status(let ranges):
            let expected = ranges.map(Self.describe).joined(separator: " or ")
            guard let status = outcome.response?.statusCode else {
                return ExpectationFailure(assertion: assertionName, expected: expected, actual: outcome.error.map { "no response (\($0.kind.rawValue))" } ?? "no response")
            }
            return ranges.contains { $0.contains(status) } ? nil : ExpectationFailure(assertion: assertionName, expected: expected, actual: String(status))
        case .header(let name, let match):
            let value = outcome.response?.headers[name]
            return Self.check(match, value.map(JSONValue.string), assertion: assertionName, hiding: hiding)
        case .json(let path, let match):
            let assertion = assertionName
            guard let body = outcome.response?.body else {
                return ExpectationFailure(assertion: assertion, expected: Self.describe(match, hiding: hiding), actual: "no response")
            }
            let read = Self.document(of: body)
            guard let document = read.document else {
                return ExpectationFailure(assertion: assertion, expected: Self.describe(match, hiding: hiding), actual: read.instead)
            }
            return Self.check(match, path.evaluate(document), assertion: assertion, hiding: hiding)
        case .bodyContains(let text):
            let body = outcome.response?.body ?? Data()
            // Every body holds the empty text (a variable that came to nothing).
            let found = text.isEmpty || body.prefix(Self.bodyTextLimit).range(of: Data(text.utf8)) != nil
            return found ? nil : ExpectationFailure(assertion: assertionName, expected: Self.quoted(hiding(text)), actual: "\(body.count) bytes without it")
        case .maxDuration(let limit):
            guard let duration = outcome.duration else {
                return ExpectationFailure(assertion: assertionName, expected: "at most \(Self.describe(limit))", actual: "no timing")
            }
            guard duration > limit else { return nil }
            let shown = Self.describe(duration, against: limit)
            return ExpectationFailure(assertion: assertionName, expected: "at most \(shown.limit)", actual: shown.actual)
        case .shape(let shape):
            let read = outcome.response.map { Self.document(of: $0.body) } ?? (document: nil, instead: "no response")
            guard let document = read.document else {
                return ExpectationFailure(assertion: assertionName, expected: shape.name, actual: read.instead)
            }
            guard let mismatch = shape.firstMismatch(in: document) else { return nil }
            // Said where the document departs from the shape, not of the whole.
            return ExpectationFailure(assertion: assertionName, expected: "\(mismatch.expected) at \(mismatch.path)", actual: mismatch.found ?? "no such member")
        }
    }

    private static func check(_ match: Match, _ value: JSONValue?, assertion: String, hiding: (String) -> String) -> ExpectationFailure? {
        switch match {
        case .exists(let wanted):
            let present = value != nil
            return present == wanted ? nil : ExpectationFailure(assertion: assertion, expected: wanted ? "present" : "absent", actual: present ? describe(value!, hiding: hiding) : "absent")
        case .equals(let expected):
            guard let value else { return ExpectationFailure(assertion: assertion, expected: describe(expected, hiding: hiding), actual: "absent") }
            // Text from a header equals a number written in YAML when the digits agree.
            if value == expected || (value.stringValue != nil && value.stringValue == expected.textValue) { return nil }
            return ExpectationFailure(assertion: assertion, expected: describe(expected, hiding: hiding), actual: describe(value, hiding: hiding))
        case .matches(let pattern):
            guard let value else { return ExpectationFailure(assertion: assertion, expected: "a match for /\(pattern)/", actual: "absent") }
            let text = String(value.textValue.prefix(bodyTextLimit))
            // The server chose the text: the match's work is bounded.
            guard let regex = try? TextPattern(pattern) else {
                return ExpectationFailure(assertion: assertion, expected: "a match for /\(pattern)/", actual: "not a regular expression")
            }
            if regex.matches(text) { return nil }
            return ExpectationFailure(assertion: assertion, expected: "a match for /\(pattern)/", actual: regex.gaveUp ? regex.gaveUpMessage : describe(value, hiding: hiding))
        }
    }

    static func describe(_ match: Match, hiding: (String) -> String = { $0 }) -> String {
        switch match {
        case .exists(let wanted): wanted ? "present" : "absent"
        case .equals(let value): describe(value, hiding: hiding)
        case .matches(let pattern): "a match for /\(pattern)/"
        }
    }

    static func describe(_ value: JSONValue, hiding: (String) -> String = { $0 }) -> String {
        let text = hiding(value.serialized())
        return text.count > 120 ? String(text.prefix(120)) + "…" : text
    }

    static func describe(_ range: Range<Int>) -> String {
        if range.count == 1 { return String(range.lowerBound) }
        if range.count == 100, range.lowerBound % 100 == 0 { return "\(range.lowerBound / 100)xx" }
        return "\(range.lowerBound)-\(range.upperBound - 1)"
    }

    /// A body read as JSON, or what it is instead, as a failed check says it: too large to
    /// read, nested too deep, or no JSON (with where it stops being JSON).
    private static func document(of body: Data) -> (document: JSONValue?, instead: String) {
        guard body.count <= bodyTextLimit else { return (nil, "a body of \(body.count) bytes, more than the \(bodyTextLimit) an assertion reads") }
        do {
            return (try JSONValue.parse(body), "")
        } catch {
            return (nil, error.reason.hasPrefix("nesting deeper") ? "JSON \(error.reason)" : "a body that is not JSON (\(error))")
        }
    }

    static func describe(_ duration: Duration) -> String {
        describe(duration, decimals: 0)
    }

    /// A duration over its limit and the limit, both with as many decimals as it takes to read
    /// them apart (`1.4ms` over `1.0ms`, not `1ms` over `1ms`), down to microseconds.
    static func describe(_ duration: Duration, against limit: Duration) -> (actual: String, limit: String) {
        var decimals = 0
        while decimals < 4, describe(duration, decimals: decimals) == describe(limit, decimals: decimals) { decimals += 1 }
        return (describe(duration, decimals: decimals), describe(limit, decimals: decimals))
    }

    /// Milliseconds with `decimals` decimals (at most 3), or seconds with two more from a second on.
    private static func describe(_ duration: Duration, decimals: Int) -> String {
        let milliseconds = duration.milliseconds
        return milliseconds >= 1000 ? String(format: "%.\(decimals + 2)fs", milliseconds / 1000) : String(format: "%.\(min(decimals, 3))fms", milliseconds)
    }

    static func quoted(_ text: String) -> String {
        "\"" + (text.count > 80 ? String(text.prefix(80)) + "…" : text) + "\""
    }
}
