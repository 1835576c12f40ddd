@testable import CurlewTransport
import Foundation
import Testing

@Suite("ASCII byte helpers")
struct ASCIITests {
    @Test("a line prefix is found at the start of the text and after every line break, ignoring case, and nowhere else", arguments: [
        ("Cookie: a=b", true),
        ("GET / HTTP/1.1\r\nHost: h\r\nCOOKIE: a=b\r\n\r\n", true),
        ("GET / HTTP/1.1\nhost: h\ncookie:x", true),
        ("GET / HTTP/1.1\r\nX-Cookie: a=b\r\nSet-Cookie-ish: 1\r\n\r\n", false),
        ("GET /?cookie:=1 HTTP/1.1\r\n\r\n", false),
        ("GET / HTTP/1.1\r\ncookie", false),
        ("", false),
        ("\n", false),
    ])
    func lineStart(_ head: String, _ expected: Bool) {
        #expect(ASCII.hasLine(startingWith: "cookie:", in: head) == expected)
    }

    @Test("an https URL is told by its scheme in any case, and nothing else passes for one")
    func https() {
        for url in ["https://h.test/", "HTTPS://h.test", "hTtPs:", "https://"] { #expect(ASCII.isHTTPS(url), "\(url)") }
        for url in ["http://h.test/", "https", "httpx://h.test", "https//h.test", " https://h.test", "", "ftps://h.test", "httpş://h.test"] {
            #expect(!ASCII.isHTTPS(url), "\(url)")
        }
    }

    @Test("substring search ignores ASCII case, finds matches at both ends, and misses near-misses")
    func containsIgnoringCase() {
        #expect(ASCII.containsIgnoringCase("application/JSON", "json"))
        #expect(ASCII.containsIgnoringCase("jsonp", "JSON"))
        #expect(ASCII.containsIgnoringCase("x-www-form-urlencoded", "x-www-form-urlencoded"))
        #expect(!ASCII.containsIgnoringCase("application/jso", "json"))
        #expect(!ASCII.containsIgnoringCase("jjsoon", "json"))
        #expect(ASCII.containsIgnoringCase("anything", ""))
        #expect(!ASCII.containsIgnoringCase("", "a"))
    }

    @Test("either of two bytes is found at every offset of a slice, in words and in the tail, and never outside the slice")
    func containsEither() {
        let base = Array(repeating: UInt8(ascii: "a"), count: 40)
        base.withUnsafeBytes { clean in
            for lower in 0..<12 {
                for upper in lower...40 {
                    #expect(!ASCII.containsEither(UInt8(ascii: "="), UInt8(ascii: "@"), in: clean[lower..<upper]))
                }
            }
        }
        for found in [UInt8(ascii: "="), UInt8(ascii: "@")] {
            for position in 0..<40 {
                var bytes = base
                bytes[position] = found
                bytes.withUnsafeBytes { all in
                    for lower in 0..<12 {
                        for upper in lower...40 {
                            let inside = (lower..<upper).contains(position)
                            #expect(ASCII.containsEither(UInt8(ascii: "="), UInt8(ascii: "@"), in: all[lower..<upper]) == inside,
                                    "\(found) at \(position) in \(lower)..<\(upper)")
                        }
                    }
                }
            }
        }
        // Bytes one either side of the two sought (`<` `>` `?` `A`) are not taken for them.
        Array("<>?A<>?A<>?A".utf8).withUnsafeBytes { near in
            #expect(!ASCII.containsEither(UInt8(ascii: "="), UInt8(ascii: "@"), in: near[...]))
        }
    }

    @Test("a byte is found by memchr in a whole string and in a slice, with its index in the base")
    func bytes() {
        #expect(ASCII.contains(UInt8(ascii: "@"), in: "http://u:p@h/"))
        #expect(!ASCII.contains(UInt8(ascii: "@"), in: "http://h/"))
        #expect(!ASCII.contains(UInt8(ascii: "@"), in: ""))
        let text: [UInt8] = Array("a=b&c=d".utf8)
        text.withUnsafeBytes { buffer in
            #expect(ASCII.firstIndex(of: UInt8(ascii: "="), in: buffer[2...]) == 5)
            #expect(ASCII.firstIndex(of: UInt8(ascii: "="), in: buffer[2..<4]) == nil)
            #expect(ASCII.firstIndex(of: UInt8(ascii: "a"), in: buffer[...]) == 0)
        }
    }

    @Test("an ASCII marker is found in a substring at its first place, across multi-byte text, and a partial one at the end is none")
    func firstRangeOfASCII() {
        let text = "é {{x}} ü {{y}}"
        let first = try! #require(text.firstRange(ofASCII: "{{"))
        #expect(text[..<first.lowerBound] == "é ")
        #expect(text[first] == "{{")
        let rest = text[first.upperBound...]
        let close = try! #require(rest.firstRange(ofASCII: "}}"))
        #expect(rest[..<close.lowerBound] == "x")
        let second = try! #require(rest.firstRange(ofASCII: "{{"))
        #expect(text[second.upperBound...] == "y}}")
        #expect("abc{".firstRange(ofASCII: "{{") == nil)
        #expect("".firstRange(ofASCII: "{{") == nil)
        #expect("{{".firstRange(ofASCII: "{{") == "{{".startIndex..<"{{".endIndex)
        #expect("a{b{{".firstRange(ofASCII: "{{").map { "a{b{{"[..<$0.lowerBound] } == "a{b")
        #expect("x $env.HOME".firstRange(ofASCII: "$env.") != nil)
        #expect("x $env".firstRange(ofASCII: "$env.") == nil)
        // A one-character needle (a literal stored without a pointer).
        #expect("ab{c".firstRange(ofASCII: "{").map { "ab{c"[$0] } == "{")
        #expect("abc".firstRange(ofASCII: "{") == nil)
    }

    @Test("bytes are found in data within the range asked, in a slice whose indices do not start at zero, and a match that runs past the range is none")
    func dataFirstRange() {
        let data = Data("--XX\r\nname=\"a\"\r\n\r\nv\r\n--XX--".utf8)
        #expect(data.firstRange(of: Array("name=\"".utf8)) == 6..<12)
        #expect(data.firstRange(of: [13, 10, 13, 10], in: 12..<data.endIndex) == 14..<18)
        #expect(data.firstRange(of: [13, 10, 13, 10], in: 12..<17) == nil)
        #expect(data.firstRange(of: Array("--XX".utf8), in: 1..<data.endIndex) == 21..<25)
        #expect(data.firstRange(of: Array("zz".utf8)) == nil)
        #expect(data.firstRange(of: [UInt8]()) == 0..<0)
        let slice = data[6...]
        #expect(slice.firstRange(of: Array("\"".utf8)) == 11..<12)
        #expect(slice.firstRange(of: Array("--".utf8), in: 22..<slice.endIndex) == 25..<27)
    }

    @Test("walking a text one marker at a time takes time in proportion to the text (a substring search read all the rest each time)")
    func firstRangeOfASCIIWalk() {
        let text = String(repeating: "abcdefgh {{x}} ", count: 300_000)
        let start = ContinuousClock.now
        var found = 0
        var rest = Substring(text)
        while let open = rest.firstRange(ofASCII: "{{") {
            found += 1
            rest = rest[open.upperBound...]
        }
        #expect(found == 300_000)
        // Foundation's search took about 45 s for this text; a linear one takes milliseconds.
        #expect(ContinuousClock.now - start < .seconds(10))
    }
}
