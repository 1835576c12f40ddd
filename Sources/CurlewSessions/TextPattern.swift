import CurlewAgent
import Foundation
import Synchronization

/// A regular expression matched against text Curlew did not write (URLs, headers and bodies from
/// a server or a log) with bounded work. Matching runs on ICU's engine (`NSRegularExpression`),
/// which reports its progress, and stops when one match has used `timeLimit` of the thread's CPU
/// time: a pattern that backtracks without end on some text (`(a+)+b` on a long run of `a`) then
/// gives up, says so (`gaveUp`), and matches nothing more, instead of hanging the interface or a
/// run. CPU time, not the clock, so a busy machine does not make an ordinary match give up.
public final class TextPattern: Sendable {
    /// The pattern as written.
    public let source: String
    private let expression: NSRegularExpression
    private let stopped = Atomic(false)
    /// How much CPU time one match may use.
    public static let timeLimit: Duration = .milliseconds(250)
    /// Progress reports between two looks at the CPU clock (ICU reports at every start position).
    private static let reportsPerLook = 256

    /// Throws when `source` is not a regular expression ICU reads.
    public init(_ source: String, ignoringCase: Bool = false) throws {
        self.source = source
        var options: NSRegularExpression.Options = [.useUnicodeWordBoundaries]
        if ignoringCase { options.insert(.caseInsensitive) }
        expression = try NSRegularExpression(pattern: source, options: options)
    }

    /// Whether the pattern matches somewhere in `text`; false once it has given up.
    public func matches(_ text: String) -> Bool {
        guard !stopped.load(ordering: .relaxed) else { return false }
        let deadline = Self.threadCPUNanoseconds() + UInt64(Self.timeLimit.wholeMicroseconds) * 1000
        var found = false
        var outOfTime = false
        var reports = 0
        expression.enumerateMatches(in: text, options: [.reportProgress], range: NSRange(text.startIndex..., in: text)) { match, _, stop in
            if match != nil {
                found = true
                stop.pointee = true
                return
            }
            reports += 1
            if reports % Self.reportsPerLook == 0, Self.threadCPUNanoseconds() > deadline {
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

    private static func threadCPUNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}
