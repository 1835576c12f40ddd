import CurlewAgent
import Foundation

/// A request's `expect:` assertions for one exchange, their templates filled in as its request's
/// were: the environment, the workspace's variables and secrets, `--var` values, built-ins, and
/// in a chain the values captured before the step (`WorkspaceSession.expectations(of:captured:)`).
public struct FilledExpectations: Sendable, Equatable, ExpressibleByArrayLiteral {
    /// The assertions as the workspace writes them, which tell whether a report is current.
    public var written: [Expectation]
    /// Those whose templates could be filled, filled, to check against the answer.
    public var filled: [Expectation]
    /// One failure for each assertion whose templates could not be filled (a variable with no
    /// value here): it fails unchecked, never passes.
    public var unfilled: [ExpectationFailure]

    public init(written: [Expectation], filled: [Expectation], unfilled: [ExpectationFailure]) {
        self.written = written
        self.filled = filled
        self.unfilled = unfilled
    }

    /// Assertions written without templates, checked as they are.
    public init(_ expectations: [Expectation]) {
        self.init(written: expectations, filled: expectations, unfilled: [])
    }

    public init(arrayLiteral expectations: Expectation...) {
        self.init(expectations)
    }

    public var isEmpty: Bool { written.isEmpty }
    public var count: Int { written.count }

    /// What is wrong with an answered exchange: the assertions that could not be filled, then
    /// those that do not hold.
    func failures(in outcome: ExchangeOutcome) -> [ExpectationFailure] {
        unfilled + filled.compactMap { $0.failure(in: outcome) }
    }
}

extension Expectation {
    /// The assertion with the templates of what it compares filled in by `template`; the names
    /// it checks (a header's, a JSON path) stay as written. A JSON value written as one template
    /// alone (`$.id: "{{id}}"`, quoted as YAML needs it) is the number, `true`, `false` or `null`
    /// its value reads as, so it equals the answer's `42` as its `"42"`; a regular expression
    /// takes each filled value as literal text, so a `.` or `+` in it matches only itself.
    func filled(by template: Template) throws(Template.Failure) -> Expectation {
        switch self {
        case .status, .maxDuration, .shape: return self
        case .bodyContains(let text): return .bodyContains(try template.expand(text))
        case .header(let name, let match): return .header(name, try Self.filled(match, by: template))
        case .json(let path, let match): return .json(path, try Self.filled(match, by: template))
        }
    }

    private static func filled(_ match: Match, by template: Template) throws(Template.Failure) -> Match {
        switch match {
        case .exists: return match
        case .matches(let pattern): return .matches(try template.expand(pattern, filledValue: NSRegularExpression.escapedPattern(for:)))
        case .equals(.string(let text)):
            let value = try template.expand(text)
            if Template.isOneExpression(text), let read = try? JSONValue.parse(value), Self.isScalar(read) { return .equals(read) }
            return .equals(.string(value))
        case .equals(let value):
            return .equals(try value.mappingStrings(namesToo: false) { (text: String) throws(Template.Failure) in try template.expand(text) })
        }
    }

    private static func isScalar(_ value: JSONValue) -> Bool {
        switch value {
        case .int, .double, .bool, .null: true
        case .string, .array, .object: false
        }
    }

    /// What the assertion checks, as its failures name it.
    var assertionName: String {
        switch self {
        case .status: "status"
        case .header(let name, _): "header \(name)"
        case .json(let path, _): "json \(path)"
        case .bodyContains: "body contains"
        case .maxDuration: "duration"
        case .shape: "shape"
        }
    }
}

extension WorkspaceSession {
    /// The `expect:` assertions of the request `name`, filled in for one exchange: with this
    /// session's variables, and `captured`, the values a chain captured before the step (as its
    /// request was filled). An assertion with a template that cannot be filled becomes a failure
    /// that says why. None for a name the workspace does not hold.
    public func expectations(of name: String, captured: [(name: String, value: String)] = []) -> FilledExpectations {
        let written = workspace.request(named: name)?.expectations ?? []
        guard written.contains(where: \.hasTemplates) else { return FilledExpectations(written) }
        let template = template(capturing: captured)
        var filled: [Expectation] = []
        var unfilled: [ExpectationFailure] = []
        for expectation in written {
            do {
                filled.append(try expectation.filled(by: template))
            } catch {
                unfilled.append(ExpectationFailure(assertion: expectation.assertionName, expected: "its templates filled in",
                                                   actual: "not checked: \(error)"))
            }
        }
        return FilledExpectations(written: written, filled: filled, unfilled: unfilled)
    }
}

extension Expectation {
    /// Whether what the assertion compares holds a `{{`.
    var hasTemplates: Bool {
        func has(_ match: Match) -> Bool {
            switch match {
            case .exists: false
            case .matches(let pattern): pattern.contains("{{")
            case .equals(let value): value.serialized().contains("{{")
            }
        }
        switch self {
        case .status, .maxDuration, .shape: return false
        case .bodyContains(let text): return text.contains("{{")
        case .header(_, let match), .json(_, let match): return has(match)
        }
    }
}
