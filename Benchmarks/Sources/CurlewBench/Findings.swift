/// Figures a scenario measures that a check elsewhere needs.
final class Findings {
    /// The logger's CPU time per entry, in microseconds (the logger scenario).
    var loggerCPUMicrosPerEntry: Double?
}
