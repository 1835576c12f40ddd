import Foundation

/// A byte count as people read it, in powers of 1024: `70 B`, `4.0 KiB`, `1.5 MiB`, `2.00 GiB`.
/// The one form every screen, report and listing uses.
public enum ByteCountText {
    public static func of(_ count: Int64) -> String {
        if count < 1024 { return "\(count) B" }
        if count < 1 << 20 { return String(format: "%.1f KiB", Double(count) / 1024) }
        if count < 1 << 30 { return String(format: "%.1f MiB", Double(count) / 1_048_576) }
        return String(format: "%.2f GiB", Double(count) / 1_073_741_824)
    }
}
