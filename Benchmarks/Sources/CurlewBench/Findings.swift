/// Figures a scenario measures that a check elsewhere needs.
final class Findings {
    /// The logger's CPU time per entry, in microseconds: the least of the logger scenario's runs.
    var loggerCPUMicrosPerEntry: Double?
}
