/// How many terminal cells text takes: 2 for East Asian wide and emoji characters, 0 for
/// combining marks, 1 otherwise (a control character and an invisible format character
/// included: each is drawn as a visible stand-in, see `visible(_:)`). Independent of the C
/// locale, so tests and terminals agree.
public enum TextWidth {
    public static func of(_ character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        // ASCII alone, nearly every character drawn: no property looked up.
        if first.isASCII, character.unicodeScalars.count == 1 { return 1 }
        if character.unicodeScalars.contains(where: { $0.value == 0xFE0F }) { return 2 }
        if isInvisibleFormat(character) { return standIns(character) }
        return of(first) + carriedFormats(character)
    }

    /// A character made only of format characters, which no terminal shows: a bidirectional
    /// control (`U+202E`, which reorders what follows), a zero-width space or joiner standing
    /// alone, a word joiner, a byte order mark, a soft hyphen. A URL or a header holding one
    /// would read as text it is not, so each is drawn as a stand-in. A joiner inside an emoji
    /// sequence belongs to its character, which is drawn as it is.
    static func isInvisibleFormat(_ character: Character) -> Bool {
        character.unicodeScalars.allSatisfy(isFormat)
    }

    /// How many stand-ins a character of format characters alone is drawn as: one for each of
    /// them (two joiners together are one character, and were one stand-in), at most
    /// `maxStandIns`, so a hostile run of thousands stays narrower than a line.
    private static func standIns(_ character: Character) -> Int {
        min(character.unicodeScalars.count, maxStandIns)
    }

    static let maxStandIns = 16

    /// A format character (general category Cf): one no terminal draws.
    private static func isFormat(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .format
    }

    /// A character that is no emoji and carries a format character after its first (a Latin
    /// letter with a zero-width joiner or non-joiner after it): drawn as itself and a stand-in.
    /// A joiner that shapes a word of a script written with them is not one (see `joinsWord`).
    static func carriesFormat(_ character: Character) -> Bool {
        carriedFormats(character) > 0
    }

    /// How many stand-ins a character that carries format characters is drawn with after its
    /// first: one for each of them (at most `maxStandIns`).
    static func carriedFormats(_ character: Character) -> Int {
        guard let first = formatBase(character) else { return 0 }
        return min(character.unicodeScalars.dropFirst().count { isFormat($0) && !joinsWord($0, after: first) }, maxStandIns)
    }

    /// The first scalar of a character that is no emoji and has more than one scalar: one
    /// whose format characters after the first are looked at.
    private static func formatBase(_ character: Character) -> Unicode.Scalar? {
        let scalars = character.unicodeScalars
        guard scalars.count > 1, let first = scalars.first,
              !(first.properties.isEmojiPresentation || (first.properties.isEmoji && !first.isASCII)) else { return nil }
        return first
    }

    /// Whether `scalar` is a zero-width non-joiner or joiner after a letter of a script that
    /// writes them inside words (Persian `می‌خواهم`, Arabic, Hebrew, Syriac, N'Ko, the Indic
    /// scripts, Myanmar, Khmer, Mongolian), where it chooses a letter's form and is no trick. It
    /// is left out of what is drawn, taking no cell, as a terminal would draw it. After a letter
    /// of any other script (Latin, Greek, Cyrillic, their extended blocks, CJK), where no word
    /// needs one, it stays a stand-in.
    private static func joinsWord(_ scalar: Unicode.Scalar, after first: Unicode.Scalar) -> Bool {
        guard scalar.value == 0x200C || scalar.value == 0x200D, first.properties.isAlphabetic else { return false }
        return joiningScripts.contains { $0.contains(first.value) }
    }

    /// The blocks of the scripts that write joiners inside words.
    private static let joiningScripts: [ClosedRange<UInt32>] = [
        0x0590...0x08FF,  // Hebrew, Arabic, Syriac, Thaana, N'Ko, Samaritan, Mandaic, Arabic Extended
        0x0900...0x0DFF,  // Devanagari to Sinhala
        0x1000...0x109F,  // Myanmar
        0x1780...0x18AF,  // Khmer, Mongolian
        0xA8E0...0xA8FF, 0xA9E0...0xA9FF, 0xAA60...0xAA7F,  // Devanagari and Myanmar extended
        0xFB1D...0xFDFF, 0xFE70...0xFEFF,  // Hebrew and Arabic presentation forms
    ]

    public static func of(_ text: some StringProtocol) -> Int {
        text.reduce(0) { $0 + of($1) }
    }

    static func of(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x20 || (0x7F..<0xA0).contains(value) { return 1 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if scalar.properties.isEmojiPresentation { return 2 }
        return isWide(value) ? 2 : 1
    }

    /// What a cell shows for `character`: the character itself, or for a control character a
    /// visible stand-in, so an escape or a bell in a header a server sent is seen, not acted on
    /// by the terminal and not silently dropped. A tab or a line break in a one-line field reads
    /// as a space; other C0 controls and DEL as their Unicode control pictures (`␛`, `␇`, `␡`);
    /// C1 controls and invisible format characters as `�`.
    static func visible(_ character: Character) -> String {
        guard let first = character.unicodeScalars.first else { return "" }
        if first.isASCII, character.unicodeScalars.count == 1, first.value >= 0x20, first.value != 0x7F { return String(character) }
        if isInvisibleFormat(character) { return String(repeating: "\u{FFFD}", count: standIns(character)) }
        if formatBase(character) != nil, character.unicodeScalars.dropFirst().contains(where: isFormat) {
            let shown = String(String.UnicodeScalarView(character.unicodeScalars.filter { !isFormat($0) }))
            return shown + String(repeating: "\u{FFFD}", count: carriedFormats(character))
        }
        let value = first.value
        guard value < 0x20 || (0x7F..<0xA0).contains(value) else { return String(character) }
        if character == "\t" || character.isNewline { return " " }
        if value < 0x20 { return String(Character(Unicode.Scalar(0x2400 + value)!)) }
        return value == 0x7F ? "\u{2421}" : "\u{FFFD}"
    }

    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
             0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
             0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            return true
        default:
            return false
        }
    }

    /// `text` cut to at most `width` cells, ending in "…" when something was cut.
    public static func truncate(_ text: String, to width: Int) -> String {
        guard width > 0 else { return "" }
        guard of(text) > width else { return text }
        var output = ""
        var used = 0
        for character in text {
            let cells = of(character)
            if used + cells > width - 1 { break }
            output.append(character)
            used += cells
        }
        return output + "…"
    }

    /// `text` cut or padded with spaces to exactly `width` cells.
    public static func fit(_ text: String, to width: Int) -> String {
        let cut = truncate(text, to: width)
        return cut + String(repeating: " ", count: max(0, width - of(cut)))
    }

    /// `text` as a table cell of exactly `width` cells, the last always a space, so a long
    /// value never runs into the next column.
    public static func cell(_ text: String, width: Int) -> String {
        fit(text, to: width - 1) + " "
    }

    /// `text` in lines of at most `width` cells: a line break starts a new line, a long line is
    /// broken after its last space that fits (the spaces at the break dropped), and a word longer
    /// than a line where the line is full. A character wider than `width` takes a line alone.
    public static func wrap(_ text: String, to width: Int) -> [String] {
        guard width > 0 else { return [text] }
        return text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).flatMap { wrapLine($0, to: width) }
    }

    private static func wrapLine(_ text: Substring, to width: Int) -> [String] {
        guard of(text) > width else { return [String(text)] }
        var lines: [String] = []
        var line = ""
        var used = 0
        for character in text {
            let cells = of(character)
            if used + cells > width {
                if character == " " {
                    lines.append(line)
                    line = ""
                    used = 0
                    continue
                }
                let space = line.lastIndex(of: " ")
                var head = space.map { line[..<$0] } ?? ""
                while head.last == " " { head = head.dropLast() }
                if let space, !head.isEmpty {
                    lines.append(String(head))
                    line = String(line[line.index(after: space)...])
                    used = of(line)
                } else if !line.isEmpty {
                    lines.append(line)
                    line = ""
                    used = 0
                }
            }
            // A line that wrapping started does not begin with the spaces of the break.
            if line.isEmpty, character == " ", !lines.isEmpty { continue }
            line.append(character)
            used += cells
        }
        if !line.isEmpty || lines.isEmpty { lines.append(line) }
        return lines
    }

    /// `text` right-aligned in exactly `width` cells.
    public static func fitRight(_ text: String, to width: Int) -> String {
        let cut = truncate(text, to: width)
        return String(repeating: " ", count: max(0, width - of(cut))) + cut
    }
}
