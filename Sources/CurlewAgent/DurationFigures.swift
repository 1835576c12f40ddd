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
    public var wholeMicroseconds: Int64 {
        let (scaled, overflow) = components.seconds.multipliedReportingOverflow(by: 1_000_000)
        guard !overflow else { return components.seconds < 0 ? .min : .max }
        return scaled.addingReportingOverflow(components.attoseconds / 1_000_000_000_000).overflow
            ? .max : scaled + components.attoseconds / 1_000_000_000_000
    }

    /// The duration in whole milliseconds, for timeouts; saturating at the ends of `Int64`.
    public var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        guard !overflow else { return seconds < 0 ? .min : .max }
        let (total, sumOverflow) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000_000_000)
        return sumOverflow ? .max : total
    }
}
