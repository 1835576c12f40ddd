import CurlewAgent
import CurlewTestSupport
import Foundation
import Testing

@Suite("Chains")
struct ChainTests {
    @Test("login then profile: the token is captured and sent as a Bearer header")
    func loginThenProfile() async throws {
        let (agent, recorder) = try await groupAgent()
        let chain = RequestGroup.chain([
            ChainStep(Request(.post, "/login", name: "login", params: ["username": "ada", "password": "pw"], requestSerializer: .json),
                      captures: [.json("token", "$.token"), Capture("status", from: .status)]),
            ChainStep(Request(.get, "/me", name: "profile", headers: ["Authorization": "Bearer {{token}}"])),
        ], name: "login flow")
        let group = await runToEnd(chain, on: agent)
        #expect(group.state == .succeeded)
        #expect(try group.lastResponse?.json()["user"] == .string("ada"))
        let token = try #require(group.variables["token"])
        #expect(token.hasPrefix("demo-"))
        #expect(group.variables["status"] == "200")
        #expect(recorder.groupEvents.contains(.captured(group.info, step: 0, name: "token", value: token, source: .jsonPath("$.token"))))
        let profile = try #require(recorder.messages.first { $0.name == "profile" })
        #expect(profile.groupID == group.id)
        #expect(profile.step == 1)
    }

    @Test("a step callback can finish the chain early; later steps never reach the server")
    func earlyFinish() async throws {
        let server = try await TestServer.shared()
        let (agent, _) = try await groupAgent()
        let tag = uniqueTag()
        let group = await runToEnd(.chain([
            ChainStep(Request(.get, "/get"), onFinish: { context in context.finish(.succeeded) }),
            ChainStep(Request(.get, "/get?\(tag)")),
        ]), on: agent)
        #expect(group.state == .succeeded)
        #expect(group[1].state == .cancelled)
        #expect(!server.receivedRequests.contains { $0.uri.contains(tag) })
    }

    @Test("under .stop a failing step fails the chain and the rest never start; under .continue they run")
    func failurePolicies() async throws {
        let server = try await TestServer.shared()
        let (agent, _) = try await groupAgent()
        let stopTag = uniqueTag()
        let stopped = await runToEnd(.chain([
            ChainStep(Request(.get, "/get")), ChainStep(Request(.get, "/status/500")), ChainStep(Request(.get, "/get?\(stopTag)")),
        ]), on: agent)
        #expect(stopped.state == .failed)
        #expect(stopped.members.map(\.state) == [.succeeded, .failed, .cancelled])
        #expect(!server.receivedRequests.contains { $0.uri.contains(stopTag) })

        let continueTag = uniqueTag()
        let continued = await runToEnd(.chain([
            ChainStep(Request(.get, "/get")), ChainStep(Request(.get, "/status/500")), ChainStep(Request(.get, "/get?\(continueTag)")),
        ], onFailure: .continue), on: agent)
        #expect(continued.state == .failed)
        #expect(continued.members.map(\.state) == [.succeeded, .failed, .succeeded])
        #expect(continued.failedMembers.map(\.index) == [1])
        #expect(server.receivedRequests.contains { $0.uri.contains(continueTag) })
    }

    @Test("a step callback can add a step and build the next request from the previous result")
    func callbackAddsAndBuildsSteps() async throws {
        let (agent, recorder) = try await groupAgent()
        let group = await runToEnd(.chain([
            ChainStep(Request(.get, "/json"), onFinish: { context in
                let author = (try? context.response?.json()["slideshow"]?["author"]?.stringValue) ?? "?"
                context.setNextRequest(Request(.get, "/anything/by-\(author)", name: "built"))
                context.addStep(ChainStep(Request(.get, "/status/201", name: "added")))
            }),
        ]), on: agent)
        #expect(group.state == .succeeded)
        #expect(group.count == 3)
        #expect(group.members.map(\.label) == ["/json", "built", "added"])
        #expect(try group[1].response?.json()["url"] == .string("/anything/by-Curlew"))
        #expect(group[2].response?.statusCode == 201)
        let added = recorder.groupEvents.compactMap { event -> Int? in
            if case .stepAdded(_, let index, _) = event { return index }
            return nil
        }
        #expect(added == [1, 2])
    }

    @Test("each step starts only after the previous step's callback returned")
    func callbackReturnsFirst() async throws {
        let server = try await TestServer.shared()
        let (agent, _) = try await groupAgent()
        let tag = uniqueTag()
        let group = await runToEnd(.chain([
            ChainStep(Request(.get, "/get"), onFinish: { _ in
                Thread.sleep(forTimeInterval: 0.3)
                #expect(!server.receivedRequests.contains { $0.uri.contains(tag) })
            }),
            ChainStep(Request(.get, "/get?\(tag)")),
        ]), on: agent)
        #expect(group.state == .succeeded)
    }

    @Test("a missing capture or an unknown variable fails the step with a message naming it; the step's own request fails with it, answer kept, so its debug message (and the session log) says failed, not success (found by a new user's trial)")
    func captureFailures() async throws {
        let (agent, recorder) = try await groupAgent()
        let missing = await runToEnd(.chain([ChainStep(Request(.get, "/get"), captures: [.json("id", "$.items[0].id")])]), on: agent)
        #expect(missing[0].error?.kind == .captureFailed)
        #expect(missing[0].error?.message.contains("$.items[0].id") == true)
        #expect(missing[0].response?.statusCode == 200)
        let message = try #require(recorder.messages.first { $0.requestID == missing[0].requestID })
        #expect(message.state == .failed)
        #expect(message.error?.kind == .captureFailed)
        #expect(message.response?.statusCode == 200)
        // A capture found leaves the request a success, and its value reaches the next step.
        let found = await runToEnd(.chain([
            ChainStep(Request(.get, "/json"), captures: [.json("author", "$.slideshow.author")]),
            ChainStep(Request(.get, "/anything/{{author}}")),
        ]), on: agent)
        #expect(found.state == .succeeded, "\(String(describing: found[1].error))")
        #expect(recorder.messages.first { $0.requestID == found[0].requestID }?.state == .succeeded)
        // The captures found before the missing one are kept, and a step after it under
        // .continue uses them (found by review: the request's own check dropped them all).
        let partly = await runToEnd(.chain([
            ChainStep(Request(.get, "/json"), captures: [.json("author", "$.slideshow.author"), .json("id", "$.nope")]),
            ChainStep(Request(.get, "/anything/{{author}}")),
        ], onFailure: .continue), on: agent)
        #expect(partly[0].error?.kind == .captureFailed)
        #expect(partly[0].captured.map(\.value) == ["Curlew"])
        #expect(partly[1].state == .succeeded, "\(String(describing: partly[1].error))")
        #expect(partly.variables["author"] == "Curlew")
        // A JSON null is captured as JSON's null, not as an empty text (found by a new user's trial).
        var nulled = Request(.post, "/anything")
        nulled.requestSerializer = .raw(Data(#"{"a":null,"b":false}"#.utf8), contentType: "application/json")
        let null = await runToEnd(.chain([ChainStep(nulled, captures: [.json("a", "$.json.a"), .json("b", "$.json.b")])]), on: agent)
        #expect(null[0].captured.map(\.value) == ["null", "false"], "\(String(describing: null[0].error))")
        let unknown = await runToEnd(.chain([ChainStep(Request(.get, "/anything/{{nope}}"))]), on: agent)
        #expect(unknown.state == .failed)
        #expect(unknown[0].error?.kind == .unresolvedVariable)
        #expect(unknown[0].error?.message.contains("{{nope}}") == true)
    }

    @Test("a request step's answer carries what its checks captured, which the chain keeps without reading the answer again; a group step's captures are read from its last answer, not taken from the inner step's")
    func capturedOnceFromTheChecks() async throws {
        let (agent, _) = try await groupAgent()
        let chain = await runToEnd(.chain([
            ChainStep(Request(.get, "/json"), captures: [.json("author", "$.slideshow.author"), Capture("status", from: .status)]),
            // The inner step captures one value from its answer, as the outer step does from the same answer.
            ChainStep(.group(.chain([ChainStep(Request(.get, "/anything/inner"), captures: [.json("inner", "$.url")])])),
                      captures: [.json("outer", "$.method")]),
        ]), on: agent)
        #expect(chain.state == .succeeded, "\(String(describing: chain[1].error))")
        #expect(chain[0].response?.captured.map(\.value) == ["Curlew", "200"])
        #expect(chain.variables["author"] == "Curlew" && chain.variables["status"] == "200")
        #expect(chain.variables["outer"] == "GET", "\(chain.variables)")
    }

    @Test("a captured value fills a JSON body's string escaped, so a hostile value with quotes cannot add members; outside a string it stands as written")
    func captureIntoJSONBody() async throws {
        let (agent, _) = try await groupAgent()
        let hostile = #"a","admin":true,"b":"\ "# + "\u{1}"
        let body = #"{"note": "was {{x}}!", "n": {{n}}, "path": "\"{{x}}\""}"#
        let chain = RequestGroup.chain([
            ChainStep(Request(.get, "/anything", params: ["x": .string(hostile)]), captures: [.json("x", "$.args.x"), Capture("n", from: .status)]),
            ChainStep(Request(.post, "/anything", requestSerializer: .raw(Data(body.utf8), contentType: "application/json; charset=utf-8"))),
        ])
        let group = await runToEnd(chain, on: agent)
        #expect(group.variables["x"] == hostile)
        let echoed = try #require(try group.lastResponse?.json()["json"])
        #expect(echoed["note"] == .string("was \(hostile)!"))
        #expect(echoed["n"] == .int(200))
        #expect(echoed["path"] == .string("\"\(hostile)\""), "an escaped quote does not end the string")
        #expect(echoed["admin"] == nil)
        // A text body is filled in where the template stands, as before.
        #expect(try ChainVariables([("x", #"a"b"#)]).expand(#"say "{{x}}""#) == #"say "a"b""#)
        // Outside a string a value stands as written only when it is one JSON value.
        #expect(try ChainVariables([("x", #"a"b"#), ("n", "42")]).expand(json: #"{"s":"{{x}}","t":{{n}}}"#) == #"{"s":"a\"b","t":42}"#)
        #expect(try ChainVariables([("o", #"{"a": [1]}"#)]).expand(json: #"{"o": {{o}} }"#) == #"{"o": {"a": [1]} }"#)
        for smuggled in [#"1,"admin":true"#, "ada", "", "1 2"] {
            #expect(throws: RequestError.self, "\(smuggled)") { try ChainVariables([("n", smuggled)]).expand(json: #"{"n": {{n}}}"#) }
        }
        let refused = await runToEnd(.chain([
            ChainStep(Request(.get, "/anything", params: ["x": .string(hostile)]), captures: [.json("x", "$.args.x")]),
            ChainStep(Request(.post, "/anything", requestSerializer: .raw(Data(#"{"n": {{x}}}"#.utf8), contentType: "application/json"))),
        ]), on: agent)
        #expect(refused[1].error?.kind == .invalidBody, "never sent with the member it would add")
        // A Content-Type header decides, as it does on the wire.
        var typedByHeader = Request(.post, "/anything", headers: ["Content-Type": "application/json"], requestSerializer: .raw(Data(#"{"s":"{{x}}"}"#.utf8), contentType: "text/plain"))
        typedByHeader = try ChainVariables([("x", #"a"b"#)]).expand(typedByHeader)
        #expect(typedByHeader.requestSerializer == .raw(Data(#"{"s":"a\"b"}"#.utf8), contentType: "text/plain"))
        // JSON by its own type though a header names another (found by review).
        var typedByBody = Request(.post, "/anything", headers: ["Content-Type": "application/vnd.acme.v2"], requestSerializer: .raw(Data(#"{"s":"{{x}}"}"#.utf8), contentType: "application/json"))
        typedByBody = try ChainVariables([("x", #"a"b"#)]).expand(typedByBody)
        #expect(typedByBody.requestSerializer == .raw(Data(#"{"s":"a\"b"}"#.utf8), contentType: "application/json"))
        // A string whose escapes do not read as JSON still ends where it ended (found by review).
        let sealed = try ChainVariables([("x", #"a","admin":true,"z":"\"#)]).expand(json: #"{"s":"\q {{x}}","t":1}"#)
        #expect(!sealed.contains(#","admin":true"#) && sealed.hasSuffix(#"\\","t":1}"#), "\(sealed)")
        // The agent's default Content-Type goes on the wire when the request has none and the
        // body's type is only a guess (found by a new user's trial).
        var guessed = Request(.post, "/anything", requestSerializer: .raw(Data(#"{"s":"{{x}}"}"#.utf8), contentType: "text/plain"))
        guessed.rawContentTypeIsFallback = true
        let byDefault = try ChainVariables([("x", #"a"b"#)]).expand(guessed, defaultHeaders: ["Content-Type": "application/json"])
        #expect(byDefault.requestSerializer == .raw(Data(#"{"s":"a\"b"}"#.utf8), contentType: "text/plain"))
        // A type of the body's own goes out in the default's place, and the body is filled as that type says.
        guessed.rawContentTypeIsFallback = false
        let ownType = try ChainVariables([("x", #"a"b"#)]).expand(guessed, defaultHeaders: ["Content-Type": "application/json"])
        #expect(ownType.requestSerializer == .raw(Data(#"{"s":"a"b"}"#.utf8), contentType: "text/plain"))
        // Filling only some names leaves any other template as text.
        var some = ChainVariables([("x", "1")])
        some.fillsOnly = ["x"]
        #expect(try some.expand("{{x}} {{y}}") == "1 {{y}}")
        // Backslashes are text: a chain reads no escape of a workspace's (a workspace builds its
        // steps again with the values, `CaptureFilling`).
        #expect(try some.expand(#"\{{x}} \{{y}} a\{{x"#) == #"\1 \{{y}} a\{{x"#)
        var none = ChainVariables()
        none.fillsOnly = []
        #expect(try none.expand(#"C:\{{x}} \\{{y}}"#) == #"C:\{{x}} \\{{y}}"#)
        // Multipart parts' text is filled in too.
        var form = MultipartForm()
        form.append(name: "token", value: "{{x}}")
        var multipart = Request(.post, "/anything")
        multipart.form = form
        let filledForm = try #require(try ChainVariables([("x", "v")]).expand(multipart).form)
        #expect(filledForm.parts.first?.content == .data(Data("v".utf8)))
        // A value that starts with a combining mark stays whole beside the quote it follows (found by FuzzJSON).
        let combining = "\u{0743}x"
        let filled = try ChainVariables([("x", combining)]).expand(json: #"{"s":"{{x}}"}"#)
        #expect(try JSONValue.parse(filled)["s"] == .string(combining))
        #expect(filled.unicodeScalars.count == 10)
    }

    @Test("JSON paths read members, quoted names and indices")
    func jsonPaths() throws {
        let document: JSONValue = ["items": [["id": 7], ["id": 8]], "odd key": "x"]
        #expect(try JSONPath("$.items[1].id").evaluate(document) == .int(8))
        #expect(try JSONPath("$.items[-1].id").evaluate(document) == .int(8))
        #expect(try JSONPath("$['odd key']").evaluate(document) == .string("x"))
        #expect(try JSONPath("$").evaluate(document) == document)
        #expect(try JSONPath("$.missing").evaluate(document) == nil)
        #expect(throws: RequestError.self) { try JSONPath("items") }
        #expect(throws: RequestError.self) { try JSONPath("$.items[x]") }
    }
}

@Suite("Chain variables in names")
struct ChainVariableNameTests {
    @Test("a chain fills parameter names as values, and refuses two members or parameters that come to one name (found by review: a step's query name went out as {{token}}_id, and a captured member name could repeat another)")
    func namesFilledAndRepeatsRefused() throws {
        let variables = ChainVariables([("token", "t"), ("field", "role")])
        let step = try variables.expand(Request(.get, "/q", params: ["{{token}}_id": "1"]))
        #expect(step.params == ["t_id": "1"])
        #expect(throws: RequestError.self) { try variables.expand(Request(.get, "/q", params: ["{{field}}": "a", "role": "b"])) }
        #expect(throws: RequestError.self) { try variables.expand(json: #"{"{{field}}": "admin", "role": "user"}"#) }
        #expect(try variables.expand(json: #"{"{{field}}": "admin", "name": "{{token}}"}"#) == #"{"role": "admin", "name": "t"}"#)
    }

    @Test("a \\{{ is a literal {{ when the variables fill every name, as in a workspace; where they fill only the names given, the rest is text as written, a backslash included")
    func escapedTemplates() throws {
        var variables = ChainVariables([("token", "t")])
        #expect(try variables.expand(#"\{{token}} {{token}} \{{other}} \\{{x"#) == #"{{token}} t {{other}} \{{x"#)
        #expect(try variables.expand(json: #"{"a": "\{{other}}", "b": "{{token}}"}"#) == #"{"a": "{{other}}", "b": "t"}"#)
        variables.fillsOnly = ["token"]
        #expect(try variables.expand(#"\{{token}} {{token}} \{{other}}"#) == #"\t t \{{other}}"#)
    }
}

@Suite("Nested groups")
struct NestedGroupTests {
    @Test("a group nested in a chain fills in what the chain captured before it, a batch's members and a nested chain's steps alike (found by review: they went out with {{token}} as written)")
    func nestedGroupsInheritCaptures() async throws {
        let (agent, recorder) = try await groupAgent()
        let me = Request(.get, "/me", name: "me", headers: ["Authorization": "Bearer {{token}}"])
        let chain = RequestGroup.chain([
            ChainStep(Request(.post, "/login", name: "login", params: ["username": "ada", "password": "pw"], requestSerializer: .json),
                      captures: [.json("token", "$.token")]),
            ChainStep(.group(.batch([me, me], name: "inner batch"))),
            ChainStep(.group(.chain([ChainStep(me)], name: "inner chain"))),
        ], name: "outer")
        let group = await runToEnd(chain, on: agent)
        #expect(group.state == .succeeded, "\(recorder.messages.map { "\($0.name ?? "") \($0.response?.statusCode ?? 0) \($0.error?.message ?? "")" })")
        let token = try #require(group.variables["token"])
        let sent = recorder.messages.filter { $0.name == "me" }
        #expect(sent.count == 3)
        for message in sent {
            #expect(message.response?.statusCode == 200)
            #expect(message.original?.headers.first { $0.name == "Authorization" }?.value == "Bearer \(token)")
        }
        // A nested group that names no limit keeps its chain's: a name the chain does not fill is text.
        var limited = RequestGroup.chain([
            ChainStep(Request(.post, "/login", name: "login", params: ["username": "ada", "password": "pw"], requestSerializer: .json),
                      captures: [.json("token", "$.token")]),
            ChainStep(.group(.batch([Request(.get, "/get", name: "noted", headers: ["X-Note": "{{x}} {{token}}"])]))),
        ])
        limited.fillsOnly = ["token"]
        let ran = await runToEnd(limited, on: agent)
        #expect(ran.state == .succeeded)
        let noted = try #require(recorder.messages.last { $0.name == "noted" })
        #expect(noted.original?.headers.first { $0.name == "X-Note" }?.value == "{{x}} \(try #require(ran.variables["token"]))")
        // Without captures before it, a nested batch sends its members as they are.
        let literal = Request(.get, "/get", name: "literal", headers: ["X-Note": "{{x}}"])
        let plain = await runToEnd(.chain([ChainStep(.group(.batch([literal])))]), on: agent)
        #expect(plain.state == .succeeded)
        // A batch that names what it fills fills it even with nothing captured before it: a
        // missing value fails the member, never sent as `{{token}}`.
        var named = RequestGroup.batch([Request(.get, "/get", name: "needs", headers: ["X-Note": "{{token}}"])])
        named.fillsOnly = ["token"]
        let refused = await runToEnd(named, on: agent)
        #expect(refused.members.first?.error?.kind == .unresolvedVariable, "\(String(describing: refused.members.first?.error))")
    }

    @Test("a member made from captured values (captureFilling) is made when it starts, from what its chain captured, in a group nested in the chain too; mapping the group's requests maps the request made; a nested batch started after a capture failed under .continue fails its member rather than sending it unfilled (found by review), and that member still has its debug message")
    func captureFilling() async throws {
        let (agent, recorder) = try await groupAgent()
        var made = Request(.get, "/get", name: "template", headers: ["X-Token": "{{token}}"])
        made.captureFilling = CaptureFilling { variables throws(RequestError) in
            guard let token = variables["token"] else { throw RequestError(.unresolvedVariable, "no token yet") }
            return Request(.get, "/get", name: "made", headers: ["X-Token": token])
        }
        let login = Request(.post, "/login", name: "login", params: ["username": "ada", "password": "pw"], requestSerializer: .json)
        let chain = RequestGroup.chain([
            ChainStep(login, captures: [.json("token", "$.token")]),
            ChainStep(.group(.batch([made]))),
        ]).mappingRequests { request in
            var request = request
            request.headers.set("X-Mapped", "yes")
            return request
        }
        let ran = await runToEnd(chain, on: agent)
        #expect(ran.state == .succeeded)
        let sent = try #require(recorder.messages.last { $0.name == "made" })
        #expect(sent.original?.headers.first { $0.name == "X-Token" }?.value == (try #require(ran.variables["token"])))
        #expect(sent.original?.headers.first { $0.name == "X-Mapped" }?.value == "yes")
        #expect(!recorder.messages.contains { $0.name == "template" })
        // The capture fails, the chain goes on, and the nested batch has no value to make its member from.
        let failing = RequestGroup.chain([
            ChainStep(login, captures: [.json("token", "$.missing")]),
            ChainStep(.group(.batch([made]))),
        ], onFailure: .continue)
        let failed = await runToEnd(failing, on: agent)
        #expect(failed.state == .failed)
        let child = try #require(failed[1].child)
        #expect(child.members.first?.error?.kind == .unresolvedVariable, "\(String(describing: child.members.first?.error))")
        // The member it could not make is still a request of the agent: refused before sending,
        // with a debug message for observers and the session log (found by a new user's trial:
        // the log had no entry for it).
        let refused = try #require(recorder.messages.last { $0.name == "template" && $0.groupID == child.id })
        #expect(refused.state == .failed)
        #expect(refused.error?.kind == .unresolvedVariable)
        #expect(refused.sent == nil)
        #expect(refused.step == 0)
        #expect(refused.original?.url == "/get")
        #expect(child.members.first?.requestID == refused.requestID)
    }

    @Test("a batch inside a chain and a chain inside a batch run, and report their parent")
    func nesting() async throws {
        let (agent, recorder) = try await groupAgent()
        let inner = RequestGroup.batch([Request(.get, "/get"), Request(.get, "/json")], name: "inner batch")
        let chain = RequestGroup.chain([
            ChainStep(Request(.get, "/get")),
            ChainStep(.group(inner)),
            ChainStep(Request(.get, "/status/204")),
        ], name: "outer chain")
        let group = await runToEnd(chain, on: agent)
        #expect(group.state == .succeeded)
        let child = try #require(group[1].child)
        #expect(child.state == .succeeded)
        #expect(child.count == 2)
        let childInfo = try #require(recorder.groupEvents.first { $0.group.id == child.id }?.group)
        #expect(childInfo.parentID == group.id)
        #expect(childInfo.indexInParent == 1)

        let outerBatch = RequestGroup.batch([
            .group(.chain([ChainStep(Request(.get, "/get")), ChainStep(Request(.get, "/status/500"))])),
            .request(Request(.get, "/json")),
        ], policy: .any)
        let batch = await runToEnd(outerBatch, on: agent)
        #expect(batch.state == .succeeded)
        #expect(batch[0].state == .failed)
        #expect(batch[0].error?.kind == .groupFailed)
        #expect(batch[0].child?.state == .failed)
    }

    @Test("cancelling a group cancels its nested groups too")
    func cancelNested() async throws {
        let (agent, recorder) = try await groupAgent()
        let handle = agent.start(.chain([ChainStep(.group(.batch([Request(.get, "/delay/10"), Request(.get, "/delay/10")])))]))
        try await waitUntil { handle[0].child?.members.allSatisfy(recorder.hasSent) == true }
        agent.cancel(handle)
        while !handle.state.isTerminal { try await Task.sleep(for: .milliseconds(5)) }
        #expect(handle.state == .cancelled)
        let child = try #require(handle[0].child)
        while !child.state.isTerminal { try await Task.sleep(for: .milliseconds(5)) }
        #expect(child.state == .cancelled)
        #expect(child.members.allSatisfy { $0.state == .cancelled })
    }

    @Test("a member's label in group events, its snapshot and a stop reason hides the credentials of the config's default Authorization fields where the URL repeats them, as its row does (found by review)")
    func labelsHideDefaultCredentials() async throws {
        var config = NetworkConfig(baseURL: try await TestServer.shared().baseURL)
        config.defaultHeaders.set("Authorization", "Bearer grp-default-secret-9")
        let agent = Agent(config: config)
        let recorder = EventRecorder()
        agent.addObserver(recorder)
        let failure: GroupFailure
        do {
            _ = try await agent.run(.batch([
                Request(.get, "/status/500?echo=grp-default-secret-9"), Request(.get, "/delay/2?k=grp-default-secret-9"),
            ]))
            Issue.record("the batch succeeded")
            return
        } catch {
            failure = try #require(error as? GroupFailure)
        }
        await agent.waitForObservers()
        let group = failure.group
        #expect(group.state == .failed)
        let events = recorder.groupEvents.filter { $0.group.id == group.id }
        guard case .created(_, let labels) = events.first else {
            Issue.record("unexpected order \(events)")
            return
        }
        let shown = labels + recorder.memberUpdates(of: group.id).map(\.label) + group.members.map(\.label)
            + group.members.compactMap { $0.error?.message } + [failure.description]
        #expect(shown.count > 4 && shown.contains { $0.contains("/status/500?echo=") }, "\(shown)")
        for text in shown { #expect(!text.contains("grp-default-secret-9"), "\(text)") }
    }

    @Test("group events come in order: created, started, member changes, finished")
    func eventOrder() async throws {
        let (agent, recorder) = try await groupAgent()
        let group = await runToEnd(.batch([Request(.get, "/get")], name: "one"), on: agent)
        let events = recorder.groupEvents.filter { $0.group.id == group.id }
        guard case .created(_, let labels) = events.first, case .started = events[1], case .finished(_, let verdict, let duration, _) = events.last else {
            Issue.record("unexpected order \(events)")
            return
        }
        #expect(labels == ["/get"])
        #expect(verdict == .succeeded)
        #expect(duration > 0)
        var states: [RequestState] = []
        for state in recorder.memberUpdates(of: group.id).map(\.state) where states.last != state { states.append(state) }
        #expect(states == [.pending, .inFlight, .succeeded], "progress updates repeat inFlight")
    }
}
