import Foundation

/// Byte-level helpers for HTTP's ASCII syntax, where Foundation's Unicode-aware string functions
/// cost more than the whole exchange.
public enum ASCII {
    /// Whether every byte is ASCII: eight bytes at a time, giving up at the first 64 bytes with a
    /// high bit, so a binary body (an image, a download) is turned away at its start.
    public static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let start = bytes.baseAddress else { return true }
        var index = 0
        var seen: UInt64 = 0
        while index + 8 <= bytes.count {
            seen |= start.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            index += 8
            if index & 63 == 0, seen & 0x8080_8080_8080_8080 != 0 { return false }
        }
        while index < bytes.count {
            seen |= UInt64(start.load(fromByteOffset: index, as: UInt8.self))
            index += 1
        }
        return seen & 0x8080_8080_8080_8080 == 0
    }

    /// Case-insensitive equality of two ASCII strings (header names, schemes).
    /// Lengths first (most names differ there), then the bytes in place.
    public static func equalsIgnoringCase(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.count == rhs.utf8.count && hasPrefixIgnoringCase(lhs, rhs)
    }

    /// Whether `text` starts with `prefix`, ignoring ASCII case (schemes), comparing bytes in place.
    public static func hasPrefixIgnoringCase(_ text: String, _ prefix: String) -> Bool {
        guard text.utf8.count >= prefix.utf8.count else { return false }
        return text.withUTF8Bytes { characters in
            prefix.withUTF8Bytes { expected in
                matches(characters, at: 0, expected)
            }
        }
    }

    /// Whether `url` starts with `https:`, ignoring ASCII case: the transport asks it of every
    /// exchange, so the scheme's six bytes are compared in place, with no second string.
    public static func isHTTPS(_ url: String) -> Bool {
        url.withUTF8Bytes { bytes in
            bytes.count >= 6 && lowercase(bytes[0]) == UInt8(ascii: "h") && lowercase(bytes[1]) == UInt8(ascii: "t")
                && lowercase(bytes[2]) == UInt8(ascii: "t") && lowercase(bytes[3]) == UInt8(ascii: "p")
                && lowercase(bytes[4]) == UInt8(ascii: "s") && bytes[5] == UInt8(ascii: ":")
        }
    }

    /// Whether `needle` occurs in `haystack`, ignoring ASCII case (media types, tokens).
    public static func containsIgnoringCase(_ haystack: String, _ needle: String) -> Bool {
        return haystack.withUTF8Bytes { text in
            needle.withUTF8Bytes { pattern in
                guard !pattern.isEmpty else { return true }
                guard text.count >= pattern.count else { return false }
                let first = lowercase(pattern[0])
                for start in 0...(text.count - pattern.count) where lowercase(text[start]) == first && matches(text, at: start, pattern) {
                    return true
                }
                return false
            }
        }
    }

    /// Whether a line of `text` (CRLF or LF separated) starts with `prefix`, ignoring ASCII case
    /// (a header line in a raw head): line starts are found by `memchr`, and only they compared.
    public static func hasLine(startingWith prefix: String, in text: String) -> Bool {
        return text.withUTF8Bytes { bytes in
            prefix.withUTF8Bytes { expected in
                guard let base = bytes.baseAddress else { return expected.isEmpty }
                var lineStart = 0
                while true {
                    if bytes.count - lineStart >= expected.count, matches(bytes, at: lineStart, expected) { return true }
                    guard lineStart < bytes.count, let newline = memchr(base + lineStart, 0x0A, bytes.count - lineStart) else { return false }
                    lineStart = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(newline)) + 1
                }
            }
        }
    }

    /// Whether `expected` occurs in `text` at `start`, ignoring ASCII case; the caller has checked
    /// that it fits.
    @inline(__always)
    private static func matches(_ text: UnsafeBufferPointer<UInt8>, at start: Int, _ expected: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        while index < expected.count, lowercase(text[start + index]) == lowercase(expected[index]) { index += 1 }
        return index == expected.count
    }

    /// Whether `byte` occurs in `text`, found by `memchr` (a generic `contains` over the UTF-8
    /// view costs more per byte than the search).
    public static func contains(_ byte: UInt8, in text: String) -> Bool {
        text.withUTF8Bytes { contains(byte, in: UnsafeRawBufferPointer($0)[...]) }
    }

    /// Whether `byte` occurs in `bytes`.
    public static func contains(_ byte: UInt8, in bytes: UnsafeRawBufferPointer.SubSequence) -> Bool {
        firstIndex(of: byte, in: bytes) != nil
    }

    /// Whether `first` or `second` occurs in `bytes`: one pass, eight bytes at a time, where two
    /// `memchr` calls cost more than the short header values and URLs this decides about.
    public static func containsEither(_ first: UInt8, _ second: UInt8, in bytes: UnsafeRawBufferPointer.SubSequence) -> Bool {
        guard let base = bytes.base.baseAddress else { return false }
        var index = bytes.startIndex
        let end = bytes.endIndex
        while end &- index >= 8 {
            let word = UInt64(littleEndian: (base + index).loadUnaligned(as: UInt64.self))
            if Self.bytes(equalTo: first, in: word) | Self.bytes(equalTo: second, in: word) != 0 { return true }
            index &+= 8
        }
        while index < end {
            let byte = base.load(fromByteOffset: index, as: UInt8.self)
            if byte == first || byte == second { return true }
            index &+= 1
        }
        return false
    }

    /// The index (in `bytes.base`) of the first `byte` in `bytes`, found by `memchr`.
    public static func firstIndex(of byte: UInt8, in bytes: UnsafeRawBufferPointer.SubSequence) -> Int? {
        guard !bytes.isEmpty, let base = bytes.base.baseAddress else { return nil }
        guard let found = memchr(base + bytes.startIndex, Int32(byte), bytes.count) else { return nil }
        return base.distance(to: UnsafeRawPointer(found))
    }

    /// Whether `text` is an RFC 9110 token: one or more of letters, digits and ``!#$%&'*+-.^_`|~``.
    /// Methods and header names must be tokens; anything else (space, CR, LF, NUL) would change
    /// what goes on the wire.
    public static func isToken(_ text: String) -> Bool {
        text.withUTF8Bytes { bytes in
            guard !bytes.isEmpty else { return false }
            for byte in bytes where !isTokenByte(byte) { return false }
            return true
        }
    }

    /// Whether `byte` may stand in a URL scheme (RFC 3986: a letter first, then letters, digits,
    /// `+`, `-` and `.`).
    static func isSchemeByte(_ byte: UInt8, first: Bool) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): true
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."): !first
        default: false
        }
    }

    @inline(__always)
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
             UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// The high bit of each of the eight bytes of `word` (read little-endian) that equals `byte`:
    /// the has-zero-byte test. A borrow can flag a byte above a true one, never one below, so the
    /// lowest flag (of this test, or of several OR'ed together) is exact.
    @inlinable @inline(__always)
    public static func bytes(equalTo byte: UInt8, in word: UInt64) -> UInt64 {
        let difference = word ^ (0x0101_0101_0101_0101 &* UInt64(byte))
        return (difference &- 0x0101_0101_0101_0101) & ~difference & 0x8080_8080_8080_8080
    }

    /// The bytes of `word` a JSON string must escape (a control byte, `"` or `\`), each flagged
    /// by its high bit, as `bytes(equalTo:in:)` flags them (the lowest flag is exact). The one
    /// rule for the session log's writer and for `isPlainJSONText`.
    @inlinable @inline(__always)
    public static func bytesJSONEscapes(in word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let control = (word &- ones &* 0x20) & ~word & 0x8080_8080_8080_8080
        return control | bytes(equalTo: 0x22, in: word) | bytes(equalTo: 0x5C, in: word)
    }

    /// Whether `bytes` are ASCII that a JSON string holds as they are: no byte beyond ASCII, no
    /// control byte, no `"` or `\`. Eight bytes at a time.
    public static func isPlainJSONText(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let start = bytes.baseAddress else { return true }
        let highs: UInt64 = 0x8080_8080_8080_8080
        var index = 0
        var flagged: UInt64 = 0
        while index + 8 <= bytes.count {
            let word = UInt64(littleEndian: start.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            flagged |= (word & highs) | bytesJSONEscapes(in: word)
            index += 8
        }
        if index < bytes.count {
            if bytes.count >= 8 {
                // The last eight bytes, some of them read already.
                let word = UInt64(littleEndian: start.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self))
                flagged |= (word & highs) | bytesJSONEscapes(in: word)
            } else {
                while index < bytes.count {
                    let byte = start.load(fromByteOffset: index, as: UInt8.self)
                    if byte < 0x20 || byte >= 0x80 || byte == 0x22 || byte == 0x5C { return false }
                    index += 1
                }
            }
        }
        return flagged == 0
    }

    /// Whether `name` (a header field's name, as bytes) is `lowercaseName` ignoring ASCII case;
    /// `lowercaseName` must be ASCII and lowercase. Inlined: the length, a constant at each call
    /// site, turns most names away at once.
    @inline(__always)
    static func isName(_ name: UnsafeRawBufferPointer, _ lowercaseName: StaticString) -> Bool {
        guard name.count == lowercaseName.utf8CodeUnitCount, let start = name.baseAddress else { return false }
        let letters = lowercaseName.utf8Start
        assert((0..<name.count).allSatisfy { letters[$0] < 0x80 && lowercase(letters[$0]) == letters[$0] }, "a name to match must be lowercase ASCII")
        for index in 0..<name.count where lowercase(start.load(fromByteOffset: index, as: UInt8.self)) != letters[index] { return false }
        return true
    }

    @inline(__always)
    public static func lowercase(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }

    /// The range of `bytes` without leading and trailing spaces and tabs.
    static func trimmed(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Range<Int> {
        var lower = start
        var upper = end
        while lower < upper, bytes[lower] == 0x20 || bytes[lower] == 0x09 { lower += 1 }
        while upper > lower, bytes[upper - 1] == 0x20 || bytes[upper - 1] == 0x09 { upper -= 1 }
        return lower..<upper
    }
}
