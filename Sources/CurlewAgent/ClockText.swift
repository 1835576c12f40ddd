import Foundation

extension Date {
    /// `13:01:17.376`: the time of day in the local time zone on a 24-hour clock, to the
    /// millisecond, as the log tools and the interface show when something happened.
    public var clockText: String {
        let parts = Calendar.current.dateComponents([.hour, .minute, .second, .nanosecond], from: self)
        return String(format: "%02d:%02d:%02d.%03d", parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0, (parts.nanosecond ?? 0) / 1_000_000)
    }
}
