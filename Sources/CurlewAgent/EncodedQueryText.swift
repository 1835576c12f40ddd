import CurlewTransport

/// The escapes a query or form pair can hide a secret under: HTML's escaped `&` before a name
/// (`?a=1&amp;token=…`, as a link is written into a page), percent-encoding in a value (a URL
/// carried inside another, `next=https%3A%2F%2Fh%2F%3Ftoken%3D…`) and JSON's escapes in a word
/// of text (`/cb?a=1\u0026token=…`). Pure, so it is fuzzed with the redaction it serves.
enum EncodedQueryText {
    /// `name` after any HTML references to `&` it starts with (`amp;`, `#38;`, `#x26;`, leading
    /// zeros allowed, `#` optional since `#` also ends a pair), looked at in a loop however many
    /// there are.
    static func nameAfterAmpersandEntities(_ name: UnsafeRawBufferPointer.SubSequence) -> UnsafeRawBufferPointer.SubSequence {
        var rest = name
        while let semicolon = ASCII.firstIndex(of: UInt8(ascii: ";"), in: rest), isAmpersandReference(rest[..<semicolon]) {
            rest = rest.base[(semicolon + 1)..<rest.endIndex]
        }
        return rest
    }

    /// Whether `entity` (the text between `&` and `;`) stands for `&`.
    private static func isAmpersandReference(_ entity: UnsafeRawBufferPointer.SubSequence) -> Bool {
        var text = entity
        if text.first == UInt8(ascii: "#") { text = text.dropFirst() }
        // Setting 0x20 lowers letters and leaves the digits as they are.
        if text.count == 3, text.lazy.map({ $0 | 0x20 }).elementsEqual("amp".utf8) { return true }
        var radix: UInt32 = 10
        if let first = text.first, first | 0x20 == UInt8(ascii: "x") {
            radix = 16
            text = text.dropFirst()
        }
        guard !text.isEmpty else { return false }
        var value: UInt32 = 0
        for byte in text {
            guard let digit = hexDigit(byte), digit < radix else { return false }
            // Leading zeros keep it 0; past 0x26 it can only grow, so it never overflows.
            value = value * radix + digit
            if value > 0x26 { return false }
        }
        return value == 0x26
    }

    private static func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    /// How many times a value is decoded at most: a redirect URI inside a login URL inside a
    /// link is encoded three times over.
    static let decodingLevels = 3

    /// Whether `value` has a percent escape of an ASCII byte: one that may stand for a part of a
    /// URL or a pair (`%3D`, `%40`, `%3A`, `%2F`, `%23`, `%20`, `%25`…). Escapes of bytes
    /// beyond ASCII (`caf%C3%A9`), nearly all encoded text, hide none.
    static func mayHideURLParts(_ value: UnsafeRawBufferPointer.SubSequence) -> Bool {
        var from = value.startIndex
        while let percent = ASCII.firstIndex(of: UInt8(ascii: "%"), in: value.base[from..<value.endIndex]) {
            guard percent + 2 < value.endIndex else { return false }
            if let high = hexDigit(value[percent + 1]), high < 8, hexDigit(value[percent + 2]) != nil { return true }
            from = percent + 1
        }
        return false
    }

    /// `value` percent-decoded once, then again while that changes it, at most
    /// `decodingLevels` times: every level, so a part that only one level shows (a password
    /// holding an encoded `?`, readable one level down and not two) is looked at where it shows.
    /// `+` stays as it is here (`plusAsSpace` says what a form reads it as). A `%` without two hex
    /// digits after it stays as it is (Foundation's decoding gives up on the whole text there,
    /// and would find nothing). Empty when nothing in it is encoded.
    static func decodedLevels(_ value: UnsafeRawBufferPointer.SubSequence) -> [String] {
        var levels: [String] = []
        var current = Array(value)
        for _ in 0..<decodingLevels {
            guard let next = decodedOnce(current) else { break }
            current = next
            levels.append(String(decoding: current, as: UTF8.self))
        }
        return levels
    }

    /// `text` with `+` read as a space, as a form value is.
    static func plusAsSpace(_ text: String) -> String {
        text.contains("+") ? text.replacingOccurrences(of: "+", with: " ") : text
    }

    private static func decodedOnce(_ bytes: [UInt8]) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var changed = false
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count, let high = hexDigit(bytes[index + 1]), let low = hexDigit(bytes[index + 2]) {
                output.append(UInt8(high << 4 | low))
                index += 3
                changed = true
            } else {
                output.append(byte)
                index += 1
            }
        }
        return changed ? output : nil
    }

    /// `word` with JSON's `\/` and `\u00XX` escapes of ASCII characters read; nil when it has none.
    static func unescapingJSON(in word: UnsafeRawBufferPointer.SubSequence) -> [UInt8]? {
        guard ASCII.contains(UInt8(ascii: "\\"), in: word) else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(word.count)
        var changed = false
        var index = word.startIndex
        while index < word.endIndex {
            let byte = word[index]
            if byte == UInt8(ascii: "\\"), index + 1 < word.endIndex, word[index + 1] == UInt8(ascii: "/") {
                output.append(UInt8(ascii: "/"))
                index += 2
                changed = true
            } else if byte == UInt8(ascii: "\\"), index + 5 < word.endIndex, word[index + 1] == UInt8(ascii: "u"),
                      let value = UInt8(String(decoding: word[(index + 2)...(index + 5)], as: UTF8.self), radix: 16), value < 0x80 {
                output.append(value)
                index += 6
                changed = true
            } else {
                output.append(byte)
                index += 1
            }
        }
        return changed ? output : nil
    }
}
