import Foundation

/// A JUnit XML report, as CI systems read it: one `testsuite` per suite, one `testcase` per case,
/// with a `failure` (assertions) or `error` (no answer) element and its text.
public struct JUnitReport: Sendable {
    /// One test case: a request's result.
    public struct Case: Sendable {
        public var name: String
        public var seconds: Double
        public var failure: String?
        public var error: String?
        public var skipped: Bool
        /// Why it was skipped, for the `skipped` element's message.
        public var skipReason: String?

        public init(name: String, seconds: Double, failure: String? = nil, error: String? = nil, skipped: Bool = false, skipReason: String? = nil) {
            self.name = name
            self.seconds = seconds
            self.failure = failure
            self.error = error
            self.skipped = skipped
            self.skipReason = skipReason
        }
    }

    /// A named set of cases (a group, or the requests run alone).
    public struct Suite: Sendable {
        public var name: String
        public var cases: [Case]
        /// The time the suite took from its first start to its last end; nil for the sum of its
        /// cases' times. A batch's members run at once, so their sum would overstate it.
        public var seconds: Double?

        public init(name: String, cases: [Case], seconds: Double? = nil) {
            self.name = name
            self.cases = cases
            self.seconds = seconds
        }

        var time: Double { seconds ?? cases.map(\.seconds).reduce(0, +) }
    }

    public var name: String
    public var suites: [Suite]
    /// The whole run's time; nil for the sum of the suites' times.
    public var seconds: Double?

    public init(name: String, suites: [Suite], seconds: Double? = nil) {
        self.name = name
        self.suites = suites
        self.seconds = seconds
    }

    /// The report as JUnit XML.
    public var xml: String {
        let all = suites.flatMap(\.cases)
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        text += "<testsuites name=\"\(escape(name))\" tests=\"\(all.count)\" failures=\"\(all.filter { $0.failure != nil }.count)\" errors=\"\(all.filter { $0.error != nil }.count)\" skipped=\"\(all.filter(\.skipped).count)\" time=\"\(seconds(self.seconds ?? suites.map(\.time).reduce(0, +)))\">\n"
        for suite in suites {
            text += "  <testsuite name=\"\(escape(suite.name))\" tests=\"\(suite.cases.count)\" failures=\"\(suite.cases.filter { $0.failure != nil }.count)\" errors=\"\(suite.cases.filter { $0.error != nil }.count)\" skipped=\"\(suite.cases.filter(\.skipped).count)\" time=\"\(seconds(suite.time))\">\n"
            for item in suite.cases {
                let open = "    <testcase name=\"\(escape(item.name))\" classname=\"\(escape(suite.name))\" time=\"\(seconds(item.seconds))\""
                if let failure = item.failure {
                    text += open + ">\n      <failure message=\"\(escape(firstLine(failure)))\">\(escape(failure))</failure>\n    </testcase>\n"
                } else if let error = item.error {
                    text += open + ">\n      <error message=\"\(escape(firstLine(error)))\">\(escape(error))</error>\n    </testcase>\n"
                } else if item.skipped {
                    let skipped = item.skipReason.map { "<skipped message=\"\(escape(firstLine($0)))\">\(escape($0))</skipped>" } ?? "<skipped/>"
                    text += open + ">\n      \(skipped)\n    </testcase>\n"
                } else {
                    text += open + "/>\n"
                }
            }
            text += "  </testsuite>\n"
        }
        return text + "</testsuites>\n"
    }

    private func seconds(_ value: Double) -> String { String(format: "%.3f", value) }

    private func firstLine(_ text: String) -> String { String(text.split(separator: "\n").first ?? "") }

    /// XML text: the five entities, and characters XML 1.0 forbids (control bytes) as `?`.
    func escape(_ text: String) -> String {
        var output = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": output += "&amp;"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            case "\"": output += "&quot;"
            case "'": output += "&apos;"
            case "\t", "\n", "\r": output.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 || (0xFFFE...0xFFFF).contains(scalar.value): output += "?"
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output
    }
}
