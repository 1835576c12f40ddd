import CurlewAgent
@testable import CurlewSessions
import CurlewTestSupport
import Foundation
import Testing

/// A debug message with just the fields filters look at.
func sampleMessage(method: String = "GET", url: String = "http://api.example.test/users/7", status: Int? = 200,
                   requestHeaders: [HeaderField] = [], responseBody: String = "{}", contentType: String = "application/json",
                   error: RequestError? = nil, elapsedMicros: Int64 = 1_000) -> DebugMessage {
    Fixtures.message(method: method, url: url, status: status, requestHeaders: requestHeaders, responseBody: responseBody,
                     contentType: contentType, error: error, elapsedMicros: elapsedMicros)
}

@Suite("Filter expressions")
struct MessageFilterTests {
    private func matches(_ expression: String, _ message: DebugMessage) throws -> Bool {
        try MessageFilter.parse(expression).matches(message)
    }

    @Test("a pattern that backtracks without end gives up after its time limit, says so, and matches nothing more; others go on (found by a new user's trial: `~u \"(a+)+b\"` froze the interface)")
    func runawayPatternGivesUp() throws {
        let hostile = sampleMessage(url: "http://h/?x=" + String(repeating: "a", count: 40) + "!", responseBody: String(repeating: "a", count: 40) + "!")
        // A negated term that gave up decides nothing either: it does not match everything (review).
        for expression in ["~u \"(a+)+b\"", "~b \"(a+)+b\"", "~m GET & !~h \"(a+)+b\" & ~u \"(a+)+b\"", "!~b \"(a+)+b\""] {
            let filter = try MessageFilter.parse(expression)
            let started = ContinuousClock.now
            #expect(!filter.matches(hostile))
            #expect(!filter.matches(hostile), "once given up, at once")
            #expect(ContinuousClock.now - started < .seconds(20), "\(expression)")  // unbounded backtracking takes hours
            #expect(filter.gaveUpMessage?.contains("gave up after 250 ms") == true, "\(expression)")
        }
        let fine = try MessageFilter.parse("~u \"a+!$\"")
        #expect(fine.matches(hostile) && fine.gaveUpMessage == nil)
    }

    @Test("each filter matches what it names")
    func singleFilters() throws {
        let post = sampleMessage(method: "POST", url: "http://api.example.test/login", status: 404,
                                 requestHeaders: [HeaderField(name: "X-Trace", value: "abc123")], responseBody: "{\"error\":\"no such user\"}",
                                 elapsedMicros: 750_000)
        #expect(try matches("~m POST", post))
        #expect(try matches("~m post", post))
        #expect(try !matches("~m GET", post))
        #expect(try matches("~u /log.n$", post))
        #expect(try matches("~c 404", post))
        #expect(try matches("~c 4xx", post))
        #expect(try !matches("~c 5xx", post))
        #expect(try matches("~h \"x-trace: abc\"", post))
        #expect(try matches("~b \"no such\"", post))
        #expect(try matches("~d example.test", post))
        #expect(try !matches("~e", post))
        #expect(try matches("~dur >500ms", post))
        #expect(try !matches("~dur >1s", post))
        #expect(try matches("~dur <=750ms", post))
        #expect(try matches("~size <1KB", post))
        #expect(try matches("login", post), "a bare word matches URLs containing it")
        let failed = sampleMessage(status: nil, error: RequestError(.couldNotConnect, "refused"))
        #expect(try matches("~e", failed))
        #expect(try !matches("~c 2xx", failed))
        let big = sampleMessage(responseBody: String(repeating: "x", count: 2 << 20), contentType: "text/plain")
        #expect(try matches("~size >1MB", big))
    }

    @Test("!, &, | and parentheses combine, with ! binding tightest and & before |")
    func combinations() throws {
        let get500 = sampleMessage(status: 500)
        let post200 = sampleMessage(method: "POST", status: 200)
        let get200 = sampleMessage(status: 200)
        for message in [get500, post200] { #expect(try matches("~c 5xx | ~m POST", message)) }
        #expect(try !matches("~c 5xx | ~m POST", get200))
        #expect(try matches("!~m POST & ~c 200", get200))
        #expect(try !matches("!(~m GET | ~c 500)", get500))
        #expect(try matches("~m GET ~c 500", get500), "adjacent terms are joined with &")
        #expect(try !matches("~m GET ~c 500", get200))
        #expect(try matches("~m POST | ~m GET & ~c 500", get500))
        #expect(try !matches("(~m POST | ~m GET) & ~c 500", get200))
        // Any white space separates terms, as a space does (found by a new user's trial: a filter
        // pasted over two lines matched nothing).
        for separated in ["~m GET\n~c 500", "~m GET\r\n~c 500", "~m\u{A0}GET\u{0B}~c\t500", "(~m GET\n)\n~c 5xx"] {
            #expect(try matches(separated, get500), "\(separated.debugDescription)")
            #expect(try !matches(separated, get200), "\(separated.debugDescription)")
        }
    }

    @Test("a quoted regex keeps its backslashes; only the quote itself is escaped (found by a new user's trial: `~u \"\\d\"` matched a literal d)")
    func quotedRegexBackslashes() throws {
        let digits = sampleMessage(url: "http://api.example.test/users/7")
        let letters = sampleMessage(url: "http://api.example.test/users/dave")
        #expect(try matches(#"~u "\d""#, digits))
        #expect(try !matches(#"~u "\d""#, letters))
        #expect(try matches(#"~u "v\d|users/7""#, digits))
        #expect(try !matches(#"~u 'users/\d|nobody'"#, letters))
        #expect(try matches(#"~u "example\.test""#, digits))
        #expect(try !matches(#"~u "example\.test""#, sampleMessage(url: "http://api.exampleXtest/")))
        let quoted = sampleMessage(url: #"http://api.example.test/say?x="hi""#)
        #expect(try matches(#"~u "x=\"hi\"""#, quoted))
        #expect(try matches(#"~u 'x="hi"'"#, quoted))
        // An escaped backslash at the end stays a regex escape and the quote after it ends the term.
        let backslash = sampleMessage(url: #"http://api.example.test/a\"#)
        #expect(try matches(#"~u "a\\""#, backslash))
        #expect(try !matches(#"~u "a\\""#, digits))
    }

    @Test("syntax errors point at the position", arguments: [
        ("~x foo", 0, "unknown filter"),
        ("~m", 2, "needs an argument"),
        ("~c 4yy", 3, "status must be"),
        ("(~m GET", 0, "unclosed ("),
        ("~m GET)", 6, "unmatched )"),
        ("~u \"(unclosed\"", 3, "invalid regular expression"),
        ("~dur >5min", 5, "unknown duration unit"),
        ("~size >big", 7, "expected a number"),
        ("~m GET | ", 9, "expected a filter"),
        ("& ~m GET", 0, "expected a filter before &"),
        ("", 0, "empty filter"),
        ("~b \"open", 3, "unclosed quote"),
    ])
    func errors(_ expression: String, _ position: Int, _ fragment: String) {
        do {
            _ = try MessageFilter.parse(expression)
            Issue.record("expected a syntax error for \(expression.debugDescription)")
        } catch {
            #expect(error.position == position, "\(expression.debugDescription): \(error)")
            #expect(error.message.contains(fragment), "\(error.message)")
            #expect(error.pointer(in: expression).hasSuffix("^ " + error.message))
        }
    }

    @Test("a pasted filter nested or chained without end is a syntax error, not a stack overflow (found by a new user's trial)")
    func deepFilters() throws {
        for expression in [String(repeating: "!", count: 20_000) + "~m GET", String(repeating: "(", count: 50_000) + "~m GET",
                           Array(repeating: "~m GET", count: 100_000).joined(separator: " & ")] {
            #expect(throws: FilterSyntaxError.self) { try MessageFilter.parse(expression) }
        }
        // Within the bounds, deep and long filters still work.
        let nested = String(repeating: "!", count: 100) + "~m GET"
        #expect(try matches(nested, Fixtures.message()) == true)
        #expect(try matches(Array(repeating: "~m GET", count: 500).joined(separator: " & "), Fixtures.message()))
    }

    @Test("~d finds the host of URLs whose password a log masked, and of IPv6 URLs", arguments: [
        ("http://ada:[REDACTED]@api.example.test:8080/x", "api.example.test"),
        ("https://[::1]:8443/", "::1"),
        ("http://h.test", "h.test"),
    ])
    func hostOfMaskedURLs(_ url: String, _ host: String) {
        #expect(MessageFilter.host(of: url) == host)
    }
}
