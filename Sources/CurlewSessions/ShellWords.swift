import Foundation

/// Splits a shell command line into words the way a POSIX shell (and bash's `$'…'`) would, and
/// reads Windows `cmd` lines as "Copy as cURL (cmd)" writes them (`^` escapes and continuations).
/// Only quoting is interpreted: no variables, globs or substitutions are expanded.
public enum ShellWords {
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public var reason: String
        public var description: String { reason }
    }

    /// The longest command accepted, in bytes.
    public static let maxLength = 8 << 20

    /// A word, or what separates commands: a line end, `;`, `|` or `&` outside quotes.
    public enum Token: Sendable, Equatable {
        case word(String)
        case separator
    }

    /// The tokens of `text`.
    public static func split(_ text: String) throws(Failure) -> [Token] {
        guard text.utf8.count <= maxLength else { throw Failure(reason: "the command is longer than \(maxLength >> 20) MiB") }
        // No shell passes a NUL in an argument; text holding one is not a command line.
        guard !text.utf8.contains(0) else { throw Failure(reason: "the text holds a NUL byte; a command line is text") }
        let scalars = Array((isCmd(text) ? fromCmd(text) : text).unicodeScalars)
        var words: [Token] = []
        var word = ""
        var inWord = false
        var index = 0
        func finish() {
            if inWord { words.append(.word(word)) }
            word = ""
            inWord = false
        }
        while index < scalars.count {
            let c = scalars[index]
            switch c {
            case " ", "\t", "\r":
                finish()
                index += 1
            case "\n":
                // An unescaped line end ends a command, as ; does.
                finish()
                if let last = words.last, last != .separator { words.append(.separator) }
                index += 1
            case "#" where !inWord:
                while index < scalars.count, scalars[index] != "\n" { index += 1 }
            case "\\":
                index += 1
                guard index < scalars.count else { inWord = true; word.unicodeScalars.append("\\"); break }
                if scalars[index] == "\n" { index += 1; break }
                if scalars[index] == "\r", index + 1 < scalars.count, scalars[index + 1] == "\n" { index += 2; break }
                word.unicodeScalars.append(scalars[index])
                inWord = true
                index += 1
            case "'":
                inWord = true
                index += 1
                while true {
                    guard index < scalars.count else { throw Failure(reason: "a single quote is never closed") }
                    if scalars[index] == "'" { index += 1; break }
                    word.unicodeScalars.append(scalars[index])
                    index += 1
                }
            case "$" where index + 1 < scalars.count && scalars[index + 1] == "'":
                inWord = true
                index += 2
                word += try ansiC(scalars, &index)
            case "\"":
                inWord = true
                index += 1
                while true {
                    guard index < scalars.count else { throw Failure(reason: "a double quote is never closed") }
                    let q = scalars[index]
                    if q == "\"" { index += 1; break }
                    if q == "\\", index + 1 < scalars.count, "\"\\$`\n".unicodeScalars.contains(scalars[index + 1]) {
                        if scalars[index + 1] != "\n" { word.unicodeScalars.append(scalars[index + 1]) }
                        index += 2
                        continue
                    }
                    word.unicodeScalars.append(q)
                    index += 1
                }
            case ";", "|", "&":
                finish()
                if let last = words.last, last != .separator { words.append(.separator) }
                index += 1
            default:
                word.unicodeScalars.append(c)
                inWord = true
                index += 1
            }
        }
        finish()
        return words
    }

    /// A cmd line: "Copy as cURL (cmd)" always starts `curl ^"` (the URL quoted the cmd way).
    /// A `^"` or `^` line end elsewhere may be text inside POSIX quotes, so only the start counts.
    static func isCmd(_ text: String) -> Bool {
        let start = text.drop { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }
        return start.hasPrefix("curl ^\"") || start.hasPrefix("curl.exe ^\"")
    }

    /// Removes cmd's escapes: `^X` is X, `^` at a line's end joins the next line. What remains
    /// quotes as curl.exe's own argument parser reads it: `"…"` with `\"` for a quote inside.
    /// cmd has no single quotes, so a `'` is literal and is protected for the reading that follows.
    static func fromCmd(_ text: String) -> String {
        var output = ""
        var scalars = text.unicodeScalars.makeIterator()
        var inDouble = false
        var escaped = false
        while var c = scalars.next() {
            if c == "^" {
                guard let next = scalars.next() else { break }
                if next == "\r" { _ = scalars.next(); continue }
                if next == "\n" { continue }
                c = next
            }
            // A quote opens or closes a quoted argument unless a backslash makes it literal
            // (Chrome writes a literal quote as \^").
            if c == "\"", !escaped { inDouble.toggle() }
            if c == "'" && !inDouble { output += "\\'"; escaped = false; continue }
            escaped = c == "\\" && !escaped
            output.unicodeScalars.append(c)
        }
        return output
    }

    /// The body of `$'…'` (after the opening quote) with its C escapes.
    private static func ansiC(_ s: [Unicode.Scalar], _ index: inout Int) throws(Failure) -> String {
        var bytes: [UInt8] = []
        func append(_ scalar: Unicode.Scalar) { bytes += Array(String(scalar).utf8) }
        func hex(_ maxDigits: Int) -> UInt32? {
            var value: UInt32 = 0
            var digits = 0
            while digits < maxDigits, index < s.count, let digit = Int(String(s[index]), radix: 16) {
                value = value * 16 + UInt32(digit)
                digits += 1
                index += 1
            }
            return digits == 0 ? nil : value
        }
        while true {
            guard index < s.count else { throw Failure(reason: "a $' quote is never closed") }
            let c = s[index]
            index += 1
            if c == "'" { break }
            guard c == "\\" else { append(c); continue }
            guard index < s.count else { throw Failure(reason: "a $' quote is never closed") }
            let e = s[index]
            index += 1
            switch e {
            case "n": bytes.append(10)
            case "t": bytes.append(9)
            case "r": bytes.append(13)
            case "a": bytes.append(7)
            case "b": bytes.append(8)
            case "f": bytes.append(12)
            case "v": bytes.append(11)
            case "e", "E": bytes.append(27)
            case "\\", "'", "\"", "?": append(e)
            case "x":
                guard let value = hex(2) else { bytes += Array("\\x".utf8); break }
                bytes.append(UInt8(value))
            case "u", "U":
                guard let value = hex(e == "u" ? 4 : 8), let scalar = Unicode.Scalar(value) else { throw Failure(reason: "a \\\(e) escape that names no character") }
                append(scalar)
            case "0"..."7":
                var value = UInt32(String(e))!
                var digits = 1
                while digits < 3, index < s.count, let digit = UInt32(String(s[index])), digit < 8 {
                    value = value * 8 + digit
                    digits += 1
                    index += 1
                }
                bytes.append(UInt8(truncatingIfNeeded: value))
            default:
                bytes.append(UInt8(ascii: "\\"))
                append(e)
            }
        }
        // As in bash, a NUL (\0, \x00) ends the word's text there.
        return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }
}
