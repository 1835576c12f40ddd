/// Makes text from the network safe to print on a terminal: C0 controls (except newline and tab),
/// DEL and C1 controls become visible escapes, so a server cannot set the window title, clear the
/// screen or switch the terminal's modes through what `curlew send` prints.
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

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        return (value < 0x20 && value != 0x0A && value != 0x09) || (0x7F...0x9F).contains(value)
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
