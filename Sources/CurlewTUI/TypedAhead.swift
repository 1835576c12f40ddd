/// Bytes the terminal sent right after a paste's end marker. The paste is read in one call, so
/// curses never sees them; they are read here as the keys they are, in order, before curses is
/// asked for more. A character is its code point (read as curses would give it); an arrow's
/// sequence (CSI or SS3, no parameters) is that arrow; any other escape sequence (another
/// function key, a mouse report in either encoding, a stray end marker) is dropped whole,
/// never read as Escape and printable keys; a paste's start marker says a paste begins.
struct TypedAhead {
    enum Next: Equatable {
        /// A character's code point (U+FFFD for bytes that are not UTF-8).
        case character(UInt32)
        case key(Key)
        case pasteStart
        /// A sequence dropped whole (or nothing left).
        case nothing
    }

    private var bytes: [UInt8] = []

    var isEmpty: Bool { bytes.isEmpty }

    mutating func append(_ more: some Collection<UInt8>) {
        bytes.append(contentsOf: more)
    }

    /// All that is left, for a paste that began in it.
    mutating func takeAll() -> [UInt8] {
        defer { bytes = [] }
        return bytes
    }

    static let pasteStart: [UInt8] = Array("\u{1B}[200~".utf8)

    mutating func next() -> Next {
        guard let first = bytes.first else { return .nothing }
        guard first == 0x1B else { return .character(takeCharacter()) }
        if bytes.starts(with: Self.pasteStart) {
            bytes.removeFirst(Self.pasteStart.count)
            return .pasteStart
        }
        guard bytes.count >= 2, bytes[1] == UInt8(ascii: "[") || bytes[1] == UInt8(ascii: "O") else {
            bytes.removeFirst()
            return .key(.escape)
        }
        let isCSI = bytes[1] == UInt8(ascii: "[")
        // A CSI's parameter and intermediate bytes, then its final byte; SS3 has the final at once.
        var end = 2
        if isCSI { while end < bytes.count, (0x20...0x3F).contains(bytes[end]) { end += 1 } }
        guard end < bytes.count else {
            // Cut off by the read: what came is dropped; the rest never reaches curses as keys either.
            bytes.removeAll()
            return .nothing
        }
        let final = bytes[end]
        let plain = end == 2
        bytes.removeFirst(end + 1)
        // X10 mouse (`ESC [ M` and three bytes of button and position).
        if isCSI, plain, final == UInt8(ascii: "M") {
            bytes.removeFirst(min(3, bytes.count))
            return .nothing
        }
        guard plain else { return .nothing }
        switch final {
        case UInt8(ascii: "A"): return .key(.up)
        case UInt8(ascii: "B"): return .key(.down)
        case UInt8(ascii: "C"): return .key(.right)
        case UInt8(ascii: "D"): return .key(.left)
        default: return .nothing
        }
    }

    /// The first character's code point, its bytes taken; U+FFFD for a byte that starts none or
    /// a character cut short.
    private mutating func takeCharacter() -> UInt32 {
        let first = bytes[0]
        let length = switch first {
        case 0xC2...0xDF: 2
        case 0xE0...0xEF: 3
        case 0xF0...0xF4: 4
        default: 1
        }
        var taken = 1
        while taken < min(length, bytes.count), bytes[taken] & 0xC0 == 0x80 { taken += 1 }
        defer { bytes.removeFirst(taken) }
        guard taken == length else { return 0xFFFD }
        return String(decoding: bytes[0..<taken], as: UTF8.self).unicodeScalars.first?.value ?? 0xFFFD
    }
}
