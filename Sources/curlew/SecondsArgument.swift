import ArgumentParser
import CurlewAgent

/// A number of seconds given on the command line, kept as typed and read by
/// `SecondsInput.duration(parsing:field:)`: digits with at most one point, from 0.001 to 86400.
/// A `Double` option would take `--timeout 0x10` as 16 s and `0x1p-1` as half a second.
struct SecondsArgument: ExpressibleByArgument, Sendable {
    let text: String

    init?(argument: String) {
        text = argument
    }

    var defaultValueDescription: String { text }

    /// The seconds as a duration; a clear error naming `field` when they are not a number in range.
    func duration(field: String) throws(UserInputError) -> Duration {
        try SecondsInput.duration(parsing: text, field: field)
    }
}
