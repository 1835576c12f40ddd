@testable import CurlewTUI
import Testing

@Suite("A paste's line ends")
struct PastedLineEndsTests {
    @Test("CRLF text a terminal passes on as two carriage returns each has one line end each; text with LF line ends keeps its blank lines (found by a new user's trial: a Windows curl command's continuations broke)")
    func lineEnds() {
        // CRLF copied, each line end turned into CR CR by the terminal.
        #expect(PastedLineEnds.normalized("curl -H 'X-A: 1' \\\r\r  'http://h/' \\\r\r  -H 'X: y'\r\r") == "curl -H 'X-A: 1' \\\n  'http://h/' \\\n  -H 'X: y'\n")
        // Its blank line is two pairs.
        #expect(PastedLineEnds.normalized("a\r\r\r\rb") == "a\n\nb")
        // LF copied: each line end one carriage return, a blank line two.
        #expect(PastedLineEnds.normalized("a\rb\r\rc") == "a\nb\n\nc")
        // CRLF passed on as it is, and LF alone.
        #expect(PastedLineEnds.normalized("a\r\nb\r\n") == "a\nb\n")
        #expect(PastedLineEnds.normalized("a\nb") == "a\nb")
    }

    @Test("a curl command copied from Windows and pasted through a terminal becomes the request")
    func windowsCurlPaste() throws {
        let text = PastedLineEnds.normalized("curl -H 'X-A: 1' \\\r\r  'http://h/?q=1' \\\r\r  -H 'X: y'\r\r")
        let draft = try ComposeState.draft(fromCurl: text)
        #expect(draft.url == "http://h/?q=1" && draft.headers.map(\.name) == ["X-A", "X"], "\(draft)")
    }
}
