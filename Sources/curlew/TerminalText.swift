/// Makes text from the network safe to print on a terminal: C0 controls (except newline and tab),
/// DEL, C1 controls and the bidirectional controls become visible escapes, so a server cannot set
/// the window title, clear the screen, switch the terminal's modes or reorder what follows
/// through what `curlew send` and `curlew log` print.
enum TerminalText {
    static func escapingControls(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var output = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                output.append(contentsOf: escape(scalar).unicodeScalars)
            } else {
                output.append(scalar)
            }
        }
        return String(output)
    }

    /// C0 and C1 controls but newline and tab, and the bidirectional controls, which reorder
    /// what the terminal shows after them (a name can then read as something it is not).
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        return (value < 0x20 && value != 0x0A && value != 0x09) || (0x7F...0x9F).contains(value) || isBidiControl(value)
    }

    /// U+061C, U+200E and U+200F, U+202A to U+202E, U+2066 to U+2069.
    private static func isBidiControl(_ value: UInt32) -> Bool {
        value == 0x061C || value == 0x200E || value == 0x200F || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
    }

    private static func escape(_ scalar: Unicode.Scalar) -> String {
        switch scalar.value {
        case 0x0D: "\\r"
        case 0x1B: "\\e"
        default: scalar.value < 0x100 ? "\\x" + hex(scalar.value) : "\\u{" + String(scalar.value, radix: 16) + "}"
        }
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return digits.count == 1 ? "0" + digits : digits
    }
}
