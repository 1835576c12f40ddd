@testable import CurlewTransport
import Foundation
import Testing

@Suite("Response headers kept as received")
struct ReceivedHeadersTests {
    /// The headers the header callback keeps of `lines`, each classified as libcurl's callback does.
    private func received(_ lines: [String]) -> ReceivedHeaders {
        var headers = ReceivedHeaders()
        for line in lines {
            Array(line.utf8).withUnsafeBytes { bytes in
                let kind = ResponseHeaderLine(bytes)
                switch kind {
                case .field, .continuation: headers.append(bytes, as: kind)
                case .statusLine: headers.removeAll()
                case .other: break
                }
            }
        }
        return headers
    }

    @Test("fields are noted as plain JSON text when every name and value is ASCII without a control byte, quote or backslash; a new response starts plain again")
    func plainJSONText() {
        #expect(received(["Server: nginx\r\n", "Content-Length: 81 \t\r\n", "X-Empty:\r\n"]).fieldsArePlainJSONText)
        for odd in ["X: a\"b", "X: a\\b", "X: a\tb", "X: caf\u{E9}", "X\u{1}: v"] {
            let headers = received(["Server: nginx\r\n", odd + "\r\n"])
            #expect(!headers.fieldsArePlainJSONText, "\(odd.debugDescription)")
        }
        var headers = received(["X: a\"b\r\n"])
        headers.removeAll()
        #expect(headers.fieldsArePlainJSONText)
        // Not noted as the lines arrived: not said to be plain, and the plain fields' reader
        // looks at the bytes itself.
        for (line, plain) in [("Server: nginx\r\n", true), ("X-Name: caf\u{E9}\r\n", false)] {
            var unnoted = ReceivedHeaders()
            Array(line.utf8).withUnsafeBytes { unnoted.append($0, as: ResponseHeaderLine($0), notingPlainText: false) }
            #expect(!unnoted.fieldsArePlainJSONText)
            #expect(unnoted.forEachPlainField { _, _ in } == plain)
            unnoted.removeAll()
            #expect(unnoted.fieldsArePlainJSONText)
        }
        // Every length and position against the eight-byte words it is read in.
        for length in 0...20 {
            let plain = Array(repeating: UInt8(ascii: "a"), count: length)
            #expect(plain.withUnsafeBytes(ASCII.isPlainJSONText))
            for position in 0..<length {
                for byte: UInt8 in [0x00, 0x1F, 0x22, 0x5C, 0x80, 0xFF] {
                    var bytes = plain
                    bytes[position] = byte
                    #expect(!bytes.withUnsafeBytes(ASCII.isPlainJSONText), "\(bytes)")
                }
                var edges = plain
                edges[position] = [0x20, 0x7F, 0x21, 0x5B, 0x5D][position % 5]
                #expect(edges.withUnsafeBytes(ASCII.isPlainJSONText), "\(edges)")
            }
        }
    }

    @Test("fields come out in order, trimmed, with their names as sent")
    func fieldsInOrder() {
        let headers = received(["Content-Type:  application/json \r\n", "X-Empty:\r\n", "set-cookie: a=1\r\n", "Set-Cookie: b=2\r\n", "\r\n"])
        #expect(headers.fields == [
            HeaderField(name: "Content-Type", value: "application/json"), HeaderField(name: "X-Empty", value: ""),
            HeaderField(name: "set-cookie", value: "a=1"), HeaderField(name: "Set-Cookie", value: "b=2"),
        ])
        #expect(headers.first("SET-COOKIE") == "a=1")
        #expect(headers.last("set-cookie") == "b=2")
        #expect(headers.first("Content-Typ") == nil)
        #expect(headers.first("Content-Type-X") == nil)
        #expect(!headers.isEmpty)
    }

    @Test("the Content-Type noted as it arrives is the one a lookup by name finds")
    func contentType() {
        let cases: [[String]] = [
            ["Content-Type: text/plain\r\n"],
            ["X-A: 1\r\n", "content-TYPE:  application/json \r\n", "Content-Type: text/html\r\n"],
            ["Content-Types: no\r\n", "Content-Typ: no\r\n", "X-Content-Type: no\r\n"],
            ["Content-Type: text/plain;\r\n", " charset=utf-8\r\n"],
            ["Content-Type: first\r\n", "HTTP/1.1 200 OK\r\n", "X-B: 2\r\n"],
            ["Content-Type: old\r\n", "HTTP/1.1 200 OK\r\n", "Content-Type: new\r\n"],
            ["X-C: 3\nContent-Type: inside\r\n", "Content-Type: own\r\n"],
            [],
        ]
        for lines in cases {
            let headers = received(lines)
            #expect(headers.contentType == headers.first("Content-Type"), "\(lines)")
        }
        #expect(received(cases[1]).contentType == "application/json")
        #expect(received(cases[2]).contentType == nil)
        #expect(received(cases[3]).contentType == "text/plain; charset=utf-8")
        #expect(received(cases[4]).contentType == nil)
        #expect(received(cases[5]).contentType == "new")
    }

    @Test("a folded line joins the field before it, and only that field")
    func foldedLines() {
        let headers = received(["  orphan\r\n", "X-Long: one\r\n", "\t two \r\n", " three\r\n", "X-Next: n\r\n"])
        #expect(headers.fields == [HeaderField(name: "X-Long", value: "one two three"), HeaderField(name: "X-Next", value: "n")])
        #expect(headers.first("x-long") == "one two three")
        #expect(headers.last("X-Next") == "n")
    }

    @Test("a new status line starts the fields again; lines without a colon or a line end are read alike")
    func newResponse() {
        let headers = received(["Location: /a\r\n", "HTTP/1.1 200 OK\r\n", "no colon here\r\n", "Last: x", "Bare-LF: y\n"])
        #expect(headers.fields == [HeaderField(name: "Last", value: "x"), HeaderField(name: "Bare-LF", value: "y")])
        #expect(headers.first("Location") == nil)
    }

    @Test("an LF inside a line handed over becomes a space: a read never splits the line there")
    func innerLineFeed() {
        var headers = ReceivedHeaders()
        Array("X-A: one\ntwo\r\n".utf8).withUnsafeBytes { headers.append($0, as: ResponseHeaderLine($0)) }
        Array("X-B: three\nX-C: four".utf8).withUnsafeBytes { headers.append($0, as: ResponseHeaderLine($0)) }
        #expect(headers.fields == [HeaderField(name: "X-A", value: "one two"), HeaderField(name: "X-B", value: "three X-C: four")])
        #expect(headers.first("X-C") == nil)
        // A line is read as its kept bytes say, not as it was classified before its LFs became
        // spaces: a leading LF makes it a folded line, and a tab after an inner LF is trimmed.
        Array("\nX-D: v\r\n".utf8).withUnsafeBytes { headers.append($0, as: ResponseHeaderLine($0)) }
        Array("X-E: a \n\t\r\n".utf8).withUnsafeBytes { headers.append($0, as: ResponseHeaderLine($0)) }
        #expect(headers.fields == [HeaderField(name: "X-A", value: "one two"), HeaderField(name: "X-B", value: "three X-C: four X-D: v"),
                                   HeaderField(name: "X-E", value: "a")])
        #expect(headers.first("x-b") == "three X-C: four X-D: v")
        #expect(headers.last("X-E") == "a")
        #expect(headers.forEachPlainField { _, _ in } == false)
    }

    @Test("bytes that are not UTF-8 are repaired, and a NUL stays inside its value")
    func hostileBytes() {
        var headers = ReceivedHeaders()
        let line: [UInt8] = Array("X-Bin: a".utf8) + [0xFF, 0x00, 0x62] + Array("\r\n".utf8)
        line.withUnsafeBytes { headers.append($0, as: ResponseHeaderLine($0)) }
        #expect(headers.first("x-bin") == "a\u{FFFD}\u{0}b")
        // A name that is not UTF-8 is found by the name `fields` shows for it.
        let badName: [UInt8] = [0x5D, 0x68, 0xFF, 0xFF] + Array(": v\r\n".utf8)
        badName.withUnsafeBytes { headers.append($0, as: ResponseHeaderLine($0)) }
        #expect(headers.fields.last == HeaderField(name: "]h\u{FFFD}\u{FFFD}", value: "v"))
        #expect(headers.first("]H\u{FFFD}\u{FFFD}") == "v")
        #expect(received([]).isEmpty)
        #expect(received([]).fields.isEmpty)
    }

    @Test("a value read as URL text keeps bytes beyond ASCII as percent escapes, folded lines joined")
    func urlText() {
        var headers = ReceivedHeaders()
        let line: [UInt8] = Array("Location: /fin".utf8) + [0xFF] + Array("al path\r\n".utf8)
        line.withUnsafeBytes { headers.append($0, as: ResponseHeaderLine($0)) }
        Array(" /caf\u{E9}\r\n".utf8).withUnsafeBytes { headers.append($0, as: ResponseHeaderLine($0)) }
        #expect(headers.lastAsURLText("location") == "/fin%FFal%20path%20/caf%C3%A9")
        var escaped = ReceivedHeaders()
        Array("Location: /a%20b c%zz%4\"<{|}>^`\\%".utf8).withUnsafeBytes { escaped.append($0, as: ResponseHeaderLine($0)) }
        #expect(escaped.lastAsURLText("Location") == "/a%20b%20c%25zz%254%22%3C%7B%7C%7D%3E%5E%60%5C%25")
        #expect(headers.last("Location") == "/fin\u{FFFD}al path /caf\u{E9}")
        #expect(headers.lastAsURLText("X-Missing") == nil)
        let cases: [(String, String)] = [
            ("/docs/[draft] notes?a[]=1#top#more", "/docs/%5Bdraft%5D%20notes?a%5B%5D=1#top%23more"),
            ("http://b\u{FC}cher.test/\u{E4}?q=\u{FC}", "http://b\u{FC}cher.test/%C3%A4?q=%C3%BC"),
            ("//[::1]:8080/x y", "//[::1]:8080/x%20y"),
            ("https://user@host.test", "https://user@host.test"),
        ]
        for (location, expected) in cases {
            var one = ReceivedHeaders()
            Array("Location: \(location)\r\n".utf8).withUnsafeBytes { one.append($0, as: ResponseHeaderLine($0)) }
            #expect(one.lastAsURLText("Location") == expected, "\(location)")
        }
    }

    @Test("fields are handed over as bytes only when they are the strings' bytes: not with a folded line, a line that reads back as one, or bytes beyond ASCII")
    func plainFields() {
        func plain(_ headers: ReceivedHeaders) -> [String]? {
            var seen: [String] = []
            let handed = headers.forEachPlainField { name, value in
                seen.append(String(decoding: name, as: UTF8.self) + "=" + String(decoding: value, as: UTF8.self))
            }
            return handed ? seen : nil
        }
        #expect(plain(received(["Server: nginx\r\n", "X-Empty:\r\n", "Content-Length:  81 \r\n"])) == ["Server=nginx", "X-Empty=", "Content-Length=81"])
        #expect(plain(received([])) == [])
        #expect(plain(received(["X-A: one\r\n", " two\r\n"])) == nil)
        #expect(plain(received(["X-Caf\u{E9}: v\r\n"])) == nil)
        // A line that started with an LF: kept with a space in its place, it reads back as folded
        // (found by review).
        var odd = ReceivedHeaders()
        Array("X-A: one\r\n".utf8).withUnsafeBytes { odd.append($0, as: ResponseHeaderLine($0)) }
        Array("\nX-B: two\r\n".utf8).withUnsafeBytes { odd.append($0, as: ResponseHeaderLine($0)) }
        #expect(plain(odd) == nil)
        #expect(odd.fields == [HeaderField(name: "X-A", value: "one X-B: two")])
    }
}
