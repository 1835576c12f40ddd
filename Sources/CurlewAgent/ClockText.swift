import Foundation

extension Date {
    /// `13:01:17.376`: the time of day in the local time zone on a 24-hour clock, to the
    /// millisecond, as the log tools and the interface show when something happened.
    public var clockText: String {
        clockText(using: .current)
    }

    /// `clockText` on `calendar`'s clock (its time zone): the interface's, which tests fix.
    public func clockText(using calendar: Calendar) -> String {
        let (second, milliseconds) = roundedToMilliseconds
        let parts = calendar.dateComponents([.hour, .minute, .second], from: second)
        return String(format: "%02d:%02d:%02d.%03d", parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0, milliseconds)
    }

    /// `2026-12-04 13:01:17.376`: the day and `clockText`, on `calendar`'s clock, to the nearest
    /// millisecond as well: where a list spans several days (a request's history, an earlier
    /// session's answer), a row shows the same instant the exchange's own views show.
    public func dayAndClockText(using calendar: Calendar) -> String {
        let (second, milliseconds) = roundedToMilliseconds
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: second)
        return String(format: "%04d-%02d-%02d %02d:%02d:%02d.%03d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0,
                      parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0, milliseconds)
    }

    /// The milliseconds since 1970 this date is shown and stored as: the nearest one. The one
    /// rule for the interface, the log tools, the session log's records and exports, so that an
    /// exchange seen live and read back from its log shows the same time.
    public var millisecondsSince1970: Double {
        (timeIntervalSince1970 * 1000).rounded()
    }

    /// This date to the nearest millisecond: the whole second it falls in and the milliseconds
    /// after it (0 to 999). A time read back from text (`…:02.887`) is a few nanoseconds short
    /// of its millisecond as a `Date`; cut rather than rounded, it would show as `.886`, and each
    /// write and read of a file would take another millisecond off. A date beyond about 30,000
    /// years either way is its second, with no milliseconds.
    public var roundedToMilliseconds: (second: Date, milliseconds: Int) {
        let total = millisecondsSince1970
        guard total.magnitude < 1e15 else { return (Date(timeIntervalSince1970: timeIntervalSince1970.isFinite ? timeIntervalSince1970.rounded(.down) : 0), 0) }
        let seconds = (total / 1000).rounded(.down)
        return (Date(timeIntervalSince1970: seconds), Int(total - seconds * 1000))
    }
}
