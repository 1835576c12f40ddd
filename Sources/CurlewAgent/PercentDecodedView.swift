/// A text's bytes with each `%XX` escape read as the byte it encodes (and, when asked, each `+` as
/// a space), with where each decoded byte was written: what is found in the decoded bytes can be
/// hidden or replaced in the text as written. A URL may write any byte of a value escaped or not
/// (`p@ss%20w0rd`, `p%40ss w0rd`), so a value looked for only as written and as wholly encoded
/// misses the mixed forms; read through this view, every form is one.
public struct PercentDecodedView {
    /// The decoded bytes.
    public let bytes: [UInt8]
    /// Where the text wrote each decoded byte: decoded byte `k` is the text's
    /// `origins[k]..<origins[k + 1]`.
    private let origins: [UInt32]

    /// Nil when `text` holds nothing to decode (no `%XX` escape, nor a `+` with `plusAsSpace`),
    /// or is 4 GiB or longer (where the byte positions, kept in 32 bits, would not fit).
    public init?(_ text: [UInt8], plusAsSpace: Bool = false) {
        guard text.count < Int(UInt32.max) else { return nil }
        var decoded: [UInt8] = []
        var origins: [UInt32] = []
        var changed = false
        var index = 0
        decoded.reserveCapacity(text.count)
        origins.reserveCapacity(text.count + 1)
        while index < text.count {
            origins.append(UInt32(truncatingIfNeeded: index))
            let byte = text[index]
            if let escaped = Self.escapedByte(at: index, in: text) {
                decoded.append(escaped)
                index += 3
                changed = true
            } else if plusAsSpace, byte == UInt8(ascii: "+") {
                decoded.append(0x20)
                index += 1
                changed = true
            } else {
                decoded.append(byte)
                index += 1
            }
        }
        origins.append(UInt32(truncatingIfNeeded: text.count))
        guard changed else { return nil }
        bytes = decoded
        self.origins = origins
    }

    /// The text's bytes that decode to `range` of `bytes`.
    public func writtenRange(of range: Range<Int>) -> Range<Int> {
        Int(origins[range.lowerBound])..<Int(origins[range.upperBound])
    }

    /// Every range of `text` that reads as `value`: as written, and with any of its bytes
    /// percent-encoded (escapes in either case), or with a space written as `+`. In order of
    /// their starts; overlapping ones included.
    public static func occurrences(of value: [UInt8], in text: [UInt8]) -> [Range<Int>] {
        occurrences(of: [value], in: text)
    }

    /// `occurrences(of:in:)` for several values at once, each view of the text made once. Time in
    /// proportion to the text and the number of values (and the ranges found, sorted once), as
    /// a hostile text of many overlapping repeats cannot make it worse: a `%XX` in the text is
    /// read as the byte it encodes, as a URL reads it.
    public static func occurrences(of values: [[UInt8]], in text: [UInt8]) -> [Range<Int>] {
        let values = values.filter { !$0.isEmpty }
        var found: [Range<Int>] = []
        for value in values {
            URLPassword.forEachOccurrence(of: value, in: text) { found.append($0..<($0 + value.count)) }
        }
        let escaped = text.contains(UInt8(ascii: "%"))
        let plus = text.contains(UInt8(ascii: "+")) && values.contains { $0.contains(0x20) }
        for plusAsSpace in [false, true] where plusAsSpace ? plus : escaped {
            guard let view = PercentDecodedView(text, plusAsSpace: plusAsSpace) else { continue }
            for value in values where !plusAsSpace || value.contains(0x20) {
                URLPassword.forEachOccurrence(of: value, in: view.bytes) { start in
                    let written = view.writtenRange(of: start..<(start + value.count))
                    // One written as it is was found above.
                    if written.count != value.count || plusAsSpace { found.append(written) }
                }
            }
        }
        guard found.count > 1 else { return found }
        found.sort { $0.lowerBound != $1.lowerBound ? $0.lowerBound < $1.lowerBound : $0.upperBound < $1.upperBound }
        var unique: [Range<Int>] = []
        unique.reserveCapacity(found.count)
        for range in found where unique.last != range { unique.append(range) }
        return unique
    }

    /// The byte the escape at `index` of `bytes` encodes, if a `%` and two hexadecimal digits
    /// stand there.
    static func escapedByte(at index: Int, in bytes: [UInt8]) -> UInt8? {
        guard index >= 0, index + 2 < bytes.count, bytes[index] == UInt8(ascii: "%"),
              let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) else { return nil }
        return high << 4 | low
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
