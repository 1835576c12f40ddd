import CurlewAgent
import Foundation

/// A request's `expect:` assertions checked against a finished exchange's debug message, as
/// the interface shows them beside the answer. `curlew run` checks the same assertions with
/// the same rules (`Expectation.failure(in:)`) against the response itself.
public struct ExpectationReport: Sendable, Equatable {
    /// The exchange the assertions were checked against (ids start again in every session, so
    /// its start time too), and the assertions.
    public var requestID: UInt64
    public var startedAt: Date
    /// The assertions as written, filled in for this exchange.
    public var expectations: FilledExpectations
    public var checked: Int
    public var failures: [ExpectationFailure]
    /// No answer arrived, so nothing was checked: `failures` then holds the one failure that
    /// stands for them all (`Expectation.unansweredFailures`).
    public var unanswered: Bool
    /// Why no answer came (the error's kind), for the summary.
    private var noAnswer: RequestError.Kind?

    /// Whether this report is of `message` with these assertions.
    public func describes(_ message: DebugMessage, checking expectations: [Expectation]) -> Bool {
        requestID == message.requestID && startedAt == message.startedAt && self.expectations.written == expectations
    }

    /// `hiding` hides credentials in what a failure quotes before it is cut (the interface's
    /// redaction of the exchange).
    public init(_ expectations: FilledExpectations, against message: DebugMessage, hiding: (String) -> String = { $0 }) {
        requestID = message.requestID
        startedAt = message.startedAt
        self.expectations = expectations
        checked = expectations.count
        guard let snapshot = message.response else {
            failures = Expectation.unansweredFailures(of: expectations.written, error: message.error)
            unanswered = true
            noAnswer = message.error?.kind
            return
        }
        unanswered = false
        // A download's body went to its file; the response itself holds none, as `curlew run` sees it.
        let body = message.transfer?.download == nil ? snapshot.body.data : Data()
        let response = Response(
            requestID: message.requestID, statusCode: snapshot.statusCode, statusLine: snapshot.statusLine, httpVersion: snapshot.httpVersion,
            headers: HTTPHeaders(snapshot.headers), body: body, value: .data(body),
            url: message.connection?.effectiveURL ?? message.original?.url ?? "")
        // An answer without timings (a cache hit, a mock) took no time on the network.
        let outcome = ExchangeOutcome(response: response, error: message.error, duration: ExchangeOutcome.duration(of: message.timings) ?? .zero)
        let cut = snapshot.body.isTruncated
        failures = expectations.unfilled + expectations.checkedFailures(in: outcome, hiding: hiding).map { failure, expectation in
            var failure = failure
            if cut, message.transfer?.download == nil, expectation.readsBody {
                failure.actual += message.hasUnkeptEventStreamBody
                    ? " (an event stream's body is not kept, only its events)"
                    : " (the body was kept only up to the debug limit, the first part of \(snapshot.body.size) bytes)"
            }
            return failure
        }
    }

    /// One line: how many held, and the first failure.
    public var summary: String {
        if unanswered {
            // No answer fails the assertions (`failures` says why); a cancelled exchange leaves them unchecked.
            if !failures.isEmpty { return "expect: failed, no answer (\(noAnswer?.rawValue ?? "no error"))" }
            return noAnswer == .cancelled ? "expect: not checked, cancelled" : "expect: not checked, no answer"
        }
        guard let first = failures.first else { return "expect: \(checked) passed" }
        let more = failures.count > 1 ? " (+\(failures.count - 1) more)" : ""
        return "expect: \(failures.count) of \(checked) failed: \(first)\(more)"
    }
}

extension Expectation {
    /// Whether the assertion reads the body, which a debug message may hold only in part.
    var readsBody: Bool {
        switch self {
        case .json, .bodyContains, .shape: true
        case .status, .header, .maxDuration: false
        }
    }
}
