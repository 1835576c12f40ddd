@testable import CurlewTransport
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
}
