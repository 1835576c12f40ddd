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
    /// The same, as a failure shows what it expected: secrets, `{{$env.…}}` values and what a
    /// chain captured stay as their `{{name}}`, so no credential reaches a report in a form
    /// (escaped for a regular expression, cut) that redaction would not find.
    public var shown: [Expectation]
    /// One failure for each assertion whose templates could not be filled (a variable with no
    /// value here): it fails unchecked, never passes.
    public var unfilled: [ExpectationFailure]

    public init(written: [Expectation], filled: [Expectation], shown: [Expectation], unfilled: [ExpectationFailure]) {
        self.written = written
        self.filled = filled
        self.shown = shown
        self.unfilled = unfilled
    }

    /// Assertions written without templates, checked as they are.
    public init(_ expectations: [Expectation]) {
        self.init(written: expectations, filled: expectations, shown: expectations, unfilled: [])
    }

    public init(arrayLiteral expectations: Expectation...) {
        self.init(expectations)
    }

    public var count: Int { written.count }

    /// What is wrong with an answered exchange: the assertions that could not be filled, then
    /// those that do not hold, each saying what it expected as `shown` has it.
    public func failures(in outcome: ExchangeOutcome, hiding: (String) -> String = { $0 }) -> [ExpectationFailure] {
        unfilled + checkedFailures(in: outcome, hiding: hiding).map(\.failure)
    }

    /// The failures of the assertions that were filled and checked, each with its assertion.
    func checkedFailures(in outcome: ExchangeOutcome, hiding: (String) -> String) -> [(failure: ExpectationFailure, expectation: Expectation)] {
        zip(filled, shown).compactMap { filled, shown in
            guard var failure = filled.failure(in: outcome, hiding: hiding) else { return nil }
            if filled != shown, failure.expected == filled.expectedText(hiding: hiding) { failure.expected = shown.expectedText(hiding: hiding) ?? failure.expected }
            return (failure, filled)
        }
    }
}

extension Expectation {
    /// The assertion with the templates of what it compares filled in by `template`; the names
    /// it checks (a header's, a JSON path) stay as written. A JSON value written as one template
    /// alone (`$.id: "{{id}}"`, quoted as YAML needs it) is the number, `true`, `false` or `null`
    /// its value reads as, so it equals the answer's `42` as its `"42"`; a regular expression
    /// takes each filled value as literal text, so a `.` or `+` in it matches only itself.
    /// `forShowing`: filled for a failure's text, a regular expression's values as they read.
    func filled(by template: Template, forShowing: Bool = false) throws(Template.Failure) -> Expectation {
        switch self {
        case .status, .maxDuration, .shape: return self
        case .bodyContains(let text): return .bodyContains(try template.expand(text))
        case .header(let name, let match): return .header(name, try Self.filled(match, by: template, readsJSON: false, forShowing: forShowing))
        case .json(let path, let match): return .json(path, try Self.filled(match, by: template, readsJSON: true, forShowing: forShowing))
        }
    }

    /// `readsJSON`: the value compared is JSON's (a header's is always text).
    private static func filled(_ match: Match, by template: Template, readsJSON: Bool, forShowing: Bool) throws(Template.Failure) -> Match {
        switch match {
        case .exists: return match
        case .matches(let pattern):
            return .matches(forShowing ? try template.expand(pattern) : try template.expand(pattern, filledValue: Self.literalPattern))
        case .equals(.string(let text)):
            let value = try template.expand(text)
            // Only a value written as JSON writes it (`42`, not `042` or `1.0`), which then
            // reads back as the same text.
            if readsJSON, Template.isOneExpression(text), let read = JSONValue.canonicalScalar(value) { return .equals(read) }
            return .equals(.string(value))
        case .equals(let value):
            return .equals(try value.mappingStrings(namesToo: false) { (text: String) throws(Template.Failure) in try template.expand(text) })
        }
    }

    /// `text` matching only itself in an ICU regular expression, inside a character class too
    /// (`[{{chars}}]`) and with `(?x)`: every ASCII character but letters and digits escaped.
    static func literalPattern(_ text: String) -> String {
        var pattern = ""
        for scalar in text.unicodeScalars {
            let isWord = ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
            if scalar.isASCII, !isWord { pattern.append("\\") }
            pattern.unicodeScalars.append(scalar)
        }
        return pattern
    }

    /// The text a failure of this assertion gives as what was expected, for the kinds whose
    /// values take templates (as `failure(in:)` writes it).
    func expectedText(hiding: (String) -> String) -> String? {
        switch self {
        case .status, .maxDuration, .shape: nil
        case .bodyContains(let text): Self.quoted(hiding(text))
        case .header(_, let match), .json(_, let match): Self.describe(match, hiding: hiding)
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
        // Shown as written where a credential stands: secrets, captured values, `$env.` values.
        var showing = self.template
        showing.deferred = Set(workspace.secretNames).union(workspace.secrets.values(for: environment).map(\.name)).union(captured.map(\.name))
        showing.environment = { _ in RedactionPolicy.marker }
        var filled: [Expectation] = []
        var shown: [Expectation] = []
        var unfilled: [ExpectationFailure] = []
        for expectation in written {
            do {
                filled.append(try expectation.filled(by: template))
                shown.append((try? expectation.filled(by: showing, forShowing: true)) ?? expectation)
            } catch {
                unfilled.append(ExpectationFailure(assertion: expectation.assertionName, expected: "its templates filled in",
                                                   actual: "not checked: \(error)"))
            }
        }
        return FilledExpectations(written: written, filled: filled, shown: shown, unfilled: unfilled)
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
