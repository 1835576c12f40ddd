import CurlewAgent
@testable import CurlewWorkspace
import Foundation
import Testing

@Suite("workspace files")
struct WorkspaceReadingTests {
    static let example = """
    # comment kept
    config:
      baseURL: "{{base}}"
      headers: {Accept: application/json}
      timeout: 2s
      connectTimeout: 500ms
      maxConnectionsPerHost: 3
      transferThreads: 2
      followRedirects: false
      acceptableStatus: 200-399
      httpVersion: http1.1
      tls: {insecure: true, pins: ["sha256//AAAA"]}
      cookies: {jar: jar.txt}
      cache: {storage: memory, policy: cacheElseNetwork, ttl: 1m}
      mocks: {rules: [{match: "GET /mocked", status: 201, json: {ok: true}}]}
      retry: {maxRetries: 2, backoff: fixed, delay: 10ms, statuses: [503]}
      duplicates: coalesce
      reachability: {precheck: true}
      logger: {directory: logs, maxBodyBytes: 1KiB}
    defaultEnvironment: dev
    environments:
      dev: {base: "http://127.0.0.1:1"}
      prod: {base: "https://example.com"}
    variables: {user: demo}
    secrets: [token]
    requests:
      one:
        folder: a/b
        url: /get
        query: {q: "{{user}}", n: 2}
        headers: {X-User: "{{user}}"}
        expect:
          status: [200, 3xx]
          headers: {Content-Type: {matches: json}}
          json: {$.args.q: demo, $.missing: {exists: false}}
          bodyContains: demo
          maxDuration: 1s
          shape: {args: {q: string, n: "string?"}}
      two:
        method: put
        url: https://other.example/x
        body: "hello {{user}}"
        contentType: text/plain
        timeout: 3s
    groups:
      flow:
        chain:
          - request: one
            capture: {q: $.args.q, kind: header Content-Type, code: status}
          - two
      both:
        batch: [one, {group: flow}]
        policy: {required: [0]}
        maxConcurrency: 2
    """

    @Test("every section reads into the agent's types; the environment fills templates")
    func readsEverySection() throws {
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", Self.example)
        try files.write("curlew.secrets.yaml", "variables: {token: t0ps3cret}\n", mode: 0o600)
        let workspace = try Workspace.load(path: path)
        #expect(workspace.environmentNames == ["dev", "prod"])
        #expect(workspace.requests.map(\.name) == ["one", "two"])
        #expect(workspace.requests[0].folder == "a/b")
        #expect(workspace.requests[0].expectations.count == 7)
        #expect(workspace.groups.map(\.name) == ["flow", "both"])

        let session = try WorkspaceSession(workspace, environment: "prod")
        #expect(session.config.baseURL == "https://example.com")
        #expect(session.config.requestTimeout == .seconds(2))
        #expect(session.config.connectTimeout == .milliseconds(500))
        #expect(session.config.maxConnectionsPerHost == 3)
        #expect(session.config.transferThreads == 2)
        #expect(!session.config.followRedirects)
        #expect(session.config.acceptableStatusCodes == 200..<400)
        #expect(session.config.httpVersion == .http1_1)
        #expect(session.config.tls.allowInvalidCertificates)
        #expect(session.config.tls.pinning == .publicKey(["sha256//AAAA"]))
        #expect(session.config.cookies.enabled && session.config.cookies.jarFile == files.directory + "/jar.txt")
        #expect(session.config.cache.storage == .memory && session.config.cache.policy == .cacheElseNetwork)
        #expect(session.config.mocks.enabled && session.config.mocks.rules.count == 1)
        #expect(session.config.retry?.maxRetries == 2 && session.config.retry?.backoff == .fixed(.milliseconds(10)))
        #expect(session.config.duplicates.policy == .coalesce)
        #expect(session.config.reachability.precheck)
        #expect(session.logger.directory == files.directory + "/logs" && session.logger.maxBodyBytes == 1024)
        #expect(session.secretValues == ["t0ps3cret"])

        let (one, expectations) = try session.request(named: "one")
        #expect(one.path == "/get")
        // A query's values are text as written.
        #expect(one.params == ["q": "demo", "n": "2"])
        #expect(one.headers["X-User"] == "demo")
        #expect(one.acceptableStatusCodes == 100..<600)
        #expect(expectations.first == .status([200..<201, 300..<400]))
        let (two, _) = try session.request(named: "two")
        #expect(two.method == .put)
        #expect(two.customURL == "https://other.example/x")
        #expect(two.requestSerializer == .raw(Data("hello demo".utf8), contentType: "text/plain"))
        #expect(two.timeout == .seconds(3))
        let group = try session.group(named: "both")
        #expect(group.kind == .batch && group.members.count == 2)
        #expect(session.requestNames(in: "both") == ["one", "one", "two"])
    }

    @Test("a query's and a form's values go out as written: 1.10, 007, .5, +1 and 1E3 are text, not numbers made canonical (found by a new user's trial: 1.10 was sent as 1.1); a JSON body keeps numbers typed")
    func parameterTextAsWritten() throws {
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", """
        requests:
          q: {url: /q, query: {v: 1.10, w: 007, y: .5, z: +1, e: 1E3, t: True}}
          f: {method: POST, url: /f, form: {v: 1.10}}
          j: {method: POST, url: /j, json: {v: 1.10, n: 42, big: 9223372036854775807}}
        """)
        let session = try WorkspaceSession(try Workspace.load(path: path))
        let query = try session.request(named: "q").0
        #expect(query.params == ["v": "1.10", "w": "007", "y": ".5", "z": "+1", "e": "1E3", "t": "True"], "\(query.path) \(query.params)")
        #expect(try session.request(named: "f").0.params == ["v": "1.10"])
        // Outside a body a number past 64 bits is still read, as its text (a default parameter,
        // an assertion's expected value), as before.
        let elsewhere = try files.write("other.yaml", """
        config: {params: {id: 12345678901234567890123}}
        requests:
          e: {url: /e, expect: {json: {$.id: 12345678901234567890123}}}
        """)
        let otherSession = try WorkspaceSession(try Workspace.load(path: elsewhere))
        #expect(otherSession.config.defaultParams == ["id": "12345678901234567890123"])
        #expect(otherSession.workspace.request(named: "e")?.expectations.count == 1)
        guard case .raw(let body, _) = try session.request(named: "j").0.requestSerializer else { Issue.record("not a raw body"); return }
        #expect(String(decoding: body, as: UTF8.self) == #"{"v":1.1,"n":42,"big":9223372036854775807}"#)
    }

    @Test("errors name the file, line and column, the key, and what was expected", arguments: [
        ("requests:\n  a:\n    url: /x\n    expcet: {status: 200}\n", "4:5", "unknown key \"expcet\" (did you mean \"expect\"?)"),
        // A required key mistyped was said to be missing (found by a new user's trial).
        ("requests:\n  a:\n    method: GET\n    urll: /get\n", "4:5", "unknown key \"urll\" (did you mean \"url\"?): url is missing"),
        ("config:\n  timeout: soon\n", "2:12", "config.timeout: expected a duration such as 500ms, 2s or 1m, found \"soon\""),
        // Digits with at most one point, as the command line's seconds (found by a new user's trial).
        ("config:\n  timeout: 0x2s\n", "2:12", "config.timeout: expected a duration such as 500ms, 2s or 1m, found \"0x2s\""),
        ("config:\n  timeout: 2e0s\n", "2:12", "expected a duration such as 500ms, 2s or 1m"),
        // A credential on the wrong line is quoted as a log shows it (found by a new user's trial).
        ("config:\n  timeout: \"Bearer abcdef123456\"\n", "2:12", "expected a duration such as 500ms, 2s or 1m, found \"Bearer [REDACTED]\""),
        ("config:\n  timeout: \"Authorization: Bearer abcdef123456\"\n", "2:12", "found \"Authorization: [REDACTED]\""),
        ("config:\n  timeout: \" Bearer\\tabcdef123456\"\n", "2:12", "found \"Bearer [REDACTED]\""),
        ("config:\n  timeout: 0.0001s\n", "2:12", "0.0001s is shorter than a millisecond"),
        ("config:\n  maxRedirects: 1000\n", "2:17", "1000 is out of range"),
        ("config:\n  transferThreads: 99999999999999999999\n", "2:20", "99999999999999999999 is out of range: expected 1 to 16"),
        ("config:\n  transferThreads: -99999999999999999999\n", "2:20", "-99999999999999999999 is out of range"),
        ("config:\n  transferThreads: 2x\n", "2:20", "expected a whole number"),
        ("requests:\n  a: {url: /x, json: {}, body: x}\n", "2:", "a request has one body"),
        ("requests:\n  a: {method: \"GE T\", url: /x}\n", "2:", "is not an HTTP method"),
        ("groups:\n  g: {batch: [nope]}\n", "2:15", "no request or group \"nope\""),
        // A required position past the members made the batch succeed whatever they did (found by a new user's trial).
        ("requests:\n  a: {url: /x}\ngroups:\n  g: {batch: [a], policy: {required: [5]}}\n", "4:",
         "the batch has no member 5: positions count from 0, so its 1 member is 0"),
        ("requests:\n  a: {url: /x}\ngroups:\n  g: {batch: [a, a], policy: {required: [2]}}\n", "4:", "its 2 members are 0 to 1"),
        ("requests:\n  a: {url: /x}\ngroups:\n  g: {batch: [a], policy: {required: []}}\n", "4:", "name at least one required member position"),
        ("groups:\n  g: {batch: [], policy: {required: [0]}}\n", "2:", "the batch has no members to require"),
        // A number a body cannot hold as written was sent as a string, or rounded (found by a new user's trial).
        ("requests:\n  a: {url: /x, json: {n: 12345678901234567890123}}\n", "2:", "12345678901234567890123 is a whole number past 64 bits"),
        ("requests:\n  a: {url: /x, json: {m: 1e400}}\n", "2:", "1e400 is past the largest number a body holds"),
        ("groups:\n  g: {batch: [{group: g}]}\n", "2:", "groups contain each other: g -> g"),
        ("requests:\n  a: {url: /x, expect: {json: {\"nope\": 1}}}\n", "2:", "must start with $"),
        ("requests:\n  a: {url: /x, expect: {headers: {A: {matches: \"(\"}}}}\n", "2:", "not a regular expression"),
        ("requests:\n  a: {url: \"{{x\"}\n", "2:", "a {{ without its closing }}"),
        ("a: [1, 2\n", "", "not valid YAML"),
        // The library's context before its problem, as it reads (found by a new user's trial: "but found another document expected a single…").
        ("requests: {}\n---\nrequests: {}\n", "2:1", "not valid YAML: expected a single document in the stream, but found another document"),
        ("a: 1\na: 2\n", "2:1", "appears twice"),
        // Where the key is given again, not where its mapping starts (found by a new user's trial).
        ("requests:\n  a: {url: /get}\n  # note\n\n  \"a\": {url: /post}\n", "5:3", "the key a appears twice"),
        // A flow mapping's: where the key is given again, on its line or another (found by a new user's trial).
        ("requests:\n  a: {url: /get}\n  b: {a: 1, a: 2}\n", "3:13", "the key a appears twice"),
        ("requests:\n  b: {\"a\": {x: 1, a: 2},\n      'a': 3}\n", "3:7", "the key a appears twice"),
        ("requests:\r\n  a: {url: /get}\r\n  a: {url: /post}\r\n", "3:3", "the key a appears twice"),
        ("requests: [1]\n", "1:11", "expected a mapping, found a list"),
        ("requests:\n  a: {url: /x, signer: nope}\n", "2:", "no signer is declared"),
        ("config:\n  signers: {demo: {keyID: k, secret: s}}\nrequests:\n  a: {url: /x, signer: dem}\n", "4:", "no signer \"dem\" in config.signers (did you mean \"demo\"?)"),
    ])
    func errorsArePrecise(text: String, position: String, message: String) throws {
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", text)
        let error = try #require(throws: WorkspaceError.self) { try Workspace.load(path: path) }
        #expect(error.description.contains(message), "\(error)")
        #expect(error.description.hasPrefix("\(path):\(position)"), "\(error)")
    }

    @Test("a file nested too deeply is refused in plain words, not the parser's C function (found by a new user's trial)")
    func nestedTooDeeply() throws {
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", "variables: " + String(repeating: "[", count: 2_000) + String(repeating: "]", count: 2_000) + "\n")
        let error = try #require(throws: WorkspaceError.self) { try Workspace.load(path: path) }
        #expect(error.description.contains("nested too deeply"), "\(error)")
        #expect(!error.description.contains("yaml_"), "\(error)")
    }

    @Test("a chain step built with its captured values puts them where a variable would go, but a file path (a mock's too), a method, a content type or TLS settings that name one are refused: a server's answer does not choose what is read, written or trusted; a path stays a path; outside a JSON body's strings only one JSON value stands (found by review)")
    func capturedValuesWhereTheyMayGo() throws {
        let files = try WorkspaceFiles()
        let refused = ["baseURL: \"{{token}}\"", "bodyFile: \"{{token}}\"", "download: \"out-{{token}}\"", "contentType: \"text/{{token}}\"",
                       "multipart: [{name: a, file: \"{{token}}\"}]", "tls: {caFile: \"{{token}}\"}",
                       "mock: {status: 200, bodyFile: \"{{token}}\"}"]
        for (index, field) in refused.enumerated() {
            let path = try files.write("refused\(index).yaml", """
            requests:
              log in: {method: POST, url: "http://127.0.0.1:9/login"}
              step: {url: "http://127.0.0.1:9/u", \(field)}
            groups:
              flow: {chain: [{request: log in, capture: {token: $.token}}, step]}
            """)
            let session = try WorkspaceSession(try Workspace.load(path: path))
            let error = #expect(throws: WorkspaceError.self, "\(field)") { _ = try session.group(named: "flow") }
            #expect(error?.description.contains("a value a chain captures from a server's answer") == true, "\(String(describing: error))")
            #expect(throws: RequestError.self, "\(field)") { _ = try session.request(named: "step", captured: ChainVariables([("token", "x")])) }
        }
        // A method that names a captured value is refused when the file is read.
        let verb = try files.write("verb.yaml", """
        requests:
          log in: {method: POST, url: "http://127.0.0.1:9/login"}
          verb: {method: "{{token}}", url: "http://127.0.0.1:9/v"}
        groups:
          flow: {chain: [{request: log in, capture: {token: $.token}}, verb]}
        """)
        #expect(throws: WorkspaceError.self) { _ = try Workspace.load(path: verb) }
        let path = try files.write("curlew.yaml", #"""
        config: {baseURL: "http://base.example"}
        requests:
          log in: {method: POST, url: "http://127.0.0.1:9/login"}
          raw: {method: POST, url: "http://127.0.0.1:9/r", body: '{"n": {{token}}, "s": "{{token}}"}', contentType: application/json}
          basic: {url: "http://127.0.0.1:9/b", form: {a: b}, query: {sid: "{{token}}"}, headers: {X-Basic: "{{$base64 u:{{token}}}}"}}
          next: {url: "{{token}}"}
          full: {url: "http://127.0.0.1:9/{{token}}"}
          paged: {url: "https://api.example{{token}}"}
          described: {url: /d, description: "sends {{token}}", expect: {bodyContains: "{{token}}"}}
        groups:
          flow: {chain: [{request: log in, capture: {token: $.token}}, raw, basic, next, full, paged, described]}
        """#)
        let session = try WorkspaceSession(try Workspace.load(path: path))
        // Outside a JSON body's strings a captured value stands only as one JSON value.
        let raw = try session.request(named: "raw", captured: ChainVariables([("token", "42")]))
        #expect(raw.requestSerializer == .raw(Data(#"{"n": 42, "s": "42"}"#.utf8), contentType: "application/json"))
        let smuggled = #expect(throws: RequestError.self) { _ = try session.request(named: "raw", captured: ChainVariables([("token", #"1, "admin": true"#)])) }
        #expect(smuggled?.kind == .invalidBody, "\(String(describing: smuggled))")
        // A query beside a form and a built-in take the value.
        let basic = try session.request(named: "basic", captured: ChainVariables([("token", "a b&c")]))
        #expect(basic.customURL?.hasSuffix("?sid=a%20b%26c") == true, "\(basic.customURL ?? "")")
        #expect(basic.headers["X-Basic"] == Data("u:a b&c".utf8).base64EncodedString())
        // A path stays a path joined to the base, whatever the value looks like; a full URL stays
        // one. A value that makes the path a full URL may keep the base's origin, never leave it
        // (found by a new user's trial: a captured http://elsewhere took the step and its token there).
        let next = try session.request(named: "next", captured: ChainVariables([("token", "//elsewhere.example/x")]))
        #expect(next.customURL == nil && next.path == "//elsewhere.example/x", "\(String(describing: next.customURL)) \(next.path)")
        #expect(try session.request(named: "next", captured: ChainVariables([("token", "HTTP://Base.example/page/2")])).path == "HTTP://Base.example/page/2")
        for elsewhere in ["http://elsewhere.example/x", "https://base.example/x", "http://base.example:8080/x", "HtTp://127.0.0.1:9/x",
                          "http://base.example@evil.example/x"] {
            let left = #expect(throws: RequestError.self, "\(elsewhere)") { _ = try session.request(named: "next", captured: ChainVariables([("token", elsewhere)])) }
            #expect(left?.kind == .invalidURL, "\(String(describing: left))")
        }
        #expect(try session.request(named: "full", captured: ChainVariables([("token", "x")])).customURL == "http://127.0.0.1:9/x")
        // A URL written in full keeps the origin it is written with (found by review).
        #expect(try session.request(named: "paged", captured: ChainVariables([("token", "/items?page=2")])).customURL == "https://api.example/items?page=2")
        for elsewhere in ["@evil.example/x", ".evil.example/x", ":8443/x"] {
            let left = #expect(throws: RequestError.self, "\(elsewhere)") { _ = try session.request(named: "paged", captured: ChainVariables([("token", elsewhere)])) }
            #expect(left?.kind == .invalidURL, "\(String(describing: left))")
        }
        // A name only a description or an assertion uses needs no value (found by review).
        #expect(try session.request(named: "described", captured: ChainVariables(), withholding: ["token"]).path == "/d")
        // A step run before the chain has the value fails rather than sending `{{token}}`, and says why.
        let missing = #expect(throws: RequestError.self) { _ = try session.request(named: "basic", captured: ChainVariables(), withholding: ["token"]) }
        #expect(missing?.kind == .unresolvedVariable)
        #expect(missing?.message.contains("{{token}} has no value: the step of the chain that captures it did not capture it") == true, "\(String(describing: missing))")
    }

    @Test("a capture's name is one a template can use: a built-in's $, a space, a brace or an empty name is refused with its line (found by a new user's trial: capture {$env.HOME: ...} was accepted, and {{$env.HOME}} then read the environment)")
    func captureNames() throws {
        let files = try WorkspaceFiles()
        for name in ["$env.HOME", "$uuid", "a b", "'{{x}}'", "''"] {
            let path = try files.write("names.yaml", """
            requests:
              log in: {url: "http://127.0.0.1:9/login"}
            groups:
              flow: {chain: [{request: log in, capture: {\(name): $.token}}]}
            """)
            let error = #expect(throws: WorkspaceError.self, "\(name)") { _ = try Workspace.load(path: path) }
            #expect(error?.description.contains("cannot name a captured value") == true, "\(String(describing: error))")
        }
        #expect((try? WorkspaceGroup.capture("session.id-2", from: "$.id").get()) != nil)
    }

    @Test("a secret passed down thousands of variables listed last to first reaches the header made from it, each value read once (found by review: one pass over all variables for each step)")
    func secretThroughLongChain() throws {
        let count = 5_000
        let files = try WorkspaceFiles()
        let variables = (1..<count).reversed().map { "v\($0): \"{{v\($0 - 1)}}\"" }.joined(separator: ", ")
        let path = try files.write("curlew.yaml", """
        variables: {\(variables), v0: "{{$env.CURLEW_TEST_DEEP}}", plain: "x"}
        config: {headers: {X-Deep: "{{v6}}", X-Plain: "{{plain}}"}}
        requests:
          one: {url: "http://127.0.0.1:9/"}
        """)
        let start = ContinuousClock.now
        let session = try WorkspaceSession(try Workspace.load(path: path), processEnvironment: { _ in "deep-secret-1" })
        #expect(session.headersCarryingSecrets == ["x-deep"])
        // About a third of a second here; a pass over all variables for each step took 24.
        #expect(ContinuousClock.now - start < .seconds(10))
    }

    @Test("a header whose template makes its value from a secret (a declared one, the environment, or a capture a log hides), through $base64 too, is hidden by name; one made from plain values is not (found by a new user's trial: a captured token base64-encoded into X-Basic was logged)")
    func headersCarryingSecrets() throws {
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", #"""
        variables: {user: ann, plain: x, auth: "{{$base64 {{apiKey}}}}", relayed: "demo:{{token}}", again: "{{auth}}"}
        environments: {dev: {signed: "{{$env.CURLEW_TEST_SIG}}"}}
        secrets: [apiKey]
        config: {headers: {X-Env: "{{$env.CURLEW_TEST_KEY}}", X-Trace: "{{plain}}"}}
        requests:
          log in: {url: "http://127.0.0.1:9/login"}
          use:
            url: "http://127.0.0.1:9/use"
            headers:
              X-Basic: "{{$base64 {{user}}:{{token}}}}"
              X-Key: "{{$base64 {{apiKey}}}}"
              X-User: "{{who}}"
              X-Plain: "{{user}}-{{plain}}"
              X-Auth: "{{again}}"
              X-Relay: "{{$base64 {{relayed}}}}"
              X-Sig: "{{$base64 {{signed}}}}"
        groups:
          flow: {chain: [{request: log in, capture: {token: $.token, who: $.user}}, use]}
        """#)
        try files.write("curlew.secrets.yaml", "variables: {apiKey: k-12345}\n", mode: 0o600)
        let session = try WorkspaceSession(try Workspace.load(path: path), processEnvironment: { _ in "env-secret-1" })
        // Through variables too, at any depth, an environment's included (found by a new user's trial).
        #expect(session.headersCarryingSecrets == ["x-basic", "x-key", "x-env", "x-auth", "x-relay", "x-sig"])
        let policy = session.redactionPolicy
        let message = DebugMessage(requestID: 1, name: "use", state: .succeeded, startedAt: Date(),
                                   original: ComposedRequest(method: "GET", url: "http://127.0.0.1:9/use",
                                                             headers: [HeaderField(name: "X-Basic", value: "YW5uOmRlbW8tMTIz"),
                                                                       HeaderField(name: "X-Plain", value: "ann-x")],
                                                             params: .null, body: nil, timeoutMilliseconds: 0),
                                   sent: nil, response: nil, error: nil, timings: nil, connection: nil, callbackQueue: "test")
        let shown = policy.redact(message).original?.headers
        #expect(shown?.first { $0.name == "X-Basic" }?.value == RedactionPolicy.marker)
        #expect(shown?.first { $0.name == "X-Plain" }?.value == "ann-x")
    }

    @Test("a body's own contentType wins over a config default Content-Type; a body without one takes the default, and keeps taking it once saved")
    func bodyTypeAgainstConfigDefault() throws {
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", """
        variables: {who: 'a "b"'}
        config: {headers: {Content-Type: application/vnd.test+json}}
        requests:
          own: {url: "http://127.0.0.1:9/a", method: POST, body: "<a/>", contentType: application/xml}
          guessed: {url: "http://127.0.0.1:9/b", method: POST, body: "hello"}
          members: {url: "http://127.0.0.1:9/c", method: POST, json: {a: 1}}
          header: {url: "http://127.0.0.1:9/d", method: POST, headers: {Content-Type: text/csv}, body: "a,b", contentType: application/xml}
          saved before: {url: "http://127.0.0.1:9/e", method: POST, body: "hi", contentType: "text/plain; charset=utf-8"}
          named json: {url: "http://127.0.0.1:9/f", method: POST, json: {a: 1}, contentType: application/json}
          plain text: {url: "http://127.0.0.1:9/g", method: POST, body: "hi {{who}}", contentType: text/plain}
        """)
        func sentType(_ name: String) throws -> String? {
            let session = try WorkspaceSession(try Workspace.load(path: path))
            return try session.config.composed(try session.request(named: name).0).headers.first { $0.name.lowercased() == "content-type" }?.value
        }
        #expect(try sentType("own") == "application/xml")
        #expect(try sentType("guessed") == "application/vnd.test+json")
        #expect(try sentType("members") == "application/vnd.test+json")
        #expect(try sentType("header") == "text/csv")
        // The guessed types are guesses wherever they are written (an earlier version wrote the
        // text one into every `body:` it saved); any other type is the body's own.
        #expect(try sentType("saved before") == "application/vnd.test+json")
        #expect(try sentType("named json") == "application/vnd.test+json")
        #expect(try sentType("plain text") == "text/plain")
        // Templates are filled as the type that goes out says: text here, though the default is JSON.
        let filled = try WorkspaceSession(try Workspace.load(path: path)).request(named: "plain text", captured: ChainVariables())
        #expect(filled.requestSerializer == .raw(Data(#"hi a "b""#.utf8), contentType: "text/plain"))
        // Saved again, the guessed type is not written as the entry's own: it still yields to the default.
        let session = try WorkspaceSession(try Workspace.load(path: path))
        try WorkspaceWriter.save(try session.request(named: "guessed").0, named: "guessed", in: path)
        try WorkspaceWriter.save(try session.request(named: "own").0, named: "own", in: path)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.components(separatedBy: "text/plain; charset=utf-8").count == 2, "only the entry that wrote it has it: \(text)")
        #expect(text.contains("application/xml"))
        #expect(try sentType("guessed") == "application/vnd.test+json")
        #expect(try sentType("own") == "application/xml")
    }

    @Test("a json: entry fills templates in its members' names as a body: entry under a JSON type does (found by review: json: left them as written)")
    func jsonMemberNamesFilled() throws {
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", #"""
        variables: {field: name}
        requests:
          members: {method: POST, url: "http://127.0.0.1:9/x", json: {"{{field}}": 1, nested: {"{{field}}_2": "{{field}}"}}}
          text: {method: POST, url: "http://127.0.0.1:9/x", body: '{"{{field}}": 1, "nested": {"{{field}}_2": "{{field}}"}}', contentType: application/json}
        """#)
        let session = try WorkspaceSession(try Workspace.load(path: path))
        var bodies: [JSONValue] = []
        for name in ["members", "text"] {
            guard case .raw(let data, _) = try session.request(named: name).0.requestSerializer else { Issue.record("no body"); continue }
            bodies.append(try JSONValue.parse(data))
        }
        #expect(bodies.count == 2 && bodies[0] == bodies[1], "\(bodies)")
        #expect(bodies.first?["name"] == .int(1))
        #expect(bodies.first?["nested"]?["name_2"] == .string("name"))
        // Two members that come to one name are refused, not sent twice (found by review).
        let twice = try files.write("twice.yaml", #"""
        variables: {field: role}
        requests:
          r: {method: POST, url: "http://127.0.0.1:9/x", json: {"{{field}}": admin, role: user}}
        """#)
        let error = try #require(throws: WorkspaceError.self) { try WorkspaceSession(try Workspace.load(path: twice)).request(named: "r") }
        #expect(error.description.contains(#"two members are named "role""#), "\(error)")
        // A body: entry under a JSON type is refused the same way, nested objects included
        // (found by review: only json: entries were checked).
        let twiceAsText = try files.write("twice-text.yaml", #"""
        variables: {field: role}
        requests:
          top: {method: POST, url: "http://127.0.0.1:9/x", body: '{"{{field}}": "admin", "role": "user"}', contentType: application/json}
          nested: {method: POST, url: "http://127.0.0.1:9/x", body: '{"a": [{"role": 1, "{{field}}": 2}]}', headers: {Content-Type: application/json}}
          plain: {method: POST, url: "http://127.0.0.1:9/x", body: '{"{{field}}": "admin", "role": "user"}', contentType: text/plain}
        """#)
        let session2 = try WorkspaceSession(try Workspace.load(path: twiceAsText))
        for name in ["top", "nested"] {
            let refused = try #require(throws: WorkspaceError.self, "\(name)") { try session2.request(named: name) }
            #expect(refused.description.contains(#"two members are named "role""#), "\(refused)")
        }
        // Under another type the body is text, sent as filled in.
        guard case .raw(let data, _) = try session2.request(named: "plain").0.requestSerializer else { Issue.record("no body"); return }
        #expect(String(decoding: data, as: UTF8.self) == #"{"role": "admin", "role": "user"}"#)
    }

    @Test("includes merge requests, groups and environments; a file including itself is refused")
    func includes() throws {
        let files = try WorkspaceFiles()
        try files.write("auth.yaml", "requests:\n  login: {url: /login, json: {a: 1}}\nenvironments:\n  dev: {base: http://x}\n")
        let path = try files.write("curlew.yaml", "include: [auth.yaml]\nrequests:\n  me: {url: /me}\ngroups:\n  g: {chain: [login, me]}\n")
        let workspace = try Workspace.load(path: path)
        #expect(workspace.requests.map(\.name) == ["me", "login"])
        #expect(workspace.environmentNames == ["dev"])
        #expect(workspace.files.count == 2)

        try files.write("loop.yaml", "include: [curlew.yaml]\n")
        try files.write("curlew.yaml", "include: [loop.yaml]\n")
        #expect(throws: WorkspaceError.self) { try Workspace.load(path: path) }

        // The same file by another name (a link; `./a.yaml` beside `a.yaml`) is the same file: the
        // cycle is named as one, not as a request defined twice at one place (found by a new user's trial).
        try files.write("curlew.yaml", "include: [loop.yaml]\nrequests:\n  a: {url: /a}\n")
        try files.write("loop.yaml", "include: [./link.yaml]\n")
        try FileManager.default.createSymbolicLink(atPath: files.directory + "/link.yaml", withDestinationPath: path)
        let cycle = try #require(throws: WorkspaceError.self) { try Workspace.load(path: path) }
        #expect(cycle.description.contains("includes itself"), "\(cycle)")

        // Links that lead to each other are said to, not called a missing file (found by a new user's trial).
        try FileManager.default.createSymbolicLink(atPath: files.directory + "/ring1.yaml", withDestinationPath: "ring2.yaml")
        try FileManager.default.createSymbolicLink(atPath: files.directory + "/ring2.yaml", withDestinationPath: "ring1.yaml")
        try files.write("curlew.yaml", "include: [ring1.yaml]\n")
        let ring = try #require(throws: WorkspaceError.self) { try Workspace.load(path: path) }
        #expect(ring.description.contains("too many levels of symbolic links"), "\(ring)")
        try files.write("curlew.yaml", "include: [absent.yaml]\n")
        #expect(try #require(throws: WorkspaceError.self) { try Workspace.load(path: path) }.description.contains("absent.yaml: no such file"))
    }

    @Test("a secrets file is never included, its own or another's, and a file included by mistake (.env, .netrc, a password file) is refused without its lines quoted (found by a new user's trial)")
    func includesKeepFilesUnquoted() throws {
        let files = try WorkspaceFiles()
        try FileManager.default.createDirectory(atPath: files.directory + "/other", withIntermediateDirectories: true)
        try files.write("other/curlew.secrets.yaml", "variables: {deploy_key: OTHERPROJSECRET42}\n", mode: 0o600)
        try files.write(".env", "AWS_SECRET_ACCESS_KEY=ENVSECRET456\nX=1\n")
        try files.write("netrc", "machine api.github.com login bot password NETRCPW1\n")
        try files.write("shadow", "root:$y$j9T$SHADOWHASH77:20228:0:99999:7:::\n")
        // A link named otherwise leads to it just the same (found by review).
        try FileManager.default.createSymbolicLink(atPath: files.directory + "/keys.yaml", withDestinationPath: files.directory + "/other/curlew.secrets.yaml")
        for (include, message) in [("other/curlew.secrets.yaml", "is a secrets file, which is never included"), ("curlew.secrets.yaml", "is a secrets file"),
                                   ("keys.yaml", "is a secrets file"),
                                   (".env", "not a workspace file"), ("netrc", "not a workspace file"),
                                   ("shadow", "unknown key of 42 characters that reads as no workspace key")] {
            let path = try files.write("curlew.yaml", "include: [\(include)]\nrequests:\n  a: {url: /a}\n")
            let error = try #require(throws: WorkspaceError.self) { try Workspace.load(path: path) }
            #expect(error.description.contains(message), "\(error)")
            for secret in ["OTHERPROJSECRET42", "ENVSECRET456", "NETRCPW1", "SHADOWHASH77"] { #expect(!error.description.contains(secret), "\(error)") }
        }
        // A control character makes the reader stop: said by its place and code, the line never
        // quoted, in an included file as in the secrets file (found by a new user's trial:
        // /proc/self/environ was printed whole).
        try files.write("environ", "SHELL=/bin/bash\u{0}CI_DEPLOY_TOKEN=ghp_CtlSecret123\u{0}\n")
        let environ = try files.write("curlew.yaml", "include: [environ]\nrequests:\n  a: {url: /a}\n")
        let stopped = try #require(throws: WorkspaceError.self) { try Workspace.load(path: environ) }
        #expect(stopped.description.contains("control characters are not allowed (U+0000)") && !stopped.description.contains("ghp_CtlSecret123"), "\(stopped)")
        try files.write("curlew.secrets.yaml", "variables:\n  password: SecPwCtl\u{7f}AAA\n", mode: 0o600)
        let secretsBroken = try #require(throws: WorkspaceError.self) { try Workspace.load(path: try files.write("curlew.yaml", "requests:\n  a: {url: /a}\n")) }
        #expect(!secretsBroken.description.contains("SecPwCtl"), "\(secretsBroken)")
        try? FileManager.default.removeItem(atPath: files.directory + "/curlew.secrets.yaml")
        // A key that reads as a name is still quoted, with its likely meaning.
        let typo = try files.write("curlew.yaml", "requests:\n  a: {url: /a, mehtod: GET}\n")
        let error = try #require(throws: WorkspaceError.self) { try Workspace.load(path: typo) }
        #expect(error.description.contains(#"unknown key "mehtod" (did you mean "method"?)"#), "\(error)")
    }

    @Test("a secret never has a value in the workspace, and the secrets file must be owner-only")
    func secretsStaySecret() throws {
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", "secrets: [token]\nvariables: {token: oops}\n")
        let inClear = try #require(throws: WorkspaceError.self) { try Workspace.load(path: path) }
        #expect(inClear.description.contains("move the value to curlew.secrets.yaml"))

        try files.write("curlew.yaml", "secrets: [token]\nrequests:\n  a: {url: /x, headers: {X-Token: \"{{token}}\"}}\n")
        try files.write("curlew.secrets.yaml", "variables: {token: abc}\n", mode: 0o644)
        let open = try #require(throws: WorkspaceError.self) { try Workspace.load(path: path) }
        #expect(open.kind == .insecureSecrets)
        #expect(open.description.contains("chmod 600"))

        chmod(files.directory + "/curlew.secrets.yaml", 0o600)
        let session = try WorkspaceSession(try Workspace.load(path: path))
        #expect(try session.request(named: "a").0.headers["X-Token"] == "abc")
        #expect(session.resolvedVariables.first { $0.name == "token" }?.value == RedactionPolicy.marker)

        // Secrets for an environment the workspace does not have (mistyped) are refused, not
        // left unused (found by a new user's trial).
        try files.write("curlew.yaml", "secrets: [token]\nenvironments:\n  prod: {host: https://p}\n")
        try files.write("curlew.secrets.yaml", "environments:\n  prdo: {token: abc}\n", mode: 0o600)
        let mistyped = try #require(throws: WorkspaceError.self) { try Workspace.load(path: path) }
        #expect(mistyped.description.contains("curlew.secrets.yaml has secrets for no environment \"prdo\" of the workspace (did you mean \"prod\"?)"),
                "\(mistyped)")
        // Another workspace's environment in the directory's secrets file is no typo (found by review).
        try files.write("curlew.secrets.yaml", "environments:\n  ci: {token: abc}\n", mode: 0o600)
        #expect(throws: Never.self) { try Workspace.load(path: path) }
    }

    @Test("the business-code check and signers read into the agent's validator and the session's signers")
    func businessCodeAndSigners() throws {
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", """
        config:
          businessCode: {field: errno, success: [0], message: msg}
          signers: {hmac: {keyID: k1, secret: "{{s}}"}}
        variables: {s: shh}
        requests:
          a: {url: /x, signer: hmac, businessCode: {field: code}}
        """)
        let session = try WorkspaceSession(try Workspace.load(path: path))
        #expect(session.config.businessValidator?.name.contains("errno") == true)
        #expect(session.signers == [SignerSettings(name: "hmac", keyID: "k1", secret: "shh")])
        let request = try session.request(named: "a").0
        #expect(request.signer == "hmac")
        #expect(request.validation.business != nil)
    }

    @Test("an alias bomb is refused instead of expanded")
    func aliasBomb() throws {
        var text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for level in 1...8 { text += "a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ") + "]\n" }
        let error = try #require(throws: WorkspaceError.self) { try YAMLDocument.parse(text, file: "bomb.yaml") }
        #expect(error.description.contains("expands to more than"))
    }

    @Test("alias and explicit mapping keys are refused before YAML reads them (an alias key made the reader hang)")
    func aliasKeys() throws {
        var text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for level in 1...8 { text += "a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ") + "]\n" }
        for key in ["? *a8\n: boom\n", "*a8 : boom\n", "m: {*a8: boom}\n"] {
            let error = try #require(throws: WorkspaceError.self) { try YAMLDocument.parse(text + key, file: "bomb.yaml") }
            #expect(error.description.contains("mapping key"), "\(key)")
        }
        #expect(try YAMLDocument.parse("match: GET /users/*\nother: \"* /a/**/z\"\n", file: "ok.yaml") != nil)
    }

    @Test("the alias-key guard ends lines where libyaml does: CRLF, CR, NEL, LS, PS, and skips a BOM at a line's start (each slipped past it and hung the reader)")
    func aliasKeysWithCarriageReturns() throws {
        var text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for level in 1...8 { text += "a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ") + "]\n" }
        for lineEnd in ["\r\n", "\r", "\u{85}", "\u{2028}", "\u{2029}", "\n\u{FEFF}"] {
            let document = (text + "*a8 : boom\n").replacingOccurrences(of: "\n", with: lineEnd)
            let error = try #require(throws: WorkspaceError.self) { try YAMLDocument.parse(document, file: "bomb.yaml") }
            #expect(error.description.contains("mapping key"))
            #expect(error.position?.line == 10)
        }
    }

    @Test("a star inside a quoted string or a block scalar is text, not an alias key (such files were refused)")
    func starsInText() throws {
        let text = """
        a: "x *y: z"
        b: 'it''s *y: z'
        c: |
          Markdown: **bold**: and *note: read this
            *deeper: too
        d: >-
          *folded: text
        e: plain
        """
        let root = try #require(try YAMLDocument.parse(text, file: "ok.yaml"))
        guard case .mapping(let pairs, _) = root else { Issue.record("not a mapping"); return }
        #expect(pairs.count == 5)
        // Back at the key's level the guard looks again.
        var bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for level in 1...8 { bomb += "a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ") + "]\n" }
        let error = #expect(throws: WorkspaceError.self) { try YAMLDocument.parse(bomb + "c: |\n  text\n*a8 : boom\n", file: "bomb.yaml") }
        #expect(error?.description.contains("mapping key") == true)
    }

    @Test("a long run of stars is scanned once (the guard restarted after every star)")
    func longStarRun() throws {
        let stars = String(repeating: "*", count: 400_000)
        let start = ContinuousClock.now
        #expect(throws: Never.self) { try YAMLDocument.refuseComplexKeys("k: \(stars)\n", file: "stars.yaml") }
        #expect(ContinuousClock.now - start < .seconds(20), "quadratic in the run's length")
    }
}

@Suite("workspace files: review fixes")
struct WorkspaceReviewTests {
    @Test("query: on a POST without a body goes in the URL; yes and no stay strings in a JSON body")
    func queryAndNorway() throws {
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", "requests:\n  p: {method: POST, url: /p, query: {a: 1}}\n  j: {url: /j, json: {country: no, ok: true}}\n")
        let session = try WorkspaceSession(try Workspace.load(path: path))
        #expect(try session.request(named: "p").0.path == "/p?a=1")
        #expect(try session.request(named: "j").0.requestSerializer == .raw(Data(#"{"country":"no","ok":true}"#.utf8), contentType: "application/json"))
    }

    @Test("a request with a misspelt variable still runs by default (and fails); one needing a chain's capture does not")
    func defaultTargets() throws {
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", """
        requests:
          typo: {url: "/x/{{tokne}}"}
          login: {url: /login}
          me: {url: /me, headers: {Authorization: "Bearer {{token}}"}}
        groups:
          flow: {chain: [{request: login, capture: {token: $.token}}, me]}
        """)
        let session = try WorkspaceSession(try Workspace.load(path: path))
        #expect(session.defaultTargets() == [.request("typo"), .group("flow")])
    }

    @Test("groups that each hold the next twice load at once, and one that expands past the limit is refused")
    func groupDiamonds() throws {
        var text = "requests:\n  r: {url: /r}\ngroups:\n  g0: {batch: [r, r]}\n"
        for level in 1...40 { text += "  g\(level): {batch: [{group: g\(level - 1)}, {group: g\(level - 1)}]}\n" }
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", text)
        let error = try #require(throws: WorkspaceError.self) { try Workspace.load(path: path) }
        #expect(error.description.contains("at most 100000 are allowed"))
    }

    @Test("templates that expand past 16 MiB are refused")
    func templateBomb() {
        var variables = ["v0": String(repeating: "x", count: 1000)]
        for level in 1...5 { variables["v\(level)"] = Array(repeating: "{{v\(level - 1)}}", count: 10).joined() }
        #expect(throws: Template.Failure.tooLong) { try Template(variables: variables).expand("{{v5}}") }
    }
}

extension WorkspaceReviewTests {
    @Test("config.tips sets the agent's user-facing failure texts")
    func tips() throws {
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", "config:\n  tips: {generalError: Oops, appendsErrorCode: false}\n")
        let session = try WorkspaceSession(try Workspace.load(path: path))
        #expect(session.config.tips.generalError == "Oops" && !session.config.tips.appendsErrorCode)
    }
}
