/// A duration as the numbers timings, reports and options use.
extension Duration {
    /// The duration in seconds, as a Double.
    public var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }

    /// The duration in milliseconds, as a Double.
    public var milliseconds: Double { seconds * 1000 }

    /// The duration in whole microseconds, for timings and group durations; saturating at the
    /// ends of `Int64` instead of overflowing.
    public var wholeMicroseconds: Int64 { whole(perSecond: 1_000_000) }

    /// The duration in whole milliseconds, for timeouts; saturating at the ends of `Int64`.
    public var wholeMilliseconds: Int64 { whole(perSecond: 1000) }

    /// The duration in whole units of which a second has `perSecond` (a power of ten up to 10¹⁸),
    /// the fraction cut off; saturating at the ends of `Int64`.
    private func whole(perSecond: Int64) -> Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: perSecond)
        guard !overflow else { return seconds < 0 ? .min : .max }
        let (total, sumOverflow) = scaled.addingReportingOverflow(attoseconds / (1_000_000_000_000_000_000 / perSecond))
        return sumOverflow ? .max : total
    }
}
