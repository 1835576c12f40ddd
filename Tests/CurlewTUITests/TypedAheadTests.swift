@testable import CurlewTUI
import Testing

/// What came after a paste's end marker in the same read is read as the keys it is.
@Suite("Keys typed ahead of curses")
struct TypedAheadTests {
    private func read(_ bytes: [UInt8]) -> [TypedAhead.Next] {
        var typed = TypedAhead()
        typed.append(bytes)
        var read: [TypedAhead.Next] = []
        while !typed.isEmpty { read.append(typed.next()) }
        return read
    }

    @Test("characters are their code points, UTF-8 decoded; a byte that is not UTF-8, or a character cut short, is U+FFFD")
    func characters() {
        #expect(read(Array("a€😀".utf8)) == [.character(0x61), .character(0x20AC), .character(0x1F600)])
        #expect(read([0xFF, 0x61]) == [.character(0xFFFD), .character(0x61)])
        #expect(read([0xE2, 0x82]) == [.character(0xFFFD)])
        #expect(read([0xE2, 0x61]) == [.character(0xFFFD), .character(0x61)])
        #expect(read([0x7F, 0x0D]) == [.character(0x7F), .character(0x0D)])
    }

    @Test("arrows in either form are arrows; other sequences (function keys, both mouse encodings, a stray end marker) are dropped whole; a lone Escape is Escape")
    func sequences() {
        #expect(read(Array("\u{1B}[A\u{1B}OB\u{1B}[C\u{1B}OD".utf8)) == [.key(.up), .key(.down), .key(.right), .key(.left)])
        #expect(read(Array("\u{1B}[15~x".utf8)) == [.nothing, .character(0x78)])
        #expect(read(Array("\u{1B}[1;5Ax".utf8)) == [.nothing, .character(0x78)])
        #expect(read(Array("\u{1B}[<35;10;5Mx".utf8)) == [.nothing, .character(0x78)])
        #expect(read(Array("\u{1B}[M !!x".utf8)) == [.nothing, .character(0x78)])
        #expect(read(Array("\u{1B}[201~x".utf8)) == [.nothing, .character(0x78)])
        #expect(read(Array("\u{1B}x".utf8)) == [.key(.escape), .character(0x78)])
        #expect(read([0x1B]) == [.key(.escape)])
        // Cut off by the read: dropped, never read as letters.
        #expect(read(Array("\u{1B}[<35;1".utf8)) == [.nothing])
    }

    @Test("a paste's start marker says a paste begins, and the rest is left for it")
    func pasteStart() {
        var typed = TypedAhead()
        typed.append(Array("y\u{1B}[200~pasted".utf8))
        #expect(typed.next() == .character(0x79))
        #expect(typed.next() == .pasteStart)
        #expect(typed.takeAll() == Array("pasted".utf8))
        #expect(typed.isEmpty)
    }

    @Test("any bytes at all are read to the end, each step taking at least one")
    func anyBytesEnd() {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [UInt8] = [0x1B, 0x5B, 0x4F, 0x3C, 0x3B, 0x31, 0x4D, 0x7E, 0x41, 0xE2, 0x82, 0xAC, 0xFF, 0x61, 0x20]
        for _ in 0..<2_000 {
            let bytes = (0..<Int.random(in: 0...40, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
            var typed = TypedAhead()
            typed.append(bytes)
            var steps = 0
            while !typed.isEmpty, steps <= bytes.count {
                _ = typed.next()
                steps += 1
            }
            #expect(typed.isEmpty, "\(bytes)")
        }
    }
}
