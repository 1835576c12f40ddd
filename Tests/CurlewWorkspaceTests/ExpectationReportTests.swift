import CurlewAgent
import CurlewTestSupport
import CurlewWorkspace
import Foundation
import Testing

@Suite("Expectations checked against a debug message")
struct ExpectationReportTests {
    @Test("a `matches:` pattern that backtracks without end on a server's body fails with why, after its time limit, instead of hanging the run")
    func runawayPatternFails() throws {
        let message = Fixtures.message(responseBody: #"{"name":""# + String(repeating: "a", count: 40) + #"!"}"#)
        let started = ContinuousClock.now
        let report = ExpectationReport([.json(try JSONPath("$.name"), .matches("(a+)+b"))], against: message)
        // A bound that catches a hang (backtracking this pattern takes far longer), not one that
        // measures a loaded machine.
        #expect(ContinuousClock.now - started < .seconds(20))
        #expect(report.failures.first?.actual.contains("gave up after 250 ms") == true, "\(report.failures)")
    }

    @Test("assertions on status, headers, JSON and duration are checked as curlew run checks them")
    func checks() throws {
        let message = Fixtures.message(responseBody: #"{"id":7}"#, elapsedMicros: 3_000)
        let held = ExpectationReport([.status([200..<201]), .header("Content-Type", .matches("json")), .json(try JSONPath("$.id"), .equals(.int(7))),
                                      .maxDuration(.milliseconds(5))], against: message)
        #expect(held.failures.isEmpty && held.checked == 4 && !held.unanswered)
        #expect(held.summary == "expect: 4 passed")
        let failed = ExpectationReport([.status([201..<202]), .maxDuration(.milliseconds(1))], against: message)
        #expect(failed.failures.map(\.assertion) == ["status", "duration"])
        #expect(failed.summary == "expect: 2 of 2 failed: status: expected 201, got 200 (+1 more)")
        // A duration over its limit by less than the limit's last digit reads apart from it
        // (found by a new user's trial: "expected at most 1ms, got 1ms").
        // A shape is failed where the body departs from it (found by a new user's trial: "expected
        // an object, got $.args.a: missing, …" of a body that is an object).
        let shaped = ExpectationReport([.shape(.object(["id": .integer, "args": .object(["a": .integer])]))],
                                       against: Fixtures.message(responseBody: #"{"id":7,"args":{"b":1}}"#))
        #expect(shaped.failures.map(\.description) == ["shape: expected an integer at $.args.a, got no such member"])
        let typed = ExpectationReport([.shape(.object(["id": .integer]))], against: Fixtures.message(responseBody: #"{"id":"7"}"#))
        #expect(typed.failures.map(\.description) == ["shape: expected an integer at $.id, got a string"])
        // A body that is JSON too deep to read is said so, not "not JSON" (found by a new user's trial).
        let deep = ExpectationReport([.json(try JSONPath("$.a"), .exists(true))],
                                     against: Fixtures.message(responseBody: String(repeating: "[", count: 1000) + String(repeating: "]", count: 1000)))
        #expect(deep.failures.first?.actual.hasPrefix("JSON nesting deeper than") == true, "\(deep.failures)")
        let broken = ExpectationReport([.shape(.object([:]))], against: Fixtures.message(responseBody: "{\"a\":"))
        #expect(broken.failures.first?.actual.hasPrefix("a body that is not JSON (invalid JSON at byte") == true, "\(broken.failures)")
        let close = ExpectationReport([.maxDuration(.milliseconds(1))], against: Fixtures.message(elapsedMicros: 1_400))
        #expect(close.failures.first?.expected == "at most 1.0ms" && close.failures.first?.actual == "1.4ms", "\(close.failures)")
        let seconds = ExpectationReport([.maxDuration(.milliseconds(1236))], against: Fixtures.message(elapsedMicros: 1_236_200))
        #expect(seconds.failures.first?.expected == "at most 1.2360s" && seconds.failures.first?.actual == "1.2362s", "\(seconds.failures)")
        let micro = ExpectationReport([.maxDuration(.seconds(2))], against: Fixtures.message(elapsedMicros: 2_000_054))
        #expect(micro.failures.first?.expected == "at most 2.000000s" && micro.failures.first?.actual == "2.000004s", "\(micro.failures)")
    }

    @Test("a report describes one exchange with one set of assertions: ids start again in every session")
    func describesOneExchange() {
        let message = Fixtures.message(id: 3, startedAt: Date(timeIntervalSince1970: 100))
        let report = ExpectationReport([.status([200..<201])], against: message)
        #expect(report.describes(message, checking: [.status([200..<201])]))
        #expect(!report.describes(Fixtures.message(id: 3, startedAt: Date(timeIntervalSince1970: 200)), checking: [.status([200..<201])]))
        #expect(!report.describes(message, checking: [.status([201..<202])]), "edited assertions are checked again")
    }

    @Test("a body the debug message kept only in part says so; no answer means nothing was checked, and that fails the assertions as one")
    func cutBodyAndNoAnswer() {
        var message = Fixtures.message(responseBody: #"{"id":7,"pad":"xxxxxxxx"}"#)
        message.response?.body = BodySnapshot(data: Data(#"{"id":7,"pad":"xxxxxxxx"}"#.utf8), contentType: "application/json", limit: 10)
        let report = ExpectationReport([.bodyContains("pad"), .status([200..<201])], against: message)
        #expect(report.failures.count == 1)
        #expect(report.failures.first?.actual.contains("kept only up to the debug limit, the first part of 25 bytes") == true, "\(report.failures)")
        let unanswered = ExpectationReport([.status([200..<201])], against: Fixtures.message(status: nil, error: RequestError(.totalTimeout, "timed out")))
        #expect(unanswered.unanswered)
        #expect(unanswered.failures.map(\.description) == ["answer: expected a response for 1 assertion, got none (totalTimeout)"])
        #expect(unanswered.summary == "expect: failed, no answer (totalTimeout)")
        let cancelled = ExpectationReport([.status([200..<201])], against: Fixtures.message(status: nil, error: RequestError(.cancelled, "cancelled")))
        #expect(cancelled.unanswered && cancelled.failures.isEmpty, "stopped, not answered wrong")
        #expect(cancelled.summary == "expect: not checked, cancelled")
    }
}

@Suite("Templates in expect: assertions")
struct ExpectationTemplateTests {
    static func session(_ requests: String, variables: String = #"who: ada, id: "42", dotted: "a.c", kind: json"#) throws -> WorkspaceSession {
        let text = """
        variables: {\(variables)}
        requests:
        \(requests)
        """
        return try WorkspaceSession(try Workspace.parse(text, path: "/tmp/curlew-expect-templates/curlew.yaml"), processEnvironment: { _ in nil })
    }

    @Test("bodyContains, a header's and a JSON member's value are filled in with the workspace's variables before they are compared")
    func filledFromVariables() throws {
        let session = try Self.session("""
          held: {url: /u, expect: {bodyContains: "{{who}}", headers: {Content-Type: {matches: "^application/{{kind}}$"}}, json: {$.name: "{{who}}", $.tags: ["{{who}}-x"]}}}
          missed: {url: /u, expect: {bodyContains: "{{who}}-not", json: {$.name: "x{{who}}"}}}
        """)
        let message = Fixtures.message(responseBody: #"{"name":"ada","tags":["ada-x"]}"#)
        let held = ExpectationReport(session.expectations(of: "held"), against: message)
        #expect(held.failures.isEmpty, "\(held.failures)")
        #expect(held.checked == 4)
        let missed = ExpectationReport(session.expectations(of: "missed"), against: message)
        #expect(missed.failures.map(\.description) == [#"json $.name: expected "xada", got "ada""#,
                                                        #"body contains: expected "ada-not", got 31 bytes without it"#])
    }

    @Test("a JSON value that is one template alone equals the answer's number as its text; one with more around it stays text")
    func wholeTemplateReadsAsItsValue() throws {
        let session = try Self.session("""
          number: {url: /u, expect: {json: {$.id: "{{id}}", $.text: "{{id}}", $.more: "{{id}}"}}}
        """)
        let message = Fixtures.message(responseBody: #"{"id":42,"text":"42","more":42}"#)
        #expect(ExpectationReport(session.expectations(of: "number"), against: message).failures.isEmpty)
        let typed = try Self.session("""
          typed: {url: /u, expect: {json: {$.id: "#{{id}}"}}}
        """)
        let failures = ExpectationReport(typed.expectations(of: "typed"), against: Fixtures.message(responseBody: #"{"id":42}"#)).failures
        #expect(failures.map(\.description) == [##"json $.id: expected "#42", got 42"##])
    }

    @Test("a regular expression takes a filled value as literal text: a . in the value matches only a .")
    func regexValueIsLiteral() throws {
        let session = try Self.session("""
          dotted: {url: /u, expect: {json: {$.name: {matches: "^{{dotted}}$"}}}}
        """)
        let literal = ExpectationReport(session.expectations(of: "dotted"), against: Fixtures.message(responseBody: #"{"name":"a.c"}"#))
        #expect(literal.failures.isEmpty, "\(literal.failures)")
        let other = ExpectationReport(session.expectations(of: "dotted"), against: Fixtures.message(responseBody: #"{"name":"abc"}"#))
        #expect(other.failures.count == 1)
    }

    @Test("a chain's captured values fill the assertions of the steps after it; a template with no value fails its assertion unchecked, saying why")
    func capturedAndUnfilled() throws {
        let session = try Self.session("""
          step: {url: /u, expect: {json: {$.token: "{{token}}"}, status: 200}}
        """)
        let message = Fixtures.message(responseBody: #"{"token":"t-1"}"#)
        let captured = ExpectationReport(session.expectations(of: "step", captured: [("token", "t-1")]), against: message)
        #expect(captured.failures.isEmpty, "\(captured.failures)")
        let unfilled = ExpectationReport(session.expectations(of: "step"), against: message)
        #expect(unfilled.checked == 2)
        #expect(unfilled.failures.map(\.description) == ["json $.token: expected its templates filled in, got not checked: variable {{token}} is not defined"])
        #expect(unfilled.summary.hasPrefix("expect: 1 of 2 failed"), "\(unfilled.summary)")
    }
}

@Suite("Templates in expect: assertions, review fixes")
struct ExpectationTemplateReviewTests {
    @Test("a failed assertion never shows a secret it was filled with, escaped for a pattern or cut: what it expected shows the secret as {{name}}, what it got is hidden before it is cut (found by review)")
    func secretsStayHidden() throws {
        let files = try WorkspaceFiles()
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZGEifQ.SflKxwRJSMeKKF2QT4fwpM"
        let long = String(repeating: "Zq7", count: 70)
        try files.write("curlew.secrets.yaml", "variables: {jwt: \"\(jwt)\", long: \"\(long)\"}\n", mode: 0o600)
        let path = try files.write("curlew.yaml", """
            secrets: [jwt, long]
            requests:
              checked:
                url: /u
                expect:
                  headers: {X-Echo: {matches: "^Bearer {{jwt}}$"}}
                  bodyContains: "{{long}}-not"
                  json: {$.t: "x{{jwt}}", $.long: "{{long}}x"}
            """)
        let session = try WorkspaceSession(try Workspace.load(path: path))
        let body = #"{"t":"\#(jwt)","long":"\#(long)"}"#
        let report = ExpectationReport(session.expectations(of: "checked"), against: Fixtures.message(responseBody: body),
                                       hiding: session.redactionPolicy.redactText)
        #expect(report.failures.count == 4, "\(report.failures)")
        for failure in report.failures {
            #expect(!failure.description.contains(jwt.prefix(16)) && !failure.description.contains(long.prefix(16)), "\(failure)")
        }
        #expect(report.failures.map(\.expected).contains("a match for /^Bearer {{jwt}}$/"), "\(report.failures)")
        #expect(report.failures.map(\.expected).contains(#""{{long}}-not""#), "\(report.failures)")
    }

    @Test("a header's value stays text, and a JSON value is read as a number only as JSON writes it: 1.0 and 007 equal themselves (found by review)")
    func canonicalScalarsOnly() throws {
        let session = try ExpectationTemplateTests.session("""
          versions: {url: /u, expect: {headers: {X-Version: "{{v}}"}, json: {$.v: "{{v}}", $.z: "{{z}}", $.n: "{{n}}"}}}
        """, variables: #"v: "1.0", z: "007", n: "42""#)
        let message = Fixtures.message(responseBody: #"{"v":"1.0","z":"007","n":42}"#)
        var headered = message
        headered.response?.headers.append(HeaderField(name: "X-Version", value: "1.0"))
        let report = ExpectationReport(session.expectations(of: "versions"), against: headered)
        #expect(report.failures.isEmpty, "\(report.failures)")
    }

    @Test("a filled value is literal inside a character class too: a-c is three characters, not a range (found by review)")
    func characterClass() throws {
        let session = try ExpectationTemplateTests.session("""
          chars: {url: /u, expect: {json: {$.s: {matches: "^[{{range}}]+$"}}}}
        """, variables: #"range: "a-c""#)
        let literal = ExpectationReport(session.expectations(of: "chars"), against: Fixtures.message(responseBody: #"{"s":"a-c"}"#))
        #expect(literal.failures.isEmpty, "\(literal.failures)")
        let ranged = ExpectationReport(session.expectations(of: "chars"), against: Fixtures.message(responseBody: #"{"s":"b"}"#))
        #expect(ranged.failures.count == 1)
    }

    @Test("a {{ never closed or an unknown built-in in an assertion is refused when the workspace is read")
    func brokenTemplatesRefusedAtLoad() throws {
        for expect in [#"bodyContains: "{{open""#, #"json: {$.a: "{{$nope}}"}"#, #"headers: {A: {equals: "x{{"}}"#] {
            #expect(throws: WorkspaceError.self) { try Workspace.parse("requests:\n  a: {url: /a, expect: {\(expect)}}\n", path: "/tmp/curlew-x/curlew.yaml") }
        }
    }
}
