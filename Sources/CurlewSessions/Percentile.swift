extension Array where Element: Comparable {
    /// The nearest-rank percentile of a sorted array (`fraction` 0.5 is the median), or nil
    /// when it is empty.
    public func percentile(_ fraction: Double) -> Element? {
        guard !isEmpty else { return nil }
        return self[Swift.min(count - 1, Swift.max(0, Int((Double(count) * fraction).rounded(.up)) - 1))]
    }
}
