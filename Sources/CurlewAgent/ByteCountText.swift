import Foundation

/// A byte count as people read it, in powers of 1024: `70 B`, `4.0 KiB`, `1.5 MiB`, `2.00 GiB`.
/// The one form every screen, report and listing uses.
public enum ByteCountText {
    public static func of(_ count: Int64) -> String {
        of(count, decimals: nil)
    }

    /// `count` with `decimals` digits after the point (KiB and up; the usual ones when nil).
    private static func of(_ count: Int64, decimals: Int?) -> String {
        if count < 1024 { return "\(count) B" }
        if count < 1 << 20 { return String(format: "%.\(decimals ?? 1)f KiB", Double(count) / 1024) }
        if count < 1 << 30 { return String(format: "%.\(decimals ?? 1)f MiB", Double(count) / 1_048_576) }
        return String(format: "%.\(decimals ?? 2)f GiB", Double(count) / 1_073_741_824)
    }

    /// `count` and `limits` as a message comparing them writes them: at one precision, the least
    /// that tells different counts apart (`1.05 MiB` against `1.00 MiB`, where both read
    /// `1.0 MiB`), in bytes when no precision does.
    /// With several limits, the precision tells `count` apart from each.
    public static func apart(_ count: Int64, _ limits: Int64...) -> (count: String, limits: [String]) {
        for decimals in [nil, 2, 3, 4] {
            let shown = of(count, decimals: decimals)
            let others = limits.map { of($0, decimals: decimals) }
            if zip(limits, others).allSatisfy({ $0 == count || $1 != shown }) { return (shown, others) }
        }
        return ("\(count) B", limits.map { "\($0) B" })
    }
}
