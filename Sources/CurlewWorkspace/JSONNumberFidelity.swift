/// Whether every number of a JSON text survives being written as `json:` members, which reads
/// it as a 64-bit integer or a double: `12345678901234567890123`, `1e400` and `-0` do not (they
/// would be sent as `1.2345678901234568e+22`, `null` and `0`; `-0.0` too); `1.50` and `1E5` do (the same
/// values, written `1.5` and `100000`). A body with one that does not is kept as text.
enum JSONNumberFidelity {
    static func keepsEveryNumber(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") { index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1 }
                index += 1
            } else if byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                var end = index + 1
                while end < bytes.count, Self.numberBytes.contains(bytes[end]) { end += 1 }
                guard keeps(String(decoding: bytes[index..<end], as: UTF8.self)) else { return false }
                index = end
            } else {
                index += 1
            }
        }
        return true
    }

    private static let numberBytes: Set<UInt8> = Set("0123456789+-.eE".utf8)

    /// Whether `token` reads back as the same decimal number once read as JSON reads it.
    private static func keeps(_ token: String) -> Bool {
        let isInteger = !token.contains(where: { $0 == "." || $0 == "e" || $0 == "E" })
        let written: String
        if isInteger, let value = Int64(token) {
            written = String(value)
        } else if let value = Double(token), value.isFinite {
            written = String(value)
        } else {
            return false
        }
        guard let original = canonical(token), let kept = canonical(written) else { return false }
        // A negative zero is written `0` (JSON's writer prints a whole double as an integer).
        if original.digits.isEmpty, original.negative { return false }
        return original == kept
    }

    /// A decimal number as its sign, significant digits and exponent (`-1.50e2` is `-`, `15`, 1).
    private static func canonical(_ text: String) -> (negative: Bool, digits: String, exponent: Int)? {
        var rest = Substring(text)
        let negative = rest.first == "-"
        if negative || rest.first == "+" { rest = rest.dropFirst() }
        var exponent = 0
        if let mark = rest.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            guard let value = Int(rest[rest.index(after: mark)...]) else { return nil }
            exponent = value
            rest = rest[..<mark]
        }
        let parts = rest.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, whole.allSatisfy(\.isASCII) else { return nil }
        let fraction = parts.count > 1 ? parts[1] : ""
        var digits = Substring(String(whole) + fraction)
        guard digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        // An exponent this far out never reads back as written; it is refused before the
        // arithmetic on it could overflow.
        guard exponent > -(1 << 40), exponent < 1 << 40 else { return nil }
        exponent -= fraction.count
        digits = digits.drop { $0 == "0" }
        while digits.last == "0" { digits = digits.dropLast(); exponent += 1 }
        return digits.isEmpty ? (negative, "", 0) : (negative, String(digits), exponent)
    }
}
