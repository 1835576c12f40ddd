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
        guard let seconds = decimal(text.trimmingCharacters(in: .whitespaces)) else {
            throw UserInputError("\(field) must be a number of seconds from 0.001 to 86400")
        }
        return try duration(seconds, field: field)
    }

    /// `text` as a decimal number written in digits with at most one point (`15`, `0.5`, `.5`,
    /// `2.`), or nil: Swift's `Double` would also read `0x10` as 16, `0x1p-1` as 0.5, `1e3`,
    /// `+5`, `inf` and `nan`, none of which a user typing seconds means.
    public static func decimal(_ text: String) -> Double? {
        var digits = 0
        var points = 0
        for byte in text.utf8 {
            if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                digits += 1
            } else if byte == UInt8(ascii: ".") {
                points += 1
            } else {
                return nil
            }
        }
        guard digits > 0, points <= 1 else { return nil }
        return Double(text)
    }
}
