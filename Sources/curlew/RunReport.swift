import CurlewAgent
import CurlewLocking
import CurlewSessions
import CurlewWorkspace
import Foundation

/// What `curlew run` prints: a line per request as it finishes (with a progress bar kept under
/// them on a terminal), then the summary. Secret values never reach the output.
final class RunReport: Sendable {
    private let total: Int
    private let isTerminal: Bool
    private let redaction: RedactionPolicy
    /// Whether the report goes to standard error, leaving standard output to a HAR file or a
    /// JUnit report written there (`--har -`).
    private let toStandardError: Bool
    private let state = Locked<(done: Int, failed: Int, barShown: Bool)>((0, 0, false))

    /// `redaction` says which secret values, header names and JSON members to hide from what
    /// is printed and reported (the terminal and JUnit get no opt-out).
    init(total: Int, isTerminal: Bool, redaction: RedactionPolicy, toStandardError: Bool = false) {
        self.total = total
        self.isTerminal = isTerminal
        self.redaction = redaction
        self.toStandardError = toStandardError
    }

    /// Writes report text where the report goes.
    func write(_ text: String) {
        if toStandardError { StandardStreams.error(text) } else { StandardStreams.out(text) }
    }

    /// An assertion failure whose actual value is hidden when it is a credential: a secret
    /// header's value, or a JSON member on a path through a secret name (`$.access_token`,
    /// `$.headers.Authorization` as an echoing server reflects it).
    func masked(_ failure: ExpectationFailure) -> ExpectationFailure {
        var failure = failure
        let words = failure.assertion.split(separator: " ", maxSplits: 1).map(String.init)
        guard words.count == 2 else { return failure }
        let secretHeader = words[0] == "header" && redaction.hidesValue(ofHeader: words[1])
        let secretMember = words[0] == "json" && redaction.hidesMember(onPath: words[1])
        if secretHeader || secretMember, failure.actual != "absent" { failure.actual = RedactionPolicy.marker }
        return failure
    }

    /// Hides what a session log hides (secret values, URL passwords, declared parameters, secret
    /// JSON members) and, on a terminal, control characters.
    func clean(_ text: String) -> String {
        // Escaped piped too: a CI log or a file is read on a terminal all the same.
        TerminalText.escapingControls(redaction.redactText(text))
    }

    func finished(_ result: RunResult) {
        var lines: [String] = []
        let repeatTag = Self.repeatTag(result.iteration)
        if let error = result.buildError {
            lines.append("✗ \(result.target)\(repeatTag): \(clean(error.description))")
        }
        if case .group(let name) = result.target {
            // Members that ran were printed as they finished; those that never ran are listed here.
            for item in result.cases where item.skipped { lines += self.lines(for: item, indent: "  ") }
            lines.append("\(result.passed ? "✓" : "✗") group \(name)\(repeatTag): " + Self.verdict(result.groupState?.rawValue, result.cases))
        } else {
            for item in result.cases { lines += self.lines(for: item, indent: "") }
        }
        emit(lines, counting: result.passed)
    }

    /// A group member's line, as soon as it finishes (the bar counts targets, not members).
    func memberFinished(_ item: RunCase) {
        emit(lines(for: item, indent: "  "), counting: nil)
    }

    /// A nested group's verdict, under its parent's members (the bar counts top-level targets).
    func nestedGroupFinished(_ result: NestedGroupResult) {
        let repeatTag = Self.repeatTag(result.iteration)
        let path = result.path.joined(separator: " › ")
        let why = result.stepError.map { " (\(clean("\($0.kind.rawValue): \($0.message)")))" } ?? ""
        emit(["\(result.passed ? "✓" : "✗")   \(result.group) › group \(path)\(repeatTag): " + Self.verdict(result.state.rawValue, result.cases) + why], counting: nil)
    }

    /// How a line names a repetition after the first: ` #2`.
    private static func repeatTag(_ iteration: Int) -> String {
        iteration > 1 ? " #\(iteration)" : ""
    }

    /// A group's end as its line says it: its state, and how many of its assertions failed, so
    /// a group that succeeded by its policy and failed by its assertions reads as both.
    private static func verdict(_ state: String?, _ cases: [RunCase]) -> String {
        (state ?? "not run") + ExpectationFailure.countText(cases.reduce(0) { $0 + $1.failures.count })
    }

    /// Prints lines above the progress bar; `counting` a finished target's verdict.
    private func emit(_ lines: [String], counting passed: Bool?) {
        let text = lines.map(line).joined(separator: "\n")
        state.withLock { state in
            if let passed {
                state.done += 1
                if !passed { state.failed += 1 }
            }
            var output = ""
            if isTerminal, state.barShown { output += "\r\u{1B}[K" }
            output += text + "\n"
            if isTerminal {
                output += bar(done: state.done, failed: state.failed)
                state.barShown = true
            }
            write(output)
        }
    }

    /// Clears the progress bar before the summary.
    func endProgress() {
        state.withLock { state in
            if isTerminal, state.barShown { write("\r\u{1B}[K") }
            state.barShown = false
        }
    }

    private func bar(done: Int, failed: Int) -> String {
        let width = 30
        let filled = total == 0 ? width : min(width, done * width / total)
        return "[" + String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled) + "] \(done)/\(total)" + (failed > 0 ? " (\(failed) failed)" : "")
    }

    /// A request's line, named by where it ran (`flow › profile › me`) and which repetition it
    /// was, and its failed assertions.
    func lines(for item: RunCase, indent: String) -> [String] {
        let repeatTag = Self.repeatTag(item.iteration)
        let duration = item.duration.map { "  " + String(format: "%.1f ms", $0.milliseconds) } ?? ""
        if item.skipped { return ["- \(indent)\(item.place)\(repeatTag): not run"] }
        var head = "\(item.passed ? "✓" : "✗") \(indent)\(item.place)\(repeatTag): "
        if let status = item.statusCode { head += "\(status)" }
        if let error = item.error { head += (item.statusCode == nil ? "" : ", ") + clean("\(error.kind.rawValue): \(error.message)") }
        var lines = [head + duration]
        for failure in item.failures { lines.append("    " + clean(masked(failure).description)) }
        return lines
    }

    /// Counts, the failed assertions, latency percentiles and the rate.
    func summary(_ results: [RunResult], wallTime: Duration, interrupted: Bool) -> String {
        let cases = results.flatMap(\.cases)
        let ran = cases.filter { !$0.skipped }
        let passed = ran.filter(\.passed).count
        let failedAssertions = cases.flatMap { item in item.failures.map { (item, $0) } }
        var lines = [""]
        if interrupted { lines.append("Interrupted: what was in flight was cancelled.") }
        let groups = results.filter { $0.groupState != nil }
        // A request that could not be built is counted on the same line, beside those that ran
        // (found by a new user's trial: "0 run, 0 passed, 0 failed, 0 not run" for one).
        let unbuilt = results.compactMap(\.buildError).count
        lines.append("Requests: \(ran.count) run, \(passed) passed, \(ran.count - passed) failed, \(cases.count - ran.count) not run"
            + (unbuilt == 0 ? "" : ", \(unbuilt) could not be built")
            + (groups.isEmpty ? "" : "; groups: \(groups.filter(\.passed).count) of \(groups.count) passed"))
        if !failedAssertions.isEmpty {
            lines.append("Failed assertions:")
            for (item, unmasked) in failedAssertions {
                let failure = masked(unmasked)
                lines.append("  \(item.place)\(Self.repeatTag(item.iteration)): " + clean(failure.assertion))
                lines.append("    expected: " + clean(failure.expected))
                lines.append("    actual:   " + clean(failure.actual))
            }
        }
        // Answers only, as latency mode counts them: a refused connection's few microseconds
        // would pass for the fastest answer.
        let durations = ran.filter { $0.statusCode != nil }.compactMap(\.duration?.milliseconds).sorted()
        if let median = durations.percentile(0.5), let p95 = durations.percentile(0.95), let p99 = durations.percentile(0.99), let slowest = durations.last {
            lines.append(String(format: "Latency: p50 %.1f ms, p95 %.1f ms, p99 %.1f ms, max %.1f ms", median, p95, p99, slowest))
        }
        let seconds = wallTime.seconds
        // Only when a request was answered: a run whose requests all got none has no rate.
        if seconds > 0, !durations.isEmpty {
            let over = seconds < 1 ? String(format: "%.1f ms", seconds * 1000) : String(format: "%.2f s", seconds)
            lines.append(String(format: "Rate: %.1f requests/s over ", Double(ran.count) / seconds) + over)
        }
        return lines.map(line).joined(separator: "\n")
    }

    /// One line of the report, its control characters escaped: a line end inside it (a request
    /// named with one, an error's text) is written `\n`, so each line stays one request, group
    /// or figure and the progress bar stays on its own line. What it says of a request's data (an
    /// error, an assertion's values) was `clean`ed as the line was made; the names of requests
    /// and groups are the workspace's own words and are shown as they are, never rewritten by a
    /// secret's value (found by a new user's trial: a secret `admin` printed `[REDACTED] login`).
    private func line(_ text: String) -> String {
        TerminalText.escapingControls(text).replacingOccurrences(of: "\n", with: "\\n")
    }

    /// The run as JUnit: a suite per target (requests run alone share one), a case per request.
    /// A suite's time, and the run's, is the time any of its targets ran: a batch's members, and
    /// targets run with `--parallel`, overlap, and the sum of their times would overstate it.
    func junit(_ results: [RunResult], workspace: String) -> JUnitReport {
        var suites: [JUnitReport.Suite] = []
        // How often each case name was used in each suite: a request or group a chain runs twice
        // gives two cases, told apart as `name (use 2)`, since CI systems merge cases of one name.
        var uses: [String: [String: Int]] = [:]
        func add(_ suiteName: String, _ item: JUnitReport.Case) {
            var item = item
            let use = (uses[suiteName, default: [:]][item.name] ?? 0) + 1
            uses[suiteName, default: [:]][item.name] = use
            if use > 1 { item.name += " (use \(use))" }
            if let index = suites.firstIndex(where: { $0.name == suiteName }) { suites[index].cases.append(item) } else { suites.append(.init(name: suiteName, cases: [item])) }
        }
        /// A case whose failure the group's policy allowed: skipped, saying so.
        func allowedFailure(name: String, seconds: Double, error: String) -> JUnitReport.Case {
            .init(name: name, seconds: seconds, skipped: true, skipReason: "failed, which the group's policy allows: " + error)
        }
        func text(of error: RequestError) -> String { clean("\(error.kind.rawValue): \(error.message)") }
        func suiteName(_ result: RunResult) -> String { result.target.groupName.map { "group \($0)" } ?? "requests" }
        for result in results {
            let suiteName = suiteName(result)
            let tag = Self.repeatTag(result.iteration)
            if let error = result.buildError {
                add(suiteName, .init(name: result.target.name + tag, seconds: 0, error: clean(error.description)))
            }
            for item in result.cases {
                let seconds = item.duration?.seconds ?? 0
                let assertions = item.failures.isEmpty ? nil : clean(item.failures.map { masked($0).description }.joined(separator: "\n"))
                let error = item.error.map(text(of:))
                // An answer that failed its assertions or a check it was sent with fails; no
                // answer to judge (it could not be built or sent, the connection failed) is an
                // error, with the assertions it left unchecked.
                let noAnswer = item.error.map { !$0.judgesAnAnswer } ?? false
                if item.skipped {
                    add(suiteName, .init(name: item.placeInGroup + tag, seconds: seconds, skipped: true, skipReason: "not run: its group stopped before it started, or the run was interrupted"))
                } else if assertions == nil, let error, result.passed {
                    // A member the group's policy lets fail (`any`, an optional one under
                    // `required`): the run passed, so the report must not fail it.
                    add(suiteName, allowedFailure(name: item.placeInGroup + tag, seconds: seconds, error: error))
                } else if noAnswer, let error {
                    add(suiteName, .init(name: item.placeInGroup + tag, seconds: seconds, error: [error, assertions].compactMap { $0 }.joined(separator: "\n")))
                } else {
                    add(suiteName, .init(name: item.placeInGroup + tag, seconds: seconds, failure: assertions ?? error))
                }
            }
            // A nested group that failed as a chain step of its own (its capture found nothing)
            // while each of its requests passed.
            for nested in result.nested {
                guard let stepError = nested.stepError else { continue }
                let name = "group " + nested.path.joined(separator: " › ") + tag
                let error = text(of: stepError)
                // As a request's failure is, when the top-level group's policy lets the step fail.
                // A capture that found nothing in an answer: a failure.
                add(suiteName, result.passed ? allowedFailure(name: name, seconds: 0, error: error) : .init(name: name, seconds: 0, failure: error))
            }
        }
        for index in suites.indices {
            suites[index].seconds = Self.span(of: results.filter { suiteName($0) == suites[index].name }.compactMap(\.ranDuring))
        }
        return JUnitReport(name: clean(workspace), suites: suites, seconds: Self.span(of: results.compactMap(\.ranDuring)))
    }

    /// The seconds during which any of `runs` ran: overlapping runs counted once, the gaps
    /// between them (another suite's turn) not at all; nil when there are none.
    private static func span(of runs: [ClosedRange<ContinuousClock.Instant>]) -> Double? {
        guard !runs.isEmpty else { return nil }
        var total = Duration.zero
        var current: ClosedRange<ContinuousClock.Instant>?
        for run in runs.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let open = current, run.lowerBound <= open.upperBound {
                current = open.lowerBound...max(open.upperBound, run.upperBound)
            } else {
                if let open = current { total += open.upperBound - open.lowerBound }
                current = run
            }
        }
        if let open = current { total += open.upperBound - open.lowerBound }
        return total.seconds
    }
}
