/// Seconds a user typed (a timeout on the command line or in Compose), checked before they become
/// a `Duration`: infinity, NaN, zero, negative and absurd values are refused with the field's name.
public enum SecondsInput {
    /// From one millisecond to one day.
    public static let range: ClosedRange<Double> = 0.001...86_400

    public static func duration(_ seconds: Double, field: String) throws(UserInputError) -> Duration {
        guard seconds.isFinite, range.contains(seconds) else {
            throw UserInputError("\(field) must be a number of seconds from 0.001 to 86400")
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    /// Parses text as seconds, as `duration(_:field:)` checks them.
    public static func duration(parsing text: String, field: String) throws(UserInputError) -> Duration {
        guard let seconds = Double(text.trimmingCharacters(in: .whitespaces)) else {
            throw UserInputError("\(field) must be a number of seconds from 0.001 to 86400")
        }
        return try duration(seconds, field: field)
    }
}
