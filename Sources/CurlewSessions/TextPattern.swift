import Foundation
import Synchronization

/// A regular expression matched against text Curlew did not write (URLs, headers and bodies from
/// a server or a log) with bounded work. Matching runs on ICU's engine (`NSRegularExpression`),
/// which reports its progress, and stops when one match runs past `timeLimit`: a pattern that
/// backtracks without end on some text (`(a+)+b` on a long run of `a`) then gives up, says so
/// (`gaveUp`), and matches nothing more, instead of hanging the interface or a run.
public final class TextPattern: Sendable {
    /// The pattern as written.
    public let source: String
    nonisolated(unsafe) private let expression: NSRegularExpression
    private let stopped = Atomic(false)
    /// How long one match may run.
    public static let timeLimit: Duration = .milliseconds(250)

    /// Throws when `source` is not a regular expression ICU reads.
    public init(_ source: String, ignoringCase: Bool = false) throws {
        self.source = source
        expression = try NSRegularExpression(pattern: source, options: ignoringCase ? [.caseInsensitive] : [])
    }

    /// Whether the pattern matches somewhere in `text`; false once it has given up.
    public func matches(_ text: String) -> Bool {
        guard !stopped.load(ordering: .relaxed) else { return false }
        let started = ContinuousClock.now
        var found = false
        var outOfTime = false
        expression.enumerateMatches(in: text, options: [.reportProgress], range: NSRange(text.startIndex..., in: text)) { match, _, stop in
            if match != nil {
                found = true
                stop.pointee = true
            } else if ContinuousClock.now - started > Self.timeLimit {
                outOfTime = true
                stop.pointee = true
            }
        }
        if outOfTime, !found { stopped.store(true, ordering: .relaxed) }
        return found
    }

    /// Whether a match ran past `timeLimit`, after which the pattern matches nothing.
    public var gaveUp: Bool { stopped.load(ordering: .relaxed) }

    /// What to tell the user about a pattern that gave up.
    public var gaveUpMessage: String {
        "the pattern \(source.debugDescription) gave up after \(Self.timeLimit.milliseconds.formatted()) ms on one text (it backtracks too much); simplify it"
    }
}
