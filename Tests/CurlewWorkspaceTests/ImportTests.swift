import CurlewAgent
import CurlewOpenAPI
@testable import CurlewSessions
@testable import CurlewWorkspace
import CurlewTestSupport
import Foundation
import Testing

@Suite("imports into a workspace")
struct ImportTests {
    static let httpFile = """
    @host = https://api.example.com
    @user = ann

    ### Log in
    # @name login
    POST {{host}}/login HTTP/1.1
    Content-Type: application/json

    {"user": "{{user}}", "password": "pw"}

    ### The profile
    // a comment
    GET {{host}}/me
        ?verbose=1
        &lang=en
    Authorization: Bearer {{login.response.body.$.token}}
    X-Session: {{login.response.headers.X-Session}}

    > {% client.global.set("x", 1) %}

    ###
    # @name upload
    PUT {{host}}/files/1
    Content-Type: application/octet-stream

    < ./data.bin
    """

    @Test(".http: variables, names (`# @name`, else a `###` title), comments, query lines, bodies, < file, and response references as a chain")
    func httpFile() throws {
        let collection = try HTTPFileImport.parse(Self.httpFile, directory: "/srv")
        #expect(collection.variables.map(\.name) == ["host", "user"])
        #expect(collection.items.map(\.name) == ["login", "The profile", "upload"])
        let login = collection.items[0].request
        #expect(login.method == .post)
        #expect(login.customURL == "{{host}}/login")
        #expect(login.requestSerializer == .raw(Data(#"{"user": "{{user}}", "password": "pw"}"#.utf8), contentType: "application/json"))
        let me = collection.items[1].request
        #expect(me.customURL == "{{host}}/me?verbose=1&lang=en")
        #expect(me.headers["Authorization"] == "Bearer {{login_token}}")
        #expect(me.headers["X-Session"] == "{{login_XSession}}")
        #expect(collection.items[2].request.uploadFile == "/srv/./data.bin")
        #expect(collection.notes.count == 1)
        let chain = try #require(collection.chains.first)
        #expect(chain.steps.map(\.request) == ["login", "The profile"])
        #expect(chain.steps[0].captures == [.json("login_token", "$.token"), Capture("login_XSession", from: .header("X-Session"))])
    }

    @Test(".http: a line of many {{ that one late }} or none closes is read once, not once per {{ (each searched the rest of the line for its end)")
    func httpFileManyUnclosedTemplates() {
        let start = ContinuousClock.now
        let unclosed = String(repeating: "a{{", count: 200_000)
        #expect(HTTPFileImport.literalUnclosedTemplates(unclosed) == String(repeating: #"a\{{"#, count: 200_000))
        let lateClose = String(repeating: "a{{", count: 200_000) + "}}"
        #expect(HTTPFileImport.literalUnclosedTemplates(lateClose) == String(repeating: #"a\{{"#, count: 200_000) + "}}")
        // Quadratic, these took minutes.
        #expect(ContinuousClock.now - start < .seconds(20))
    }

    @Test(".http: a {{ no }} closes on its line is text, as the .http clients send it: the imported request runs instead of failing on an unclosed template (found by a new user's trial)")
    func httpFileUnclosedTemplate() throws {
        #expect(HTTPFileImport.literalUnclosedTemplates("a{{b}} c{{d e}}}} f{{") == #"a{{b}} c{{d e}}}} f\{{"#)
        #expect(HTTPFileImport.literalUnclosedTemplates("{{ {{x}}") == #"\{{ {{x}}"#)
        #expect(HTTPFileImport.literalUnclosedTemplates("a {{ b {{c}} d}}") == #"a \{{ b {{c}} d}}"#)
        // A pair naming nothing is text too (found by a new user's trial: the import wrote a
        // request that could not be built).
        #expect(HTTPFileImport.literalUnclosedTemplates("ab{{{{}}") == #"ab\{{\{{}}"#)
        #expect(HTTPFileImport.literalUnclosedTemplates("{{ }} {{x}}") == #"\{{ }} {{x}}"#)
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", "requests: {}\n")
        let http = """
        @pw = Sup3r{{cret
        @note = a{{b
        @key = k{{1

        POST http://127.0.0.1:9/post?n={{note}}
        Content-Type: text/plain
        X-Pw: {{pw}}
        X-Api-Key: {{key}}

        x{{y
        z}} {{ {{note}}
        """
        let collection = try HTTPFileImport.parse(http)
        try WorkspaceWriter.add(collection, to: path)
        let session = try WorkspaceSession(try Workspace.load(path: path))
        let (request, _) = try session.request(named: collection.items[0].name)
        #expect(request.customURL == "http://127.0.0.1:9/post?n=a{{b")
        #expect(request.headers["X-Pw"] == "Sup3r{{cret")
        // A credential header's variable goes to the secrets file, which keeps the text as sent.
        #expect(session.workspace.secretNames == ["key"] && request.headers["X-Api-Key"] == "k{{1")
        #expect(try String(contentsOfFile: files.directory + "/curlew.secrets.yaml", encoding: .utf8).contains("k{{1"))
        // Imported again with another key, the stored one is kept and the summary says the values
        // differ, without showing either (found by a new user's trial); the same value is just kept.
        let again = try WorkspaceWriter.add(try HTTPFileImport.parse(http.replacingOccurrences(of: "@key = k{{1", with: "@key = other-9")), to: path)
        #expect(again.kept.contains("secret key (the import's value differs: the workspace's is used)") && !again.kept.joined().contains("other-9"))
        #expect(again.kept.contains("variable note") && again.kept.contains("variable pw"), "\(again.kept)")
        #expect(request.requestSerializer == .raw(Data("x{{y\nz}} {{ a{{b".utf8), contentType: "text/plain"))
        // A made-text `{{` before a response reference leaves the reference to the chain (found by review).
        let chained = try HTTPFileImport.parse("# @name login\nGET http://h/a\n\n###\nPOST http://h/b\n\na{{b\n{{login.response.body.$.token}}\n")
        #expect(chained.items[1].request.requestSerializer == .raw(Data("a\\{{b\n{{login_token}}".utf8), contentType: "text/plain; charset=utf-8"))
    }

    @Test(".http: a `###` title names the request after it, unless it is a rule or a request line (an export's title), which name nothing; titles with one name are told apart")
    func httpFileSeparatorTitles() throws {
        let text = "### List users\nGET http://h/users\n\n### -----\nGET http://h/a\n\n### GET http://u:pw@h/b?token=T9x\nGET http://u:pw@h/b?token=T9x\n\n### List users\nGET http://h/c\n"
        let collection = try HTTPFileImport.parse(text)
        #expect(collection.items.map(\.name) == ["List users", "GET /a", "GET /b", "List users 2"])
        #expect(HTTPFileImport.separatorTitle("###") == nil && HTTPFileImport.separatorTitle("### == ~~ __ **") == nil)
        #expect(HTTPFileImport.separatorTitle("####  Log in  ") == "Log in")
        // A title that starts with a method's word is a title; a request line is in capitals (found by review).
        #expect(HTTPFileImport.separatorTitle("### Get all users") == "Get all users" && HTTPFileImport.separatorTitle("### GET /users") == nil)
        // Found by review: a title taking the name a later `# @name` gives (the chain then
        // captured from the titled request), a URL's password copied into a name, a lowercase
        // method, and a title's `{{` made `\{{`.
        let claimed = try HTTPFileImport.parse("""
            ### login
            GET http://h/page

            ### Log in for real
            # @name login
            POST http://h/login

            ### https://admin:S3cretPw@h/x?access_token=Tok12345
            GET https://admin:S3cretPw@h/x?access_token=Tok12345

            ### get http://u:Pw99999@h/z
            GET http://u:Pw99999@h/z

            ### {{odd title
            GET http://h/me
            Authorization: Bearer {{login.response.body.$.token}}
            """)
        #expect(claimed.items.map(\.name) == ["login 2", "login", "GET /x", "GET /z", "{{odd title"])
        #expect(claimed.chains.first?.steps.map(\.request) == ["login 2", "login", "GET /x", "GET /z", "{{odd title"])
        #expect(claimed.chains.first?.steps[1].captures.map(\.name) == ["login_token"] && claimed.chains.first?.steps[0].captures.isEmpty == true)
    }

    @Test("a URL password a variable or an environment holds, and a variable a header the logs hide uses (X-Token), go to the secrets file from .http, Postman and OpenAPI imports; the requests read back the same (found by a new user's trial)")
    func variableCredentialsMoved() throws {
        let http = """
            @base = http://u:HtSecret1@127.0.0.1:9
            @t = XtSecret1
            GET {{base}}/get
            X-Token: {{t}}
            """
        let postman = #"{"info":{"name":"c"},"variable":[{"key":"pbase","value":"http://u:PmSecret1@127.0.0.1:9"}],"item":[{"name":"p","request":{"method":"GET","url":"{{pbase}}/get"}}]}"#
        let environment = #"{"name":"stage","values":[{"key":"ebase","value":"http://u:PmSecret4@h?api_key=PmSecret5","enabled":true}]}"#
        let openAPI = """
            openapi: 3.1.0
            info: {title: t, version: '1'}
            servers: [{url: 'http://admin:OaSecret1@127.0.0.1:9/v1'}]
            paths:
              /pets:
                get:
                  operationId: pets
                  parameters: [{name: X-Token, in: header, schema: {type: string}, example: OaSecret3}]
                  responses: {'200': {description: ok}}
            """
        for (collection, names) in [(try HTTPFileImport.parse(http), ["GET /get"]), (try PostmanImport.parse(Data(postman.utf8)), ["p"]),
                                    (try PostmanImport.parse(Data(environment.utf8)), []), (try OpenAPIImport.parse(Data(openAPI.utf8)), ["pets"])] {
            let files = try WorkspaceFiles()
            let path = files.directory + "/curlew.yaml"
            try WorkspaceWriter.add(collection, to: path)
            let text = try String(contentsOfFile: path, encoding: .utf8)
            for secret in ["HtSecret1", "XtSecret1", "PmSecret1", "PmSecret4", "PmSecret5", "OaSecret1", "OaSecret3"] {
                #expect(!text.contains(secret), "\(secret) in \(text)")
            }
            let session = try WorkspaceSession(try Workspace.load(path: path))
            for name in names {
                let request = try session.request(named: name).0
                #expect(request.customURL.map { !$0.contains("{{") } ?? true, "\(String(describing: request.customURL))")
            }
            // An environment's URL password is stored under that environment.
            if collection.environments.first?.name == "stage" {
                let stored = try WorkspaceSecrets.load(path: files.directory + "/curlew.secrets.yaml")
                #expect(stored.byEnvironment["stage"]?.contains { $0.value == "PmSecret4" } == true && !stored.shared.contains { $0.value == "PmSecret4" },
                        "\(stored)")
            }
        }
        let session = try { () throws -> WorkspaceSession in
            let files = try WorkspaceFiles()
            let path = files.directory + "/curlew.yaml"
            try WorkspaceWriter.add(try HTTPFileImport.parse(http), to: path)
            return try WorkspaceSession(try Workspace.load(path: path))
        }()
        let request = try session.request(named: "GET /get").0
        #expect(request.customURL == "http://u:HtSecret1@127.0.0.1:9/get" && request.headers["X-Token"] == "XtSecret1")
    }

    @Test("an import names a credential where any entry repeats it, also one an earlier entry moved and a Postman auth's token; a cookie pair by pair; a JSON body with an escape stays as written; a value with no scheme is no URL (found by review)")
    func importedRepeats() throws {
        /// The workspace an import of `collection` writes, and its session.
        func imported(_ collection: ImportedCollection) throws -> (text: String, session: WorkspaceSession) {
            let files = try WorkspaceFiles()
            let path = files.directory + "/curlew.yaml"
            try WorkspaceWriter.add(collection, to: path)
            return (try String(contentsOfFile: path, encoding: .utf8), try WorkspaceSession(try Workspace.load(path: path)))
        }
        let curl = "curl -H 'Authorization: Bearer Tok-9x8y7z' -H 'Cookie: sid=Sid-1a2b3c4d; theme=darkest' 'http://127.0.0.1:9/users/Tok-9x8y7z?s=Sid-1a2b3c4d&t=darkest'\n"
            + "curl -H 'Authorization: Bearer Tok-9x8y7z' -H 'Content-Type: application/json' 'http://127.0.0.1:9/again/Tok-9x8y7z' --data-raw '{\"t\":\"Tok-9x8y7z\"}'\n"
            + "curl -H 'Authorization: Bearer Tok-9x8y7z' -H 'Content-Type: application/json' 'http://127.0.0.1:9/escaped' --data-raw '{\"t\":\"Tok-9x8y7z\",\"e\":\"caf\\u00e9\"}'"
        var literal = ImportedCollection()
        literal.isLiteral = true
        for (index, command) in try CurlImport.parse(curl).enumerated() { literal.items.append(.init(name: "c\(index)", request: command.request)) }
        let (text, session) = try imported(literal)
        let entries = text.components(separatedBy: "\n  c2:")
        #expect(!entries[0].contains("Tok-9x8y7z") && !entries[0].contains("Sid-1a2b3c4d") && entries[0].contains("t=darkest"), "\(text)")
        // The body with an escape is written as it came: a reference would have changed its bytes.
        #expect(entries.count == 2 && entries[1].contains(#"caf\\u00e9"#), "\(text)")
        for item in literal.items {
            let sent = try session.request(named: item.name).0
            #expect(sent.customURL == item.request.customURL && sent.requestSerializer == item.request.requestSerializer, "\(item.name)")
        }
        let postman = #"{"info":{"name":"c"},"auth":{"type":"bearer","bearer":[{"key":"token","value":"PmTok-5e6f7g8h"}]},"item":[{"name":"p","request":{"method":"GET","url":"http://127.0.0.1:9/p/PmTok-5e6f7g8h"}}]}"#
        let fromPostman = try imported(try PostmanImport.parse(Data(postman.utf8)))
        #expect(!fromPostman.text.contains("PmTok-5e6f7g8h"), "\(fromPostman.text)")
        #expect(try fromPostman.session.request(named: "p").0.customURL == "http://127.0.0.1:9/p/PmTok-5e6f7g8h")
        let fromHTTP = try imported(try HTTPFileImport.parse("@when = 10:30@UTC-long-enough\nGET http://127.0.0.1:9/w?at={{when}}\n"))
        #expect(fromHTTP.text.contains("10:30@UTC-long-enough") && !fromHTTP.text.contains("when_password"), "\(fromHTTP.text)")
    }

    @Test("a variable named as the logs name secrets (password, api_token, client_secret) goes to the secrets file wherever it is used; a number under such a name stays (found by a new user's trial: `?u={{password}}` kept it in curlew.yaml)")
    func secretNamedVariablesMoved() throws {
        let http = """
            @password = HttpVarPassword55
            @api_token = HttpVarApiToken66
            @max_token = 100
            @pin_password = 1234
            @hex_token = 0x1F2E3D
            @zero_password = 0012345
            GET http://127.0.0.1:9/get?u={{password}}&m={{max_token}}&p={{pin_password}}&h={{hex_token}}&z={{zero_password}}
            """
        let postman = #"{"info":{"name":"c"},"variable":[{"key":"client_secret","value":"PmClientSecret7"},{"key":"apiPassword","value":"PmApiPw8"}],"item":[{"name":"p","request":{"method":"GET","url":"http://127.0.0.1:9/get?a={{apiPassword}}"}}]}"#
        let environment = #"{"name":"prod","values":[{"key":"password","value":"PmEnvPw9","enabled":true}]}"#
        for collection in [try HTTPFileImport.parse(http), try PostmanImport.parse(Data(postman.utf8)), try PostmanImport.parse(Data(environment.utf8))] {
            let files = try WorkspaceFiles()
            let path = files.directory + "/curlew.yaml"
            try WorkspaceWriter.add(collection, to: path)
            let text = try String(contentsOfFile: path, encoding: .utf8)
            // Numbers as JSON writes them stay; `0x1F2E3D` and `0012345` are text, as a hex key or a PIN is (found by a new user's trial).
            for secret in ["HttpVarPassword55", "HttpVarApiToken66", "PmClientSecret7", "PmApiPw8", "PmEnvPw9", "0x1F2E3D", "0012345"] {
                #expect(!text.contains(secret), "\(secret) in \(text)")
            }
            if collection.variables.contains(where: { $0.name == "max_token" }) {
                #expect(text.contains("max_token: \"100\"") && text.contains("pin_password: \"1234\""), "a number under a secret name stays: \(text)")
                let session = try WorkspaceSession(try Workspace.load(path: path))
                #expect(try session.request(named: "GET /get").0.customURL == "http://127.0.0.1:9/get?u=HttpVarPassword55&m=100&p=1234&h=0x1F2E3D&z=0012345")
            }
        }
    }

    @Test("an import keeps out of curlew.yaml a URL password a Referer holds, a variable used as a URL's password, a credential a request's name would repeat, and an ignored proxy's password; a boolean under a secret name stays (found by a new user's trial)")
    func trialLeaks() throws {
        let files = try WorkspaceFiles()
        let path = files.directory + "/curlew.yaml"
        let commands = "curl 'http://127.0.0.1:9/anything/a' -H 'Referer: http://u:RefPw-bbbb0002@h/'\n"
            + "curl 'http://127.0.0.1:9/anything/k/HdrPath12345' -H 'X-Api-Key: HdrPath12345'\n"
            + "curl -x http://pu:ProxyPw-9999@127.0.0.1:3128 'http://127.0.0.1:9/anything/n' --json '{\"password\":123456,\"token\":true}'"
        let parsed = try CurlImport.parse(commands)
        #expect(parsed[2].ignored.contains { $0.hasPrefix("-x ") } && !parsed[2].ignored.joined().contains("ProxyPw-9999"), "\(parsed[2].ignored)")
        var literal = ImportedCollection()
        literal.isLiteral = true
        for command in parsed { literal.items.append(.init(name: ImportedCollection.defaultName(command.request), request: command.request)) }
        try WorkspaceWriter.add(literal, to: path)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        for secret in ["RefPw-bbbb0002", "HdrPath12345", "hdrpath12345"] { #expect(!text.contains(secret), "\(secret) in \(text)") }
        #expect(text.contains("GET /anything/k/[REDACTED]") && text.contains(#"\"token\":true"#) && !text.contains("_token"), "\(text)")
        let session = try WorkspaceSession(try Workspace.load(path: path))
        #expect(try session.request(named: "GET /anything/a").0.headers["Referer"] == "http://u:RefPw-bbbb0002@h/")
        #expect(try session.request(named: "GET /anything/k/[REDACTED]").0.customURL == "http://127.0.0.1:9/anything/k/HdrPath12345")
        // Found by a second trial: URLs a JSON body's strings hold.
        let json = try WorkspaceFiles()
        let jsonPath = json.directory + "/curlew.yaml"
        let body = #"{"cb":"http://u:JsonUrlPw-0007@h/","link":"/cb?token=LinkTok-0008","n":[{"u":"https://a:NestPw-0009@h/x"}],"plain":"http://h/ok"}"#
        let jsonRequest = try #require(try CurlImport.parse("curl http://127.0.0.1:9/post --json '\(body)'").first).request
        var jsonCollection = ImportedCollection()
        jsonCollection.items = [.init(name: "json", request: jsonRequest)]
        try WorkspaceWriter.add(jsonCollection, to: jsonPath)
        let jsonText = try String(contentsOfFile: jsonPath, encoding: .utf8)
        for secret in ["JsonUrlPw-0007", "LinkTok-0008", "NestPw-0009"] { #expect(!jsonText.contains(secret), "\(secret) in \(jsonText)") }
        #expect(jsonText.contains("http://h/ok"))
        let sentBody = try WorkspaceSession(try Workspace.load(path: jsonPath)).request(named: "json").0.requestSerializer
        guard case .raw(let sentData, _) = sentBody else { Issue.record("no body"); return }
        #expect(try JSONValue.parse(sentData) == (try JSONValue.parse(Data(body.utf8))))
        let http = try WorkspaceFiles()
        let httpPath = http.directory + "/curlew.yaml"
        try WorkspaceWriter.add(try HTTPFileImport.parse("@pass = HttpUPw-6001\nGET http://user:{{pass}}@127.0.0.1:9/anything/u\n"), to: httpPath)
        #expect(!(try String(contentsOfFile: httpPath, encoding: .utf8)).contains("HttpUPw-6001"))
    }

    @Test("a credential repeated into a long stretch no reference may stand in is passed over in time proportional to it (found by review: the search restarted one byte on)")
    func repeatsInCoveredStretch() throws {
        let token = String(repeating: "k", count: 20_000)
        var request = Request(.post, "http://127.0.0.1:9/x", headers: ["Authorization": "Bearer \(token)"])
        request.requestSerializer = .raw(Data(("{{" + String(repeating: "k", count: 2_000_000)).utf8), contentType: "text/plain")
        var collection = ImportedCollection()
        let start = ContinuousClock.now
        let moved = WorkspaceWriter.movingCredentials(of: request, named: "x", into: &collection, avoiding: [])
        #expect(ContinuousClock.now - start < .seconds(20))
        #expect(moved.requestSerializer == request.requestSerializer && moved.headers["Authorization"] == "{{x_authorization}}")
    }

    @Test(".http: thousands of variables set again and requests using a named response are read in time proportional to the file (found by review: each searched all before it); paths spelled alike capture into variables of their own")
    func httpFileManyReferences() throws {
        let count = 20_000
        let variables = (0..<count).map { "@v\($0 % 100) = \($0)" }.joined(separator: "\n")
        let requests = (0..<count).map { "###\nGET http://h/\($0)\nX-T: {{r0.response.body.$.t}}" }.joined(separator: "\n")
        let text = variables + "\n\n# @name r0\nGET http://h/login\n\n" + requests + "\n"
        let start = ContinuousClock.now
        let collection = try HTTPFileImport.parse(text)
        #expect(ContinuousClock.now - start < .seconds(30))
        #expect(collection.variables.count == 100 && collection.variables.first { $0.name == "v7" }?.value == "\(count - 93)")
        #expect(collection.variables.last?.name == "v99" && collection.items.count == count + 1)
        #expect(collection.chains.first?.steps.count == count + 1 && collection.chains.first?.steps[0].captures.map(\.name) == ["r0_t"])
        // Found by review: `$.a.b` and `$.ab` both read as `ab`, and the second use read the first's value.
        let alike = try HTTPFileImport.parse("# @name s\nGET http://h/s\n\n###\nGET http://h/u?x={{s.response.body.$.a.b}}&y={{s.response.body.$.ab}}&z={{s.response.body.$.a.b}}\n")
        #expect(alike.items.last?.request.customURL == "http://h/u?x={{s_ab}}&y={{s_ab_2}}&z={{s_ab}}")
        #expect(alike.chains.first?.steps[0].captures.map(\.name) == ["s_ab", "s_ab_2"])
    }

    @Test(".http: a `# @name` given twice is imported numbered, with a note, and a use of its response reads the nearest one above it, as the file runs (found by review: every use read the first)")
    func httpFileNameGivenTwice() throws {
        let collection = try HTTPFileImport.parse("""
            # @name login
            POST http://h/login?as=ann

            ###
            GET http://h/a
            Authorization: Bearer {{login.response.body.$.token}}

            ###
            # @name login
            POST http://h/login?as=bob

            ###
            GET http://h/b
            Authorization: Bearer {{login.response.body.$.token}}
            """)
        #expect(collection.items.map(\.name) == ["login", "GET /a", "login 2", "GET /b"])
        #expect(collection.notes.contains { $0.hasPrefix("line 10: a second request named login is imported as login 2") }, "\(collection.notes)")
        let chain = try #require(collection.chains.first)
        #expect(chain.steps.map(\.request) == ["login", "GET /a", "login 2", "GET /b"])
        // Both capture into the variable the uses read: at each use, the latest answer.
        #expect(chain.steps[0].captures.map(\.name) == ["login_token"] && chain.steps[2].captures.map(\.name) == ["login_token"])
        #expect(collection.items[3].request.headers["Authorization"] == "Bearer {{login_token}}")
        // A captured value never takes a name the file gives a variable (found by a new user's trial: the static value was replaced).
        let clash = try HTTPFileImport.parse("@login_token = static\n# @name login\nPOST http://h/login\n\n###\nGET http://h/a\nX-Static: {{login_token}}\nX-Dyn: {{login.response.body.$.token}}\n")
        #expect(clash.items[1].request.headers["X-Static"] == "{{login_token}}" && clash.items[1].request.headers["X-Dyn"] == "{{login_token_2}}")
        #expect(clash.chains.first?.steps.first?.captures.map(\.name) == ["login_token_2"])
    }

    @Test(".http: a multipart body goes out with CRLF line ends, as the clients send it, and an export of one imports to the same bytes (found by a new user's trial: its CRs were lost)")
    func httpFileMultipartRoundTrip() throws {
        let body = "--b\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nhi\r\n--b--\r\n"
        let message = Fixtures.message(method: "POST", url: "http://h/post", requestHeaders: [HeaderField(name: "Content-Type", value: "multipart/form-data; boundary=b")],
                                       requestBody: body)
        let exported = HTTPFileExport.text([message])
        #expect(!exported.contains("\r"), "\(exported.debugDescription)")
        let imported = try HTTPFileImport.parse(exported)
        guard case .raw(let data, let type)? = imported.items.first?.request.requestSerializer else { Issue.record("no body"); return }
        #expect(String(decoding: data, as: UTF8.self) == body && type.hasPrefix("multipart/form-data"), "\(String(decoding: data, as: UTF8.self).debugDescription) \(exported.debugDescription)")
        // A part holding a bare line feed cannot go through the file so: left out with a comment
        // among the headers, which an import reads as no body (found by review).
        let unix = Fixtures.message(method: "POST", url: "http://h/post", requestHeaders: [HeaderField(name: "Content-Type", value: "multipart/form-data; boundary=b")],
                                    requestBody: "--b\r\n\r\nline1\nline2\r\n--b--\r\n")
        let left = HTTPFileExport.text([unix])
        #expect(left.contains("# a body of ") && !left.contains("line1"), "\(left)")
        let leftImported = try HTTPFileImport.parse(left)
        let noBody = try #require(leftImported.items.first?.request)
        if case .raw = noBody.requestSerializer { Issue.record("the comment was read as a body") }
        // The import says so, rather than making a POST without a body in silence (found by review).
        #expect(leftImported.notes.contains { $0.contains("the file says its body of 27 bytes was not written") && $0.contains("imported without a body") },
                "\(leftImported.notes)")
        #expect(HTTPFileExport.sizeLeftOut(saidBy: "a body of x bytes that an .http file cannot hold as sent is not written") == nil)
    }

    @Test(".http: a request line that is not one is an error with its line")
    func httpFileErrors() throws {
        // A method other than the common ones, in capitals, as an export writes a log's (found by a new user's trial).
        let dav = try HTTPFileImport.parse("MKCALENDAR http://h/cal\n\n###\nPROPFIND http://h/dav HTTP/1.1\n")
        #expect(dav.items.map(\.request.method.rawValue) == ["MKCALENDAR", "PROPFIND"])
        // In small letters before what can only be a URL, in capitals (found by a new user's trial: `purge` was refused).
        let small = try HTTPFileImport.parse("purge http://h/cache\n\n###\nreport /dav\n\n###\nlink {{base}}/x\n")
        #expect(small.items.map(\.request.method.rawValue) == ["PURGE", "REPORT", "LINK"])
        #expect(throws: HTTPFileImport.Failure.self) { try HTTPFileImport.parse("###\nsome words here\n") }
        let error = #expect(throws: HTTPFileImport.Failure.self) { try HTTPFileImport.parse("###\nGET a b c\n") }
        #expect(error?.line == 2)
        // A use of a response no request before it is named: the line of the request that uses
        // it, not the first line after `###` (found by a new user's trial).
        let unnamed = #expect(throws: HTTPFileImport.Failure.self) {
            try HTTPFileImport.parse("GET http://h/a\n\n###\n\n# a comment\n@v = 1\nGET http://h/{{x.response.body.$.id}}\n")
        }
        #expect(unnamed?.line == 7, "\(String(describing: unnamed))")
    }

    static let postman = #"""
    {"info": {"name": "Shop", "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"},
     "auth": {"type": "bearer", "bearer": [{"key": "token", "value": "{{token}}", "type": "string"}]},
     "variable": [{"key": "base", "value": "https://shop.example"}],
     "item": [
      {"name": "Orders", "item": [
        {"name": "List orders", "request": {"method": "GET", "header": [{"key": "Accept", "value": "application/json"}, {"key": "X-Off", "value": "1", "disabled": true}],
          "url": {"raw": "{{base}}/orders?page=1", "host": ["{{base}}"], "path": ["orders"], "query": [{"key": "page", "value": "1"}]}}},
        {"name": "Create order", "request": {"method": "POST", "url": "{{base}}/orders",
          "body": {"mode": "raw", "raw": "{\"id\": \"{{$guid}}\"}", "options": {"raw": {"language": "json"}}}},
          "event": [{"listen": "test", "script": {"exec": ["pm.test()"]}}]}
      ]},
      {"name": "Login", "request": {"method": "POST", "url": "{{base}}/login", "auth": {"type": "basic", "basic": [{"key": "username", "value": "ann"}, {"key": "password", "value": "{{pw}}"}]},
        "body": {"mode": "urlencoded", "urlencoded": [{"key": "remember", "value": "yes"}]}}},
      {"name": "Upload", "request": {"method": "POST", "url": "{{base}}/up", "auth": {"type": "noauth"},
        "body": {"mode": "formdata", "formdata": [{"key": "f", "type": "file", "src": "/tmp/a.txt"}, {"key": "n", "value": "v", "type": "text"}]}}}
     ]}
    """#

    @Test("a Postman item that is neither a request nor a folder, or a request without a URL, is left out with a note (found by a new user's trial: skipped silently, or written with an empty URL)")
    func postmanOddItems() throws {
        let text = #"{"info":{"name":"x"},"item":[{"name":"odd"},{"name":"nourl","request":{"method":"GET"}},{"name":"fine","request":"http://a.test/a"}]}"#
        let collection = try PostmanImport.parse(Data(text.utf8))
        #expect(collection.items.map(\.name) == ["fine"])
        #expect(collection.notes.contains("odd: neither a request nor a folder; left out"), "\(collection.notes)")
        #expect(collection.notes.contains("nourl: no URL; left out"), "\(collection.notes)")
    }

    @Test("Postman v2.1: folders, inherited and own auth, bodies, variables; scripts are noted")
    func postmanCollection() throws {
        let collection = try PostmanImport.parse(Data(Self.postman.utf8))
        #expect(collection.items.map(\.name) == ["List orders", "Create order", "Login", "Upload"])
        #expect(collection.items.map(\.folder) == ["Orders", "Orders", nil, nil])
        #expect(collection.variables.map(\.name) == ["base"])
        let list = collection.items[0].request
        #expect(list.customURL == "{{base}}/orders?page=1")
        #expect(list.headers["Authorization"] == "Bearer {{token}}")
        #expect(list.headers["X-Off"] == nil)
        let create = collection.items[1].request
        #expect(create.requestSerializer == .raw(Data(#"{"id": "{{$uuid}}"}"#.utf8), contentType: "application/json"))
        let login = collection.items[2].request
        #expect(login.headers["Authorization"] == "Basic {{$base64 ann:{{pw}}}}")
        #expect(login.params["remember"] == "yes")
        #expect(collection.items[3].request.headers["Authorization"] == nil)
        #expect(collection.items[3].request.form?.parts.count == 2)
        #expect(collection.notes.contains { $0.contains("Create order") })
    }

    @Test("a Postman environment: plain values become an environment, secret ones go to the secrets file")
    func postmanEnvironment() throws {
        let data = Data(#"{"name": "Staging", "values": [{"key": "base", "value": "https://s", "enabled": true}, {"key": "token", "value": "t0k", "type": "secret", "enabled": true}, {"key": "off", "value": "x", "enabled": false}]}"#.utf8)
        let collection = try PostmanImport.parse(data)
        #expect(collection.environments.first?.name == "Staging")
        #expect(collection.environments.first?.variables.map(\.name) == ["base"])
        #expect(collection.secrets == [.init(name: "token", value: "t0k", environment: "Staging")])
    }

    @Test("Postman: a URL given in parts keeps its port, and a space is sent as Postman sends it (found by a new user's trial)")
    func postmanPortsAndSpaces() throws {
        let document = #"""
        {"info": {"name": "c", "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"},
         "variable": [{"key": "apiSecret", "value": "VARSEC-2"}, {"key": "base", "value": "http://h"}],
         "item": [{"name": "parts", "request": {"method": "GET", "url": {"protocol": "http", "host": ["127", "0", "0", "1"], "port": "18080", "path": ["get", "a b"]}}},
                  {"name": "raw", "request": {"method": "GET", "url": {"raw": "{{base}}/x y?q={{ v }}"}}}]}
        """#
        let collection = try PostmanImport.parse(Data(document.utf8))
        #expect(collection.items.map { $0.request.customURL } == ["http://127.0.0.1:18080/get/a%20b", "{{base}}/x%20y?q={{ v }}"])
    }

    @Test("Postman path variables are filled in one pass: a value naming another variable stays as written, `:id` is not a prefix of `:idx`, and many templates beside a space cost linear time (found by review: a 1 KB file doubled the URL forty times)")
    func postmanPathVariablesOnce() throws {
        let names = (0..<40).map { "v\($0)" }
        let variables = names.indices.map { #"{"key":"\#(names[$0])","value":":\#(names[min($0 + 1, 39)]):\#(names[min($0 + 1, 39)])"}"# }.joined(separator: ",")
        let document = #"{"info":{"name":"c"},"item":[{"name":"doubling","request":{"method":"GET","url":{"raw":"http://h/:v0","variable":[\#(variables)]}}},"#
            + #"{"name":"prefix","request":{"method":"GET","url":{"raw":"http://h/users/:id/:idx/:id.json/:file.json","variable":[{"key":"id","value":"7"},{"key":"idx","value":"8"},{"key":"id","value":"9"},{"key":"file.json","value":"f"}]}}},"#
            + #"{"name":"spaces","request":{"method":"GET","url":{"raw":"http://h/a b/\#(String(repeating: "{{a}}", count: 200_000))"}}}]}"#
        let start = ContinuousClock.now
        let collection = try PostmanImport.parse(Data(document.utf8))
        #expect(ContinuousClock.now - start < .seconds(20))
        #expect(collection.items.map { $0.request.customURL }.prefix(2) == ["http://h/:v1:v1", "http://h/users/7/8/7.json/f"])
        #expect(collection.items[2].request.customURL?.hasPrefix("http://h/a%20b/{{a}}{{a}}") == true)
        // A value repeated into a URL past what a request head carries leaves the variables as written.
        let long = String(repeating: "x", count: 600_000)
        let tooLong = #"{"info":{"name":"c"},"item":[{"name":"long","request":{"method":"GET","url":{"raw":"http://h/:a/:a","variable":[{"key":"a","value":"\#(long)"}]}}}]}"#
        let kept = try PostmanImport.parse(Data(tooLong.utf8))
        #expect(kept.items.first?.request.customURL == "http://h/:a/:a")
        #expect(kept.notes.contains("long: its path variables would make the URL longer than a request can carry, so they are left as written"), "\(kept.notes)")
    }

    @Test("HAR from a browser: BOM, vendor fields, missing optional fields, local-offset times, HTTP/2 pseudo-headers")
    func harImport() throws {
        let text = "\u{FEFF}" + #"""
        {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"}, "_vendor": 1,
         "entries": [
          {"startedDateTime": "2024-05-01T10:00:00.123+02:00", "time": 30.5, "_initiator": {"type": "script"},
           "request": {"method": "POST", "url": "https://h.example/api?q=1", "httpVersion": "h2",
             "headers": [{"name": ":authority", "value": "h.example"}, {"name": "content-type", "value": "application/json"}],
             "postData": {"mimeType": "application/json", "text": "{\"a\":1}"}},
           "response": {"status": 201, "statusText": "", "httpVersion": "h2", "headers": [], "content": {"size": 2, "mimeType": "application/json", "text": "{}"}},
           "timings": {"blocked": 1, "dns": -1, "connect": 10, "ssl": 6, "send": 0.5, "wait": 12, "receive": 1}},
          {"startedDateTime": "2024-05-01T08:00:01Z", "request": {"method": "GET", "url": "https://h.example/x"},
           "response": {"status": 0, "_error": "net::ERR_CONNECTION_REFUSED"}}
         ]}}
        """#
        let messages = try HARImport.messages(Data(text.utf8))
        #expect(messages.count == 2)
        #expect(messages[0].startedAt == Date(timeIntervalSince1970: 1_714_550_400.123))
        #expect(messages[0].timings?.tls == 6000 && messages[0].timings?.connect == 4000 && messages[0].timings?.dns == nil)
        #expect(messages[0].response?.statusCode == 201)
        #expect(messages[1].error?.message == "net::ERR_CONNECTION_REFUSED")
        let collection = try HARImport.collection(Data(text.utf8))
        #expect(collection.items[0].request.headers[":authority"] == nil)
        #expect(collection.items[0].request.requestSerializer == .raw(Data(#"{"a":1}"#.utf8), contentType: "application/json"))
        #expect(collection.items.map(\.folder) == ["h.example", "h.example"])
        #expect(throws: HARImport.Failure.self) { try HARImport.messages(Data("{\"log\": {}}".utf8)) }
    }

    @Test("a name made from a megabyte path is cut to 120 characters, and so is a name a note shows (found by a new user's trial: a 2 MB note line)")
    func longNamesCut() throws {
        let path = "/" + String(repeating: "A", count: 2_000_000)
        let sendable = "/" + String(repeating: "B", count: 200_000)
        let text = #"{"log": {"entries": [{"request": {"method": "GET /x HTTP/1.1", "url": "http://h\#(path)"}, "response": {"status": 200}},"#
            + #"{"request": {"method": "GET", "url": "http://h\#(sendable)"}, "response": {"status": 200}}]}}"#
        var collection = try HARImport.collection(Data(text.utf8))
        collection.dropUnsendable()
        #expect(collection.notes.count == 1 && collection.notes.allSatisfy { $0.count < 400 }, "\(collection.notes.map(\.count))")
        #expect(collection.notes.first?.contains("is not an HTTP token") == true, "\(collection.notes)")
        #expect(collection.items.count == 1 && collection.items[0].name.count == 121 && collection.items[0].name.hasSuffix("…"))
        #expect((collection.items[0].request.customURL ?? collection.items[0].request.path).count > 200_000, "the request keeps its URL")
        // Hidden before it is cut: no first part of a password is left.
        let name = ImportedCollection.defaultName(method: "GET", url: "http://bob:Pw0rdLongSecret@h/" + String(repeating: "b", count: 110) + "/Pw0rdLongSecret")
        #expect(!name.contains("Pw0rd") && name.count <= 121, "\(name)")
    }

    @Test("a HAR entry without a request, a method or a URL refuses the file, naming the entry, instead of showing a made-up GET")
    func harEntryWithoutRequest() throws {
        // One that failed before it was sent (its response has an `_error`) may have neither.
        let unsent = #"{"log": {"entries": [{"request": {"method": "", "url": ""}, "response": {"status": 0, "_error": "invalidURL: no URL"}}]}}"#
        #expect(try HARImport.messages(Data(unsent.utf8)).first?.error?.kind == .invalidURL)
        let kept = try HARImport.collection(Data(unsent.utf8))
        #expect(kept.items.isEmpty && kept.notes == ["entry 1 failed before it was sent and has no URL; it is left out"])
        let good = #"{"request": {"method": "GET", "url": "https://h.example/"}, "response": {"status": 200}}"#
        let cases: [(entry: String, reason: String)] = [
            (#"{"request": null, "response": {"status": 200}}"#, "entry 2 has no request (a HAR entry needs one, with its method and URL)"),
            (#"{"response": {"status": 200}}"#, "entry 2 has no request (a HAR entry needs one, with its method and URL)"),
            (#"{"request": "GET /", "response": {"status": 200}}"#, "entry 2 has no request (a HAR entry needs one, with its method and URL)"),
            (#"{"request": {"url": "https://h.example/"}}"#, "entry 2's request has no method"),
            (#"{"request": {"method": "GET", "url": ""}}"#, "entry 2's request has no URL"),
            (#"{"request": {"method": "GET", "url": 7}}"#, "entry 2's request has no URL"),
            ("null", "entry 2 is not an object"),
            (#"{"request": {"method": "GET", "url": ""}, "response": {"status": 200}}"#, "entry 2's request has no URL"),
            // An `_error` beside an answer (Curlew writes one for a status it did not accept) is
            // no sign the request went unsent; nor is one that is not text.
            (#"{"request": {"method": "", "url": ""}, "response": {"status": 200, "_error": "x"}}"#, "entry 2's request has no method"),
            (#"{"request": {"method": "GET", "url": ""}, "response": {"status": 0, "_error": null}}"#, "entry 2's request has no URL"),
        ]
        for (entry, reason) in cases {
            let text = #"{"log": {"entries": ["# + good + ", " + entry + "]}}"
            #expect(throws: HARImport.Failure.self) { try HARImport.messages(Data(text.utf8)) }
            do {
                _ = try HARImport.collection(Data(text.utf8))
                Issue.record("expected \(entry) to refuse the file")
            } catch {
                #expect(error.reason == reason)
            }
        }
    }

    static let openAPI = """
    openapi: 3.1.0
    info: {title: Pets, version: "1"}
    servers:
      - url: https://pets.example/v1
        description: Production
      - url: "http://{host}:8080"
        description: Local
        variables: {host: {default: localhost}}
    paths:
      /pets/{petId}:
        parameters:
          - {name: petId, in: path, required: true, schema: {type: integer}, example: 7}
        get:
          operationId: getPet
          tags: [pets]
          parameters:
            - {name: fields, in: query, required: true, schema: {type: string, default: all}}
            - {name: X-Trace, in: header, schema: {type: string}}
          responses: {"200": {description: ok}}
      /pets:
        post:
          operationId: createPet
          tags: [pets]
          requestBody:
            content:
              application/json:
                schema: {$ref: "#/components/schemas/Pet"}
                example: {name: Rex, age: 3}
          responses: {"201": {description: created}}
    components:
      schemas:
        Pet: {type: object, properties: {name: {type: string}, family: {$ref: "#/components/schemas/Family"}}}
        Family: {type: object, properties: {members: {type: array, items: {$ref: "#/components/schemas/Pet"}}}}
    """

    @Test("OpenAPI 3.1: an operation per request, parameters as variables, examples as bodies, servers as environments, tags as folders; recursive schemas are fine")
    func openAPI31() throws {
        let collection = try OpenAPIImport.parse(Data(Self.openAPI.utf8))
        #expect(collection.items.map(\.name) == ["getPet", "createPet"])
        #expect(collection.items.map(\.folder) == ["pets", "pets"])
        let get = collection.items[0].request
        #expect(get.customURL == "{{baseURL}}/pets/{{petId}}")
        #expect(collection.items[0].query == ["fields": "{{fields}}"])
        #expect(get.headers["X-Trace"] == "{{X-Trace}}")
        let create = collection.items[1].request
        #expect(create.method == .post)
        guard case .raw(let body, let type) = create.requestSerializer else { Issue.record("no body"); return }
        #expect(type == "application/json")
        #expect(try JSONValue.parse(body)["name"] == "Rex")
        #expect(collection.environments.map(\.name) == ["production", "local"])
        #expect(collection.environments[1].variables.first?.value == "http://localhost:8080")
        #expect(collection.variables.first { $0.name == "petId" }?.value == "7")
        #expect(collection.variables.first { $0.name == "fields" }?.value == "all")
    }

    @Test("OpenAPI server variables are filled in one pass, and a path parameter the path item and the operation both declare makes one template (found by review: defaults naming variables doubled the URL; `{{{id}}}`)")
    func openAPIPlaceholdersOnce() throws {
        let variables = (0..<40).map { "v\($0): {default: '{v\(min($0 + 1, 39))}{v\(min($0 + 1, 39))}'}" }.joined(separator: ", ")
        let document = """
        openapi: 3.1.0
        info: {title: t, version: '1'}
        servers: [{url: 'http://h/{v0}', variables: {\(variables)}}]
        paths:
          /pets/{id}:
            parameters: [{name: id, in: path, required: true, schema: {type: string}}]
            get:
              operationId: getPet
              parameters: [{name: id, in: path, required: true, schema: {type: string}}]
              responses: {'200': {description: ok}}
        """
        let start = ContinuousClock.now
        let collection = try OpenAPIImport.parse(Data(document.utf8))
        #expect(ContinuousClock.now - start < .seconds(20))
        #expect(collection.environments.first?.variables.first?.value == "http://h/{v1}{v1}", "\(collection.environments) \(collection.notes)")
        #expect(collection.items.first?.request.customURL == "{{baseURL}}/pets/{{id}}")
    }

    @Test("OpenAPI 3.0 JSON converts; Swagger 2 and garbage are refused with a reason")
    func openAPI30() throws {
        let json = #"{"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {"/a": {"delete": {"responses": {"204": {"description": "gone"}}}}}}"#
        let collection = try OpenAPIImport.parse(Data(json.utf8))
        #expect(collection.items.first?.name == "DELETE /a")
        #expect(collection.variables.first?.name == "baseURL")
        // A local YAML tag on a parameter made OpenAPIKit's decoding error trap (found by the
        // fuzz smoke): refused first, with the tag named.
        let tagged = "openapi: 3.1.0\ninfo: {title: t, version: \"1\"}\npaths:\n  /s/{code}:\n    get:\n      paeratmers:\n"
            + "        - {name: code, in: path,!required: true}\n"
        let refused = #expect(throws: OpenAPIImport.Failure.self) { try OpenAPIImport.parse(Data(tagged.utf8)) }
        #expect(refused?.reason.hasPrefix("a YAML tag (!required") == true, "\(String(describing: refused))")
        let swagger = #expect(throws: OpenAPIImport.Failure.self) { try OpenAPIImport.parse(Data(#"{"swagger": "2.0"}"#.utf8)) }
        #expect(swagger?.reason.contains("Swagger 2.0") == true)
        #expect(throws: OpenAPIImport.Failure.self) { try OpenAPIImport.parse(Data("- just a list".utf8)) }
        // The library's reason is shown without its Markdown (found by a new user's trial).
        let noVersion = #expect(throws: OpenAPIImport.Failure.self) { try OpenAPIImport.parse(Data("openapi: 3.0.0\ninfo: {title: x}\npaths: {}\n".utf8)) }
        #expect(noVersion?.reason.contains("find version key") == true && noVersion?.reason.contains("`") == false, "\(String(describing: noVersion))")
        let noResponses = #expect(throws: OpenAPIImport.Failure.self) {
            try OpenAPIImport.parse(Data("openapi: 3.0.0\ninfo: {title: x, version: '1'}\npaths:\n  /a:\n    get: {}\n".utf8))
        }
        #expect(noResponses?.reason.contains("GET endpoint") == true && noResponses?.reason.contains("**") == false
                && noResponses?.reason.hasSuffix("..") == false, "\(String(describing: noResponses))")
    }

    @Test("an OpenAPI reference that cannot be resolved, and a missing or relative server, are named in the notes (a trial found them dropped in silence)")
    func openAPIUnresolvedAndServers() throws {
        let yaml = """
        openapi: 3.1.0
        info: {title: t, version: "1"}
        servers: [{url: /v1}]
        paths:
          /pets:
            post:
              operationId: addPet
              parameters: [{$ref: '#/components/parameters/Missing'}]
              requestBody: {$ref: '#/components/requestBodies/Gone'}
              responses: {"200": {description: ok}}
        """
        let collection = try OpenAPIImport.parse(Data(yaml.utf8))
        #expect(collection.items.map(\.name) == ["addPet"])
        #expect(collection.notes.contains("addPet: the parameter #/components/parameters/Missing cannot be resolved and is left out"), "\(collection.notes)")
        #expect(collection.notes.contains("addPet: the request body #/components/requestBodies/Gone cannot be resolved and is left out"), "\(collection.notes)")
        #expect(collection.notes.contains { $0.hasPrefix("server /v1 is relative") })
        let serverless = try OpenAPIImport.parse(Data(#"{"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {}}"#.utf8))
        #expect(serverless.notes == ["the document names no server: baseURL is http://localhost until you set it"])
        // A server a variable's default gives a port past 65535 makes no environment (found by a
        // new user's trial: it was written as the baseURL).
        let badPort = try OpenAPIImport.parse(Data(#"""
            {"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {},
             "servers": [{"url": "{scheme}://api.example.com:{port}/v1", "variables": {"scheme": {"default": "https"}, "port": {"default": "99999"}}}]}
            """#.utf8))
        #expect(badPort.environments.isEmpty && badPort.variables.first { $0.name == "baseURL" }?.value == "http://localhost", "\(badPort.environments)")
        #expect(badPort.notes.first?.hasPrefix("server \"https://api.example.com:99999/v1\": left out: ") == true, "\(badPort.notes)")
        #expect(badPort.notes.last == "the document names no server that can be used: baseURL is http://localhost until you set it")
        // A server whose variable gives it a scheme is not relative; a path-level parameter that
        // cannot be resolved is named once, not once per operation (found by review).
        let templated = """
        openapi: 3.1.0
        info: {title: t, version: "1"}
        servers: [{url: "{base}/v1", variables: {base: {default: "https://api.test"}}}]
        paths:
          /pets:
            parameters: [{$ref: '#/components/parameters/Shared'}]
            get: {responses: {"200": {description: ok}}}
            delete: {responses: {"204": {description: gone}}}
        """
        let notes = try OpenAPIImport.parse(Data(templated.utf8)).notes
        #expect(notes == ["/pets: the parameter #/components/parameters/Shared cannot be resolved and is left out"], "\(notes)")
    }
}

@Suite("writing to a workspace")
struct WorkspaceWriterTests {
    static func collection(_ requests: [Request]) -> ImportedCollection {
        var collection = ImportedCollection()
        collection.items = requests.map { .init(name: ImportedCollection.defaultName($0), request: $0) }
        return collection
    }

    @Test("an import adds requests, a chain, variables and environments, keeps comments and what exists, and puts secrets in the owner-only secrets file")
    func mergesWithoutClobbering() throws {
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", """
        # top comment
        variables:
          host: https://mine.example   # keep me
        requests:
          login:  # my login
            url: /login
        # a comment between sections
        groups:
          g: {batch: [login]}
        """)
        var collection = try HTTPFileImport.parse(ImportTests.httpFile)
        collection.environments = [("staging", [("host", "https://s.example")])]
        collection.secrets = [.init(name: "apiKey", value: "k3y")]
        let summary = try WorkspaceWriter.add(collection, to: path)
        #expect(summary.requests == ["login 2", "The profile", "upload"])
        #expect(summary.groups == ["chain"])
        #expect(summary.variables == ["user"])
        #expect(summary.kept == ["variable host (the import's value differs: the workspace's is used)"])
        // The login's password in its JSON body is kept with the secrets too.
        #expect(summary.secrets == ["apiKey", "login_2_password"])
        let text = try String(contentsOfFile: path, encoding: .utf8)
        for kept in ["# top comment", "host: https://mine.example   # keep me", "login:  # my login", "# a comment between sections"] {
            #expect(text.contains(kept), "\(kept)")
        }
        #expect(!text.contains("k3y"))
        let workspace = try Workspace.load(path: path)
        #expect(workspace.requests.map(\.name) == ["login", "login 2", "The profile", "upload"])
        #expect(workspace.groups.map(\.name) == ["g", "chain"])
        #expect(workspace.environmentNames == ["staging"])
        #expect(workspace.secretNames == ["apiKey", "login_2_password"])
        let secrets = files.directory + "/curlew.secrets.yaml"
        #expect(try String(contentsOfFile: secrets, encoding: .utf8).contains("k3y"))
        #expect(try FileManager.default.attributesOfItem(atPath: secrets)[.posixPermissions] as? Int == 0o600)
        let session = try WorkspaceSession(workspace)
        let chain = try session.group(named: "chain")
        #expect(chain.kind == .chain)
        #expect(session.secretValues == ["k3y"])
    }

    @Test("an imported request reads back as the same request")
    func requestRoundTrip() throws {
        let files = try WorkspaceFiles()
        let path = files.directory + "/curlew.yaml"
        var request = Request.url("https://h.example/a?b=1", method: .patch, headers: ["X-A": "1", "Content-Type": "application/json"])
        request.requestSerializer = .raw(Data(#"{"n":1,"s":"true","l":[null,2.5]}"#.utf8), contentType: "application/json")
        request.timeout = .milliseconds(2500)
        request.followRedirects = false
        request.tls = TLSOverrides(allowInvalidCertificates: true)
        try WorkspaceWriter.add(Self.collection([request]), to: path)
        let (read, _) = try WorkspaceSession(try Workspace.load(path: path)).request(named: "PATCH /a")
        #expect(read.method == .patch)
        #expect(read.customURL == "https://h.example/a?b=1")
        #expect(read.headers["X-A"] == "1")
        #expect(read.requestSerializer == .raw(Data(#"{"n":1,"s":"true","l":[null,2.5]}"#.utf8), contentType: "application/json"))
        #expect(read.timeout == .milliseconds(2500))
        #expect(read.followRedirects == false)
        #expect(read.tls?.allowInvalidCertificates == true)
    }
}

@Suite("writing to a workspace: review fixes")
struct WorkspaceWriterReviewTests {
    @Test("credentials an import carries go to the secrets file, named as variables in the workspace")
    func credentialsBecomeSecrets() throws {
        let files = try WorkspaceFiles()
        let path = files.directory + "/curlew.yaml"
        let imported = try CurlImport.parse("curl -u ann:pw -b 'sid=abc' -H 'X-Api-Key: k3y' http://h/users")
        try WorkspaceWriter.add(WorkspaceWriterTests.collection(imported.map(\.request)), to: path)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        for secret in ["abc", "k3y", Data("ann:pw".utf8).base64EncodedString()] { #expect(!text.contains(secret), "\(secret)") }
        let session = try WorkspaceSession(try Workspace.load(path: path))
        let request = try session.request(named: "GET /users").0
        #expect(request.headers["Authorization"] == "Basic " + Data("ann:pw".utf8).base64EncodedString())
        #expect(request.headers["Cookie"] == "sid=abc")
        #expect(session.secretValues.contains("k3y"))
        // Importing again neither duplicates a secret nor breaks the files.
        try WorkspaceWriter.add(WorkspaceWriterTests.collection(imported.map(\.request)), to: path)
        _ = try WorkspaceSession(try Workspace.load(path: path))
    }

    @Test("a secret pair after `;`, in a URL's query or a form body, goes to the secrets file as the log hides it, its value running on past a `;` to the `&`; the request sends the same (found by a new user's trial: `?page=1;token=…` stayed in curlew.yaml)")
    func semicolonPairsBecomeSecrets() throws {
        let files = try WorkspaceFiles()
        let path = files.directory + "/curlew.yaml"
        let commands = """
        curl 'http://h/a?page=1;token=Tok3nSemi&x=1'
        curl 'http://h/b?token=Tok3n;tail&x=1'
        curl -d 'a=1;password=Passw0rdSemi&b=2' http://h/c
        curl -d 'password=correct horse battery&x=1' http://h/d
        curl 'http://h/e?redirect=https://app/cb;access_token=Acc3ssSemi&x=1'
        """
        let imported = try CurlImport.parse(commands)
        try WorkspaceWriter.add(WorkspaceWriterTests.collection(imported.map(\.request)), to: path)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        for secret in ["Tok3nSemi", "Tok3n;tail", "tail", "Passw0rdSemi", "horse", "Acc3ssSemi"] { #expect(!text.contains(secret), "\(secret) in \(text)") }
        let session = try WorkspaceSession(try Workspace.load(path: path))
        let urls = try ["GET /a", "GET /b"].map { try session.request(named: $0).0.customURL }
        #expect(urls == ["http://h/a?page=1;token=Tok3nSemi&x=1", "http://h/b?token=Tok3n;tail&x=1"])
        #expect(try session.request(named: "GET /e").0.customURL == "http://h/e?redirect=https://app/cb;access_token=Acc3ssSemi&x=1")
        #expect(try session.request(named: "POST /c").0.requestSerializer == .raw(Data("a=1;password=Passw0rdSemi&b=2".utf8), contentType: "application/x-www-form-urlencoded"))
        #expect(try session.request(named: "POST /d").0.requestSerializer == .raw(Data("password=correct horse battery&x=1".utf8), contentType: "application/x-www-form-urlencoded"))
    }

    @Test("a name a Postman collection or environment gives twice is one name with its last value, said in a note, instead of a workspace naming a key twice or a secret said to be the workspace's (found by a new user's trial)")
    func repeatedNamesFold() throws {
        let files = try WorkspaceFiles()
        let path = files.directory + "/curlew.yaml"
        var collection = try PostmanImport.parse(Data(#"""
        {"info": {"name": "Dup", "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"},
         "variable": [{"key": "base", "value": "http://127.0.0.1:1"}, {"key": "base", "value": "http://127.0.0.1:2"}, {"key": "other", "value": "o"}],
         "item": [{"name": "get", "request": {"method": "GET", "url": "{{base}}/get"}}]}
        """#.utf8))
        collection.foldRepeatedNames()
        #expect(collection.variables.map { [$0.name, $0.value] } == [["base", "http://127.0.0.1:2"], ["other", "o"]])
        #expect(collection.notes == ["variable base is given more than once; the last value is kept"])
        try WorkspaceWriter.add(collection, to: path)
        var environment = try PostmanImport.parse(Data(#"""
        {"name": "dev", "values": [{"key": "pw", "value": "FirstPw1", "type": "secret"}, {"key": "pw", "value": "SecondPw2", "type": "secret"},
                                   {"key": "host", "value": "a"}, {"key": "host", "value": "b"}]}
        """#.utf8))
        environment.foldRepeatedNames()
        #expect(environment.secrets.map(\.value) == ["SecondPw2"] && environment.environments.first?.variables.map(\.value) == ["b"])
        #expect(environment.notes.count == 2 && !environment.notes.joined().contains("FirstPw1") && !environment.notes.joined().contains("SecondPw2"))
        let summary = try WorkspaceWriter.add(environment, to: path)
        #expect(summary.kept.isEmpty, "\(summary.kept)")
        // One key typed secret once and plain once stays a secret, in either order; a disabled
        // collection variable is none (found by a new user's trial: the import was refused).
        for values in [#"[{"key": "plain", "value": "PlainOne1"}, {"key": "plain", "value": "SecretTwo2", "type": "secret"}]"#,
                       #"[{"key": "plain", "value": "SecretTwo2", "type": "secret"}, {"key": "plain", "value": "PlainOne1"}]"#] {
            var mixed = try PostmanImport.parse(Data((#"{"name": "stage", "values": "# + values + "}").utf8))
            mixed.foldRepeatedNames()
            #expect(mixed.environments.first?.variables.isEmpty == true && mixed.secrets.map(\.name) == ["plain"], "\(mixed.notes)")
            let mixedFiles = try WorkspaceFiles()
            try WorkspaceWriter.add(mixed, to: mixedFiles.directory + "/curlew.yaml")
        }
        let disabled = try PostmanImport.parse(Data(#"""
        {"info": {"name": "D", "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"},
         "variable": [{"key": "v", "value": "good"}, {"key": "v", "value": "off", "disabled": true}], "item": []}
        """#.utf8))
        #expect(disabled.variables.map(\.value) == ["good"])
        let session = try WorkspaceSession(try Workspace.load(path: path), environment: "dev")
        #expect(session.secretValues.contains("SecondPw2") && !session.secretValues.contains("FirstPw1"))
        #expect(try session.request(named: "get").0.customURL == "http://127.0.0.1:2/get")
    }

    @Test("a -u password the URL's path and query repeat names the same secret there, and the request still sends the same URL; bytes the URL holds only percent-encoded stay (found by a new user's trial: the path kept it in clear)")
    func basicPasswordRepeatedInURL() throws {
        let files = try WorkspaceFiles()
        let path = files.directory + "/curlew.yaml"
        let url = "http://h/basic-auth/ann/Sekr3tPw?again=Sekr3tPw"
        let imported = try CurlImport.parse("curl -u ann:Sekr3tPw '\(url)'")
        try WorkspaceWriter.add(WorkspaceWriterTests.collection(imported.map(\.request)), to: path)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!text.contains("Sekr3tPw"), "\(text)")
        let session = try WorkspaceSession(try Workspace.load(path: path))
        let (request, _) = try session.request(named: "GET /basic-auth/ann/[REDACTED]")
        #expect(request.customURL ?? request.path == url)
        #expect(request.headers["Authorization"] == "Basic " + Data("ann:Sekr3tPw".utf8).base64EncodedString())
        // A password the URL holds percent-encoded (`p@ss w0rd` as `p%40ss%20w0rd`) goes to a secret
        // holding that form, so the URL put back is the same bytes (found by a new user's trial).
        var collection = ImportedCollection()
        for item in try CurlImport.parse("curl -u 'bob:p@ss w0rd' 'http://h/basic-auth/bob/p%40ss%20w0rd'") + CurlImport.parse("curl -u bob:plainPw9 http://h/x/plainPw9/") {
            collection.items.append(.init(name: "enc", request: item.request))
        }
        let moved = collection.items.map { WorkspaceWriter.movingCredentials(of: $0.request, named: "enc", into: &collection, avoiding: []) }
        #expect(moved[0].customURL ?? moved[0].path == "http://h/basic-auth/bob/{{enc_password}}")
        #expect(collection.secrets.first { $0.name == "enc_password" }?.value == "p%40ss%20w0rd")
        #expect(moved[1].customURL ?? moved[1].path == "http://h/x/{{enc_password_2}}/")
        #expect(collection.secrets.first { $0.name == "enc_password_2" }?.value == "plainPw9")
        // Encoded only in part, or otherwise than the user info writes it: a form of its own,
        // held as written (found by a trial: `p@ss%20w0rd` stayed in the workspace in clear).
        var mixed = ImportedCollection()
        for command in ["curl -u 'bob:p@ss w0rd' 'http://h/a/p@ss%20w0rd/p%40ss%20w0rd?q=p%40ss+w0rd'",
                        "curl 'http://bob:p%40ss%20w0rd@h/b/p@ss%20w0rd'"] {
            let item = try #require(try CurlImport.parse(command).first)
            mixed.items.append(.init(name: "mix", request: item.request))
        }
        let mixedMoved = mixed.items.map { WorkspaceWriter.movingCredentials(of: $0.request, named: "mix", into: &mixed, avoiding: []) }
        #expect(mixedMoved[0].customURL ?? mixedMoved[0].path == "http://h/a/{{mix_password}}/{{mix_password_2}}?q={{mix_password_3}}")
        // The same written form met again is the same secret.
        #expect(mixedMoved[1].customURL ?? mixedMoved[1].path == "http://bob:{{mix_password_2}}@h/b/{{mix_password}}")
        #expect(mixed.secrets.filter { $0.name.contains("_password") }.map(\.value) == ["p@ss%20w0rd", "p%40ss%20w0rd", "p%40ss+w0rd"], "\(mixed.secrets)")
        // A user info's password with no escape of its own, repeated escaped (found by review),
        // and a hostile URL spelling one password many ways: at most `maximumSpelledForms` named.
        var plainOwn = ImportedCollection()
        let own9 = try #require(try CurlImport.parse("curl 'http://bob:hunter2hunter2@h/x/hunter%32hunter2'").first)
        plainOwn.items.append(.init(name: "own9", request: own9.request))
        let ownMoved = WorkspaceWriter.movingCredentials(of: own9.request, named: "own9", into: &plainOwn, avoiding: [])
        #expect(ownMoved.customURL ?? ownMoved.path == "http://bob:{{own9_password}}@h/x/{{own9_password_2}}")
        var spelled = ImportedCollection()
        func spelling(escaping positions: Set<Int>) -> String {
            "/" + "pw8chars".utf8.enumerated().map { index, byte in
                positions.contains(index) ? "%" + String(byte, radix: 16, uppercase: true) : String(Unicode.Scalar(byte))
            }.joined()
        }
        let extra = 3
        let spellings = (1...(WorkspaceWriter.maximumSpelledForms + extra)).map { bits in spelling(escaping: Set((0..<8).filter { bits >> $0 & 1 == 1 })) }
        let many = try #require(try CurlImport.parse("curl -u 'ann:pw8chars' 'http://h\(spellings.joined())'").first)
        spelled.items.append(.init(name: "many", request: many.request))
        _ = WorkspaceWriter.movingCredentials(of: many.request, named: "many", into: &spelled, avoiding: [])
        #expect(spelled.secrets.filter { $0.name.contains("_password") }.count == WorkspaceWriter.maximumSpelledForms)
        #expect(spelled.notes.contains { $0.hasPrefix("many: the URL repeats a password in more than") && $0.contains("\(extra) of them stay") },
                "\(spelled.notes)")
        // A spelling with a brace or a backslash of its own is named too (found by a new user's
        // trial); one holding `{{` is a template's start and stays.
        // Literal, as `curlew import` reads a curl file, or not; the URL put back with the
        // secrets' values is the URL as sent.
        for literal in [false, true] {
            var braces = ImportedCollection()
            braces.isLiteral = literal
            for (command, url) in [("curl -u 'bob:p{ss w0rd' 'http://h/x/p{ss%20w0rd'", "http://h/x/p{ss%20w0rd"),
                                   ("curl -u 'bob:p\\ss w0rd' 'http://h/y/p\\ss%20w0rd'", "http://h/y/p\\ss%20w0rd")] {
                let item = try #require(try CurlImport.parse(command).first)
                braces.items.append(.init(name: "br", request: item.request))
                let moved = WorkspaceWriter.movingCredentials(of: item.request, named: "br", into: &braces, avoiding: [])
                let written = moved.customURL ?? moved.path
                #expect(!written.contains("ss%20w0rd"), "\(command)")
                let putBack = braces.secrets.reduce(written) { $0.replacingOccurrences(of: "{{\($1.name)}}", with: $1.value) }
                #expect(putBack == url, "\(command), literal \(literal)")
            }
        }
        // A URL with a password of its own names each where it repeats.
        var own = ImportedCollection()
        let both = try #require(try CurlImport.parse("curl -u bob:basicPw1 'http://ann:urlPw22@h/urlPw22/basicPw1'").first)
        let kept = WorkspaceWriter.movingCredentials(of: both.request, named: "own", into: &own, avoiding: [])
        #expect(kept.customURL ?? kept.path == "http://ann:{{own_password}}@h/{{own_password}}/{{own_password_2}}")
        #expect(own.secrets.first { $0.name == "own_password_2" }?.value == "basicPw1")
        // Found by review: a repeat right after `{` or `\` stays (a reference there would read as
        // `{{{name}}}` or as escaped text); a password that is part of the other's is not looked
        // for inside the reference just made; a password the URL does not repeat, or one too short
        // to look for, makes no secret.
        var edges = ImportedCollection()
        edges.isLiteral = true
        for (command, url) in [("curl -u ann:Sekr3tPw 'http://h/x/{Sekr3tPw}/a\\Sekr3tPw/Sekr3tPw'", "http://h/x/{Sekr3tPw}/a\\Sekr3tPw/{{e1_password}}"),
                               ("curl -u bob:tokens 'http://ann:hunter22x@h/tokens/hunter22x'", "http://ann:{{e2_password}}@h/{{e2_password_2}}/{{e2_password}}"),
                               ("curl -u ann:pw 'http://h/pw/x'", "http://h/pw/x"),
                               ("curl -u ann:Elsewhere9 'http://h/y'", "http://h/y")] {
            let item = try #require(try CurlImport.parse(command).first)
            let name = "e\(edges.items.count + 1)"
            edges.items.append(.init(name: name, request: item.request))
            let moved = WorkspaceWriter.movingCredentials(of: item.request, named: name, into: &edges, avoiding: [])
            #expect(moved.customURL ?? moved.path == url, "\(command)")
        }
        #expect(edges.secrets.filter { $0.name.hasSuffix("_password") || $0.name.contains("_password_") }.map(\.value).sorted()
                == ["Sekr3tPw", "hunter22x", "tokens"].sorted())
    }

    @Test("a URL's password and secret query parameters go to the secrets file; the request still sends them as they were")
    func urlCredentialsBecomeSecrets() throws {
        let files = try WorkspaceFiles()
        let path = files.directory + "/curlew.yaml"
        var collection = ImportedCollection()
        collection.isLiteral = true
        for item in try CurlImport.parse("curl 'http://bob:p%40ss@h:8080/x?api_key=qk-321&page=2&Token={{t}}#top'") {
            collection.items.append(.init(name: "keyed", request: item.request))
        }
        try WorkspaceWriter.add(collection, to: path)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        for secret in ["p%40ss", "qk-321"] { #expect(!text.contains(secret), "\(text)") }
        let secrets = try String(contentsOfFile: files.directory + "/curlew.secrets.yaml", encoding: .utf8)
        #expect(secrets.contains("qk-321") && secrets.contains("p%40ss"))
        let session = try WorkspaceSession(try Workspace.load(path: path))
        #expect(try session.request(named: "keyed").0.customURL == "http://bob:p%40ss@h:8080/x?api_key=qk-321&page=2&Token={{t}}#top")
        // A URL without credentials, and one with a user but no password, are written as they are.
        #expect(WorkspaceWriter.movingCredentials(inURL: "http://ann@h/a?page=1", named: "r", into: &collection, avoiding: [],
                                                  secrets: RedactionPolicy(headerNames: [], parameterNames: ["token"], bodyFieldNames: [])) == "http://ann@h/a?page=1")
        var plain = ImportedCollection()
        #expect(WorkspaceWriter.movingCredentials(inURL: "/rel?token={{mine}}&token=lit", named: "r", into: &plain, avoiding: [],
                                                  secrets: RedactionPolicy(headerNames: [], parameterNames: ["token"], bodyFieldNames: [])) == "/rel?token={{mine}}&token={{r_token}}")
        // A fragment's pairs (OAuth's implicit flow), and a value a log hid, which stays to be filled in.
        #expect(WorkspaceWriter.movingCredentials(inURL: "http://h/cb#access_token=at-9&state=s", named: "r", into: &plain, avoiding: [],
                                                  secrets: RedactionPolicy(headerNames: [], parameterNames: ["access_token"], bodyFieldNames: [])) == "http://h/cb#access_token={{r_access_token}}&state=s")
        #expect(WorkspaceWriter.movingCredentials(inURL: "http://h/x?token=[REDACTED]", named: "r", into: &plain, avoiding: [],
                                                  secrets: RedactionPolicy(headerNames: [], parameterNames: ["token"], bodyFieldNames: [])) == "http://h/x?token=[REDACTED]")
        // A URL as a parameter's value, and a password whose braces are escaped (literal text).
        #expect(WorkspaceWriter.movingCredentials(inURL: "http://h/x?next=http://bob:bobpw1@g/y", named: "n", into: &plain, avoiding: [],
                                                  secrets: RedactionPolicy(headerNames: [], parameterNames: ["token"], bodyFieldNames: [])) == "http://h/x?next=http://bob:{{n_password}}@g/y")
        #expect(WorkspaceWriter.movingCredentials(inURL: #"http://ada:pw\{{x@h/"#, named: "e", into: &plain, avoiding: [],
                                                  secrets: RedactionPolicy(headerNames: [], parameterNames: ["token"], bodyFieldNames: [])) == "http://ada:{{e_password}}@h/")
        #expect(plain.secrets.first { $0.name == "e_password" }?.value == "pw{{x")
        // A scheme a variable gives carries its password the same, also in a parameter's URL;
        // a templated base without a scheme is a path.
        #expect(WorkspaceWriter.movingCredentials(inURL: "{{proto}}://ada:TplPw1@h/x", named: "t", into: &plain, avoiding: [],
                                                  secrets: RedactionPolicy(headerNames: [], parameterNames: ["token"], bodyFieldNames: [])) == "{{proto}}://ada:{{t_password}}@h/x")
        #expect(plain.secrets.first { $0.name == "t_password" }?.value == "TplPw1")
        #expect(WorkspaceWriter.movingCredentials(inURL: "http://h/x?next={{p}}://bob:TplPw2@g/", named: "u", into: &plain, avoiding: [],
                                                  secrets: RedactionPolicy(headerNames: [], parameterNames: ["token"], bodyFieldNames: [])) == "http://h/x?next={{p}}://bob:{{u_password}}@g/")
        #expect(WorkspaceWriter.movingCredentials(inURL: "{{base}}/a:b@c", named: "v", into: &plain, avoiding: [],
                                                  secrets: RedactionPolicy(headerNames: [], parameterNames: ["token"], bodyFieldNames: [])) == "{{base}}/a:b@c")
        // Typed without a scheme, the user info is at the start (found by a new user's trial).
        #expect(WorkspaceWriter.movingCredentials(inURL: "bob:NoSchemePw@127.0.0.1:8080/get", named: "x", into: &plain, avoiding: [],
                                                  secrets: RedactionPolicy(headerNames: [], parameterNames: ["token"], bodyFieldNames: [])) == "bob:{{x_password}}@127.0.0.1:8080/get")
        #expect(WorkspaceWriter.movingCredentials(inURL: "users/1?a=1", named: "y", into: &plain, avoiding: [],
                                                  secrets: RedactionPolicy(headerNames: [], parameterNames: ["token"], bodyFieldNames: [])) == "users/1?a=1")
        // A path and query that repeat the password name the same secret; a short one stays
        // where it repeats (found by a new user's trial: the path kept it in clear).
        #expect(WorkspaceWriter.movingCredentials(inURL: "http://u:Sekr3tPw@h/basic-auth/u/Sekr3tPw?again=Sekr3tPw", named: "z", into: &plain,
                                                  avoiding: [], secrets: RedactionPolicy(headerNames: [], parameterNames: ["token"], bodyFieldNames: []))
                == "http://u:{{z_password}}@h/basic-auth/u/{{z_password}}?again={{z_password}}")
        #expect(WorkspaceWriter.movingCredentials(inURL: "http://u:pw@h/pw", named: "s", into: &plain, avoiding: [],
                                                  secrets: RedactionPolicy(headerNames: [], parameterNames: ["token"], bodyFieldNames: [])) == "http://u:{{s_password}}@h/pw")
        // A reference just made, or a template of the user's, that holds the password's text is
        // left whole (found by review: `{{admin_users_token}}` became `{{{{…}}_users_token}}`).
        #expect(WorkspaceWriter.movingCredentials(inURL: "http://admin:admin@h/admin/{{admin_id}}?token=T", named: "admin users", into: &plain,
                                                  avoiding: [], secrets: RedactionPolicy(headerNames: [], parameterNames: ["token"], bodyFieldNames: []))
                == "http://admin:{{admin_users_password}}@h/{{admin_users_password}}/{{admin_id}}?token={{admin_users_token}}")
        // A nested template is left whole too, and text after an escaped `\{{` is text (the same
        // value names the secret already kept for it).
        #expect(WorkspaceWriter.movingCredentials(inURL: #"http://admin:admin@h/{{$base64 admin:{{x}}}}/admin/\{{admin"#, named: "nest", into: &plain,
                                                  avoiding: [], secrets: RedactionPolicy(headerNames: [], parameterNames: ["token"], bodyFieldNames: []))
                == #"http://admin:{{admin_users_password}}@h/{{$base64 admin:{{x}}}}/{{admin_users_password}}/\{{{{admin_users_password}}"#)
        for (url, kept) in [("http{{s}}://ann:TplPw3@h/", "http{{s}}://ann:{{w_password}}@h/"),
                            ("{{proto}}s://ann:TplPw4@h/", "{{proto}}s://ann:{{w_password_2}}@h/"),
                            ("{{ proto }}://ann:TplPw5@h/", "{{ proto }}://ann:{{w_password_3}}@h/")] {
            #expect(WorkspaceWriter.movingCredentials(inURL: url, named: "w", into: &plain, avoiding: [], secrets: RedactionPolicy(headerNames: [], parameterNames: ["token"], bodyFieldNames: [])) == kept)
        }
    }

    @Test("a password in a request's body (JSON at any depth, JSON under a form's type, a form body, multipart, parameters) goes to the secrets file, and the request still sends the same bytes (a new user's trial found a pasted curl's JSON password saved in clear)")
    func bodyCredentialsBecomeSecrets() throws {
        let files = try WorkspaceFiles()
        let path = files.directory + "/curlew.yaml"
        let commands = [
            #"curl -H 'Content-Type: application/json' -d '{"user":"bob","auth":{"password":"JsonPw-1","token":["Tk-a","Tk-b"]},"n":2}' http://h/json"#,
            #"curl -d '{"password":"Form\"Type-2","x":1}' http://h/jsonform"#,
            "curl -d 'user=bob&Password=Pw%21-3&api_key=Ak-4' http://h/form",
            "curl -F 'password=Mp-5' -F 'note=keep' http://h/multi",
            #"curl -H 'Content-Type: application/json' -d '{"password":"{{from_env}}"}' http://h/templated"#,
            // A member secret by its path, as the log reads it (found by a new user's trial: saved in clear).
            #"curl -H 'Content-Type: application/json' -d '{"api":{"key":"Nk-8"},"stripe":{"api":{"key":"Nk-9"}},"db_password":"Nk-10"}' http://h/nested"#,
            #"curl -H 'Content-Type: application/json' -d '{"n":{{count}},"api":{"key":"Nk-11","v":1}}' http://h/nestedtext"#,
        ]
        var collection = ImportedCollection()
        collection.isLiteral = true
        for (index, command) in commands.enumerated() {
            for item in try CurlImport.parse(command) { collection.items.append(.init(name: "b\(index)", request: item.request)) }
        }
        var parameters = Request(.get, "/p", params: ["token": "Pt-6", "page": "1", "api": ["key": "Nk-12"]])
        parameters.name = "p"
        collection.items.append(.init(name: "p", request: parameters, query: ["refresh_token": "Qt-7"]))
        try WorkspaceWriter.add(collection, to: path)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let secrets = try String(contentsOfFile: files.directory + "/curlew.secrets.yaml", encoding: .utf8)
        for secret in ["JsonPw-1", "Tk-a", "Tk-b", "Pw%21-3", "Ak-4", "Mp-5", "Pt-6", "Qt-7", "Nk-8", "Nk-9", "Nk-10", "Nk-11", "Nk-12"] {
            #expect(!text.contains(secret), "\(secret) in \(text)")
            #expect(secrets.contains(secret), "\(secret) not in \(secrets)")
        }
        #expect(!text.contains("Type-2") && secrets.contains("Type-2"))
        // The literal collection's `{{` is text, and moves like any other value.
        #expect(secrets.contains("from_env"))
        let session = try WorkspaceSession(try Workspace.load(path: path))
        func body(_ name: String) throws -> String {
            guard case .raw(let data, _) = try session.request(named: name).0.requestSerializer else { return "" }
            return String(decoding: data, as: UTF8.self)
        }
        #expect(try body("b0") == #"{"user":"bob","auth":{"password":"JsonPw-1","token":["Tk-a","Tk-b"]},"n":2}"#)
        #expect(try body("b1") == #"{"password":"Form\"Type-2","x":1}"#)
        #expect(try body("b2") == "user=bob&Password=Pw%21-3&api_key=Ak-4")
        #expect(try body("b4") == #"{"password":"{{from_env}}"}"#)
        #expect(try body("b5") == #"{"api":{"key":"Nk-8"},"stripe":{"api":{"key":"Nk-9"}},"db_password":"Nk-10"}"#)
        let multipart = try session.request(named: "b3").0.form?.parts.map { part -> String in
            guard case .data(let data) = part.content else { return "" }
            return part.name + "=" + String(decoding: data, as: UTF8.self)
        }
        #expect(multipart == ["password=Mp-5", "note=keep"])
        let sent = try session.request(named: "p").0
        #expect(sent.params["token"] == "Pt-6" && sent.params["refresh_token"] == "Qt-7" && sent.params["page"] == "1")
    }

    @Test("a JSON text nested thirty thousand levels deep is read for its secrets in linear time and memory (found by review: each level copied the path)")
    func deepJSONSpans() throws {
        let start = ContinuousClock.now
        let text = String(repeating: #"{"a":"#, count: 30_000) + #"{"api":{"key":"Dp1Tok9"}}"# + String(repeating: "}", count: 30_000)
        let spans = try #require(JSONSecretSpans(text) { name, parents in RedactionPolicy().isSecretMember(name, under: parents[...]) })
        #expect(spans.spans.map(\.key) == ["key"])
        #expect(ContinuousClock.now - start < .seconds(20))
    }

    @Test("a text body changes only where a secret was: spacing, escapes, numbers, templates and escaped braces stay byte for byte; secret numbers and objects move too (found by review), and a multipart text's secret part")
    func textBodiesKeepTheirBytes() throws {
        let files = try WorkspaceFiles()
        let path = files.directory + "/curlew.yaml"
        let bodies: [(type: String, body: String)] = [
            ("application/x-www-form-urlencoded", #"{"user": "bob",  "password": "Sp aced-1", "n": 1.0, "e": 1E5, "s": "\/\u00e9"}"#),
            ("text/plain", #"{"password": "Hunter-2", "greeting": "{{hi}}", "t": "\u007b\u007bx}}"}"#),
            ("application/json", #"{"password": 123456, "token": {"value": "Obj-3", "n": [7, null]}, "ok": true}"#),
            ("application/json", #"{"id": {{id}}, "password": "Tpl-4"}"#),
            // A browser's multipart login as a HAR keeps it: text, with a file part beside (found by a new user's trial).
            ("multipart/form-data; boundary=----WebKitFormBoundaryAbc",
             "------WebKitFormBoundaryAbc\r\nContent-Disposition: form-data; name=\"user\"\r\n\r\nbob\r\n"
             + "------WebKitFormBoundaryAbc\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\nMp-6\r\n"
             + "------WebKitFormBoundaryAbc\r\nContent-Disposition: form-data; name=\"token\"; filename=\"t.txt\"\r\n\r\nfile-7\r\n"
             + "------WebKitFormBoundaryAbc--\r\n"),
        ]
        var collection = ImportedCollection()
        collection.isLiteral = true
        for (index, body) in bodies.enumerated() {
            var request = Request(.post, "http://h/\(index)")
            request.requestSerializer = .raw(Data(body.body.utf8), contentType: body.type)
            collection.items.append(.init(name: "t\(index)", request: request))
        }
        try WorkspaceWriter.add(collection, to: path)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        for secret in ["Sp aced-1", "Hunter-2", "123456", "Obj-3", "Tpl-4", "Mp-6"] { #expect(!text.contains(secret), "\(secret) in \(text)") }
        #expect(text.contains("file-7"), "a file part is not a credential")
        #expect(!text.contains(": 7") && !text.contains("7,"), "a number under a secret member moves too: \(text)")
        let session = try WorkspaceSession(try Workspace.load(path: path))
        for (index, body) in bodies.enumerated() where index != 3 {
            guard case .raw(let data, _) = try session.request(named: "t\(index)").0.requestSerializer else { Issue.record("t\(index)"); continue }
            #expect(String(decoding: data, as: UTF8.self) == body.body)
        }
        // In a collection that expands templates, `{{id}}` is one, and the password still moves.
        var templated = ImportedCollection()
        var request = Request(.post, "http://h/t")
        request.requestSerializer = .raw(Data(bodies[3].body.utf8), contentType: "application/json")
        let moved = WorkspaceWriter.movingBodyCredentials(of: request, named: "t", into: &templated, avoiding: [], secrets: RedactionPolicy(headerNames: [], parameterNames: ["password"], bodyFieldNames: []))
        #expect(moved.requestSerializer == .raw(Data(#"{"id": {{id}}, "password": "{{t_password}}"}"#.utf8), contentType: "application/json"))
        #expect(templated.secrets.map(\.value) == ["Tpl-4"])
    }

    @Test("a JSON body cut short (a brace or a quote missing) still has its secret moved, and sends the same bytes (found by a new user's trial: written in clear)")
    func secretInUnfinishedJSON() throws {
        let files = try WorkspaceFiles()
        let path = files.directory + "/curlew.yaml"
        let bodies = [#"{"password":"Sekr3tPw1""#, #"{"password":"Sekr3tPw2"#, #"[{"token":"Sekr3tPw3"}, "#, #"{"name":"plain\"#]
        var collection = ImportedCollection()
        collection.isLiteral = true
        for (index, body) in bodies.enumerated() {
            var request = Request(.post, "http://h/\(index)")
            request.requestSerializer = .raw(Data(body.utf8), contentType: "application/json")
            collection.items.append(.init(name: "u\(index)", request: request))
        }
        try WorkspaceWriter.add(collection, to: path)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!text.contains("Sekr3tPw"), "\(text)")
        let session = try WorkspaceSession(try Workspace.load(path: path))
        for (index, body) in bodies.enumerated() {
            guard case .raw(let data, _) = try session.request(named: "u\(index)").0.requestSerializer else { Issue.record("u\(index)"); continue }
            #expect(String(decoding: data, as: UTF8.self) == body)
        }
    }

    @Test("an import moves a credential to secrets however its name is spelt, as the log hides it (accessToken, api-key, a form's refreshToken, a query's access-token)")
    func secretNameSpellingsMove() throws {
        var collection = ImportedCollection()
        var request = Request(.post, "http://h/t")
        request.requestSerializer = .raw(Data(#"{"user":{"accessToken":"At9x","api-key":"Ak9x","X-Api-Key":"Xk9x","name":"ann"}}"#.utf8), contentType: "application/json")
        let defaults = RedactionPolicy()
        let moved = WorkspaceWriter.movingBodyCredentials(of: request, named: "t", into: &collection, avoiding: [], secrets: defaults)
        // What the log hides, the import moves: a secret header's name as a member too (found by review).
        #expect(collection.secrets.map(\.value).sorted() == ["Ak9x", "At9x", "Xk9x"])
        guard case .raw(let data, _) = moved.requestSerializer else { Issue.record("not raw"); return }
        let written = String(decoding: data, as: UTF8.self)
        #expect(!written.contains("At9x") && !written.contains("Ak9x") && !written.contains("Xk9x") && written.contains("ann"), "\(written)")
        var form = ImportedCollection()
        request.requestSerializer = .raw(Data("refreshToken=Rt9x&user=u&user%5Btoken%5D=Nt9x".utf8), contentType: "application/x-www-form-urlencoded")
        _ = WorkspaceWriter.movingBodyCredentials(of: request, named: "t", into: &form, avoiding: [], secrets: defaults)
        // A nested name (`user[token]`), as the log reads it (found by review).
        #expect(form.secrets.map(\.value) == ["Rt9x", "Nt9x"])
        // A dotted name (`user.password`), as the log reads it.
        var dotted = ImportedCollection()
        request.requestSerializer = .raw(Data("user.password=Dt9x&user.name=u".utf8), contentType: "application/x-www-form-urlencoded")
        _ = WorkspaceWriter.movingBodyCredentials(of: request, named: "t", into: &dotted, avoiding: [], secrets: defaults)
        #expect(dotted.secrets.map(\.value) == ["Dt9x"])
        var query = ImportedCollection()
        let url = WorkspaceWriter.movingCredentials(inURL: "http://h/x?access-token=Qt9x&page=1", named: "q", into: &query, avoiding: [], secrets: defaults)
        #expect(!url.contains("Qt9x") && url.contains("page=1"), "\(url)")
        #expect(query.secrets.map(\.value) == ["Qt9x"])
        // A header named as a secret parameter is moved as the log hides it (found by a new user's trial).
        var headers = ImportedCollection()
        var named = Request(.get, "http://h/x")
        named.headers.set("Access-Token", "Ht9x")
        let movedHeader = WorkspaceWriter.movingCredentials(of: named, named: "h", into: &headers, avoiding: [], secrets: defaults)
        #expect(headers.secrets.map(\.value) == ["Ht9x"] && movedHeader.headers["Access-Token"]?.contains("{{") == true, "\(movedHeader.headers)")
    }

    @Test("a JSON body kept as text for its templates keeps an escaped secret decoded, so filling it in sends the same password (found by review)")
    func escapedSecretInTemplatedJSON() throws {
        var collection = ImportedCollection()
        var request = Request(.post, "http://h/t")
        let body = #"{"id": {{id}}, "password": "a\"b\\c"}"#
        request.requestSerializer = .raw(Data(body.utf8), contentType: "application/json")
        let moved = WorkspaceWriter.movingBodyCredentials(of: request, named: "t", into: &collection, avoiding: [], secrets: RedactionPolicy(headerNames: [], parameterNames: ["password"], bodyFieldNames: []))
        let written = #"{"id": {{id}}, "password": "{{t_password}}"}"#
        #expect(moved.requestSerializer == .raw(Data(written.utf8), contentType: "application/json"))
        #expect(collection.secrets.map(\.value) == [#"a"b\c"#])
        // What the workspace sends: the string filled in whole and escaped as JSON writes it.
        let template = Template(variables: ["id": "1", "t_password": collection.secrets.first?.value ?? ""], environment: { _ in nil })
        var outside = template
        outside.fillsOutsideJSONString = true
        let sent = try JSONTemplateFill.fill(written, string: { (part: String) throws(Template.Failure) in try template.expand(part) },
                                             elsewhere: { (part: String) throws(Template.Failure) in try outside.expand(part) },
                                             repeatedName: { .undefined($0, suggestion: nil) })
        #expect(sent == #"{"id": 1, "password": "a\"b\\c"}"#)
        // Cut short, the string is still a string there; one that is no JSON string's content stays.
        for (cut, secret) in [(#"{"id": {{id}}, "password": "a\"b"#, #"a"b"# as String?), (#"{"id": {{id}}, "password": "it\'s"}"#, nil),
                              (#"{"id": {{id}}, "password": "caf\u00e9\b"}"#, nil)] {
            var kept = ImportedCollection()
            request.requestSerializer = .raw(Data(cut.utf8), contentType: "application/json")
            _ = WorkspaceWriter.movingBodyCredentials(of: request, named: "t", into: &kept, avoiding: [], secrets: RedactionPolicy(headerNames: [], parameterNames: ["password"], bodyFieldNames: []))
            #expect(kept.secrets.map(\.value) == (secret.map { [$0] } ?? []), "\(cut)")
        }
        // A form body that starts with a brace is still read as a form.
        var form = ImportedCollection()
        request.requestSerializer = .raw(Data("{{a}}={&password=pw12".utf8), contentType: "application/x-www-form-urlencoded")
        _ = WorkspaceWriter.movingBodyCredentials(of: request, named: "t", into: &form, avoiding: [], secrets: RedactionPolicy(headerNames: [], parameterNames: ["password"], bodyFieldNames: []))
        #expect(form.secrets.map(\.value) == ["pw12"])
        // As text, it is kept as written: a text body is sent as its template stands.
        var text = ImportedCollection()
        request.requestSerializer = .raw(Data(body.utf8), contentType: "text/plain")
        _ = WorkspaceWriter.movingBodyCredentials(of: request, named: "t", into: &text, avoiding: [], secrets: RedactionPolicy(headerNames: [], parameterNames: ["password"], bodyFieldNames: []))
        #expect(text.secrets.map(\.value) == [#"a\"b\\c"#])
    }

    @Test("a secret value inside a template expression, or partly, stays where it is, so the expression still closes (found by review)")
    func secretInsideExpressionStays() {
        for (type, body) in [("application/x-www-form-urlencoded", "a={{$base64 b&token=c}}"),
                             ("application/x-www-form-urlencoded", #"a={{$base64 b&token=\{{x}}}}"#),
                             ("text/plain", #"{"a": "{{$base64 b", "token": "c}}"}"#),
                             ("multipart/form-data; boundary=b", "--b\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\n{{$base64 a\r\n"
                                + "--b\r\nContent-Disposition: form-data; name=\"token\"\r\n\r\nc}}\r\n--b--\r\n")] {
            var collection = ImportedCollection()
            var request = Request(.post, "http://h/t")
            request.requestSerializer = .raw(Data(body.utf8), contentType: type)
            let moved = WorkspaceWriter.movingBodyCredentials(of: request, named: "t", into: &collection, avoiding: [], secrets: RedactionPolicy(headerNames: [], parameterNames: ["token"], bodyFieldNames: []))
            #expect(moved.requestSerializer == request.requestSerializer, "\(body)")
            #expect(collection.secrets.isEmpty, "\(body)")
        }
        // Beside an expression, a value still moves.
        var collection = ImportedCollection()
        var request = Request(.post, "http://h/t")
        request.requestSerializer = .raw(Data("a={{x}}&token=c1&b={{$base64 y}}".utf8), contentType: "application/x-www-form-urlencoded")
        let moved = WorkspaceWriter.movingBodyCredentials(of: request, named: "t", into: &collection, avoiding: [], secrets: RedactionPolicy(headerNames: [], parameterNames: ["token"], bodyFieldNames: []))
        #expect(moved.requestSerializer == .raw(Data("a={{x}}&token={{t_token}}&b={{$base64 y}}".utf8), contentType: "application/x-www-form-urlencoded"))
        #expect(collection.secrets.map(\.value) == ["c1"])
    }

    @Test("a secret word ending in the backslash of an escaped \\{{ leaves the escape whole (found by fuzzing)")
    func secretWordBeforeEscapedBraces() {
        for (body, kept, secret) in [(#"{"token": \{{}}}"#, #"{"token": \{{}}}"#, nil as String?),
                                     (#"{"token": ab\{{x}}}"#, #"{"token": {{t_token}}\{{x}}}"#, "ab"),
                                     (#"{"token": ab\\{{x}}}"#, #"{"token": {{t_token}}\{{x}}}"#, #"ab\"#)] {
            var collection = ImportedCollection()
            var request = Request(.post, "http://h/t")
            request.requestSerializer = .raw(Data(body.utf8), contentType: "text/plain")
            let moved = WorkspaceWriter.movingBodyCredentials(of: request, named: "t", into: &collection, avoiding: [], secrets: RedactionPolicy(headerNames: [], parameterNames: ["token"], bodyFieldNames: []))
            #expect(moved.requestSerializer == .raw(Data(kept.utf8), contentType: "text/plain"), "\(body)")
            #expect(collection.secrets.map(\.value) == (secret.map { [$0] } ?? []), "\(body)")
        }
    }

    @Test("a generated secret's name never takes one of the import's own variables (found by review)")
    func secretNameAvoidsImportVariables() throws {
        let files = try WorkspaceFiles()
        let path = files.directory + "/curlew.yaml"
        let http = """
        @post_login_password = not-a-secret
        POST http://h/login
        Content-Type: application/json

        {"password": "Coll-5"}
        """
        try WorkspaceWriter.add(try HTTPFileImport.parse(http), to: path)
        let session = try WorkspaceSession(try Workspace.load(path: path))
        guard case .raw(let data, _) = try session.request(named: "POST /login").0.requestSerializer else { Issue.record("no body"); return }
        #expect(String(decoding: data, as: UTF8.self) == #"{"password":"Coll-5"}"#)
        // Named as a secret, the variable is one too, kept apart from the generated one.
        let stored = try WorkspaceSecrets.load(path: files.directory + "/curlew.secrets.yaml").shared
        #expect(stored.contains { $0.name == "post_login_password" && $0.value == "not-a-secret" }, "\(stored)")
        #expect(stored.contains { $0.name != "post_login_password" && $0.value == "Coll-5" }, "\(stored)")
    }

    @Test("an import's variable a body's secret member uses goes to the secrets file")
    func bodyVariableBecomesSecret() throws {
        let files = try WorkspaceFiles()
        let path = files.directory + "/curlew.yaml"
        let http = """
        @pw = VarPw-8
        @page = 3
        POST http://h/login?page={{page}}
        Content-Type: application/json

        {"user": "bob", "password": "{{pw}}"}
        """
        try WorkspaceWriter.add(try HTTPFileImport.parse(http), to: path)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!text.contains("VarPw-8") && text.contains("page"), "\(text)")
        let secrets = try String(contentsOfFile: files.directory + "/curlew.secrets.yaml", encoding: .utf8)
        #expect(secrets.contains("VarPw-8"))
    }

    @Test("4-space indentation and one-line (flow) blocks are extended; null-like strings and a POST's form read back")
    func layoutsAndValues() throws {
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", "variables: {user: demo}   \nrequests:\n    a:\n        url: /a\n")
        var collection = ImportedCollection()
        var post = Request.url("http://h/p?x=1", method: .post)
        post.params = ["q": "null"]
        post.headers = ["X-Flag": "yes", "X-Empty": "~"]
        collection.items = [.init(name: "null", request: post)]
        collection.variables = [("host", "true")]
        try WorkspaceWriter.add(collection, to: path)
        let session = try WorkspaceSession(try Workspace.load(path: path))
        #expect(session.workspace.requests.map(\.name) == ["a", "null"])
        let request = try session.request(named: "null").0
        #expect(request.method == .post)
        #expect(request.customURL == "http://h/p?x=1")
        #expect(request.params == ["q": "null"] && request.requestSerializer == .urlEncodedForm)
        #expect(request.headers["X-Flag"] == "yes" && request.headers["X-Empty"] == "~")
        #expect(session.resolvedVariables.first { $0.name == "host" }?.value == "true")
        #expect(session.resolvedVariables.first { $0.name == "user" }?.value == "demo")
    }
}

@Suite("writing to a workspace: second review fixes")
struct WorkspaceWriterSecondReviewTests {
    @Test("generated secret names never collide with each other or with a secret already stored")
    func secretNameCollisions() throws {
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", "secrets: [get_a_b_authorization]\n")
        try files.write("curlew.secrets.yaml", "variables:\n  get_a_b_authorization: older-secret\n", mode: 0o600)
        var collection = ImportedCollection()
        collection.isLiteral = true
        for (name, token) in [("GET /a-b", "token-one"), ("GET /a_b", "token-two")] {
            collection.items.append(.init(name: name, request: Request.url("http://h/x", headers: ["Authorization": "Bearer \(token)"])))
        }
        let summary = try WorkspaceWriter.add(collection, to: path)
        #expect(summary.secrets == ["get_a_b_authorization_2", "get_a_b_authorization_3"])
        let session = try WorkspaceSession(try Workspace.load(path: path))
        #expect(try session.request(named: "GET /a-b").0.headers["Authorization"] == "Bearer token-one")
        #expect(try session.request(named: "GET /a_b").0.headers["Authorization"] == "Bearer token-two")
        #expect(session.secretValues.contains("older-secret"))
    }

    @Test("an OpenAPI operation's secret query parameter puts its example in the secrets file, not in curlew.yaml (found by a new user's trial)")
    func openAPISecretQueryParameter() throws {
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", "")
        let document = """
        openapi: 3.0.3
        info: {title: t, version: "1"}
        servers: [{url: "http://127.0.0.1:9"}]
        paths:
          /items:
            get:
              parameters:
                - {name: api_key, in: query, required: true, schema: {type: string}, example: SECRETKEY123}
                - {name: page, in: query, required: true, schema: {type: integer}, example: 2}
              responses: {"200": {description: ok}}
        """
        let collection = try OpenAPIImport.parse(Data(document.utf8))
        let summary = try WorkspaceWriter.add(collection, to: path)
        let written = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!written.contains("SECRETKEY123"), "\(written)")
        #expect(summary.secrets.contains("api_key"), "\(summary.secrets)")
        let secrets = try String(contentsOfFile: files.directory + "/curlew.secrets.yaml", encoding: .utf8)
        #expect(secrets.contains("SECRETKEY123"))
    }

    @Test("a Postman environment's secrets are written under its name in the secrets file")
    func environmentSecrets() throws {
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", "variables: {base: http://h}\nenvironments:\n  Other: {host: https://o}\n")
        try files.write("curlew.secrets.yaml", "# mine\nenvironments:\n  Other:\n    token: other-token\n", mode: 0o600)
        let data = Data(#"{"name": "Staging", "values": [{"key": "host", "value": "https://s"}, {"key": "token", "value": "staging-token", "type": "secret"}]}"#.utf8)
        let summary = try WorkspaceWriter.add(try PostmanImport.parse(data), to: path)
        #expect(summary.secrets == ["token (Staging)"])
        let secrets = try String(contentsOfFile: files.directory + "/curlew.secrets.yaml", encoding: .utf8)
        #expect(secrets.hasPrefix("# mine\n"))
        let workspace = try Workspace.load(path: path)
        #expect(try WorkspaceSession(workspace, environment: "Staging").resolvedVariables.first { $0.name == "token" }?.value == RedactionPolicy.marker)
        #expect(try WorkspaceSession(workspace, environment: "Staging").secretValues.contains("staging-token"))
        #expect(try WorkspaceSession(workspace, environment: "Staging").secretValues.contains("other-token") == false)
        // Importing it again keeps what is stored.
        let again = try WorkspaceWriter.add(try PostmanImport.parse(data), to: path)
        #expect(again.secrets.isEmpty && again.kept.contains("secret token (Staging)"))
    }

    @Test("an OpenAPI POST's required query parameters stay in the query beside its form")
    func openAPIQueryOnPost() throws {
        let document = """
        openapi: 3.1.0
        info: {title: t, version: "1"}
        paths:
          /items:
            post:
              operationId: addItem
              parameters: [{name: dryRun, in: query, required: true, schema: {type: string, example: "yes"}}]
              requestBody: {content: {application/x-www-form-urlencoded: {schema: {type: object}}}}
              responses: {"200": {description: ok}}
        """
        let files = try WorkspaceFiles()
        let path = files.directory + "/curlew.yaml"
        try WorkspaceWriter.add(try OpenAPIImport.parse(Data(document.utf8)), to: path)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("query:") && !text.contains("form:"), "\(text)")
        let request = try WorkspaceSession(try Workspace.load(path: path), overrides: [("baseURL", "http://h")]).request(named: "addItem").0
        #expect(request.customURL == "http://h/items?dryRun=yes")
        #expect(request.params.isEmpty)
    }

    @Test("a GET with both form: and query: sends both (the query replaced the form)")
    func getWithFormAndQuery() throws {
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", "requests:\n  g: {url: /g, form: {a: 1}, query: {b: 2}}\n")
        let request = try WorkspaceSession(try Workspace.load(path: path)).request(named: "g").0
        #expect(request.path == "/g?b=2")
        #expect(request.params == ["a": "1"])
    }

    @Test("literal multipart values, JSON member names and parameter names are escaped, and read back as themselves")
    func literalEscaping() throws {
        let files = try WorkspaceFiles()
        let path = files.directory + "/curlew.yaml"
        var collection = ImportedCollection()
        collection.isLiteral = true
        for item in try CurlImport.parse(#"curl http://h/u -F 'n={{v}}' -F 'm=plain'"#) { collection.items.append(.init(name: "parts", request: item.request)) }
        for item in try CurlImport.parse(#"curl http://h/j --json '{"{{k}}":"{{x}}"}'"#) { collection.items.append(.init(name: "json", request: item.request)) }
        var query = Request.url("http://h/q")
        query.params = ["{{p}}": "{{v}}"]
        collection.items.append(.init(name: "query", request: query))
        try WorkspaceWriter.add(collection, to: path)
        let session = try WorkspaceSession(try Workspace.load(path: path))
        let parts = try #require(try session.request(named: "parts").0.form?.parts)
        #expect(parts.map(\.content) == [.data(Data("{{v}}".utf8)), .data(Data("plain".utf8))])
        #expect(try session.request(named: "json").0.requestSerializer == .raw(Data(#"{"{{k}}":"{{x}}"}"#.utf8), contentType: "application/json"))
        #expect(try session.request(named: "query").0.params == ["{{p}}": "{{v}}"])
    }

    @Test("importing into a CRLF workspace keeps its line ends; a symlinked secrets file stays a link")
    func crlfAndSymlinkedSecrets() throws {
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", "# crlf\r\nrequests:\r\n  a:\r\n    url: /a\r\n")
        try files.write("real-secrets.yaml", "variables:\n  kept: kept-value\n", mode: 0o600)
        try FileManager.default.createSymbolicLink(atPath: files.directory + "/curlew.secrets.yaml", withDestinationPath: "real-secrets.yaml")
        let imported = try CurlImport.parse("curl -H 'Authorization: Bearer crlf-token' http://h/b")
        try WorkspaceWriter.add(WorkspaceWriterTests.collection(imported.map(\.request)), to: path)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!text.replacingOccurrences(of: "\r\n", with: "").contains("\n"), "every line ends in CRLF")
        #expect(try Workspace.load(path: path).requests.map(\.name) == ["a", "GET /b"])
        let link = try FileManager.default.destinationOfSymbolicLink(atPath: files.directory + "/curlew.secrets.yaml")
        #expect(link.hasSuffix("real-secrets.yaml"))
        #expect(try String(contentsOfFile: files.directory + "/real-secrets.yaml", encoding: .utf8).contains("crlf-token"))
    }
}

@Suite("Postman import: review fixes")
struct PostmanReviewTests {
    @Test("inherit and null auth take the parent's; :id path variables are filled; an API key in the query is encoded")
    func authAndPathVariables() throws {
        let json = #"""
        {"info": {"schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"},
         "auth": {"type": "bearer", "bearer": [{"key": "token", "value": "{{t}}"}]},
         "item": [
          {"name": "F", "auth": null, "item": [
            {"name": "Inherits", "request": {"method": "GET", "url": {"raw": "{{base}}/users/:id", "variable": [{"key": "id", "value": "7"}]}, "auth": {"type": "inherit"}}}]},
          {"name": "Key", "request": {"method": "GET", "url": "{{base}}/k", "auth": {"type": "apikey", "apikey": [{"key": "key", "value": "api_key"}, {"key": "value", "value": "a b&c"}, {"key": "in", "value": "query"}]}}}
         ]}
        """#
        let collection = try PostmanImport.parse(Data(json.utf8))
        #expect(collection.items[0].request.headers["Authorization"] == "Bearer {{t}}")
        #expect(collection.items[0].request.customURL == "{{base}}/users/7")
        #expect(collection.items[1].request.customURL == "{{base}}/k?api_key={{key_api_key}}")
        #expect(collection.secrets == [.init(name: "key_api_key", value: "a%20b%26c", isGenerated: true)])
    }

    @Test("literal basic auth and API keys go to the secrets file (they were written into curlew.yaml in clear)")
    func literalCredentials() throws {
        let json = #"""
        {"info": {"schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"},
         "item": [
          {"name": "Basic", "request": {"method": "GET", "url": "http://h/b", "auth": {"type": "basic", "basic": [{"key": "username", "value": "ann"}, {"key": "password", "value": "pw-basic-1"}]}}},
          {"name": "Mixed", "request": {"method": "GET", "url": "http://h/m", "auth": {"type": "basic", "basic": {"username": "{{user}}", "password": "pw-mixed-2"}}}},
          {"name": "Query", "request": {"method": "GET", "url": "http://h/q", "auth": {"type": "apikey", "apikey": [{"key": "key", "value": "k"}, {"key": "value", "value": "key-query-3"}, {"key": "in", "value": "query"}]}}},
          {"name": "Header", "request": {"method": "GET", "url": "http://h/h", "auth": {"type": "apikey", "apikey": [{"key": "key", "value": "X-Token"}, {"key": "value", "value": "key-header-4"}]}}},
          {"name": "Bearer", "request": {"method": "GET", "url": "http://h/t", "auth": {"type": "bearer", "bearer": [{"key": "token", "value": "tok-bearer-5"}]}}}
         ]}
        """#
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", "variables: {user: ann}\n")
        let summary = try WorkspaceWriter.add(try PostmanImport.parse(Data(json.utf8)), to: path)
        #expect(summary.secrets.count == 5)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        for secret in ["pw-basic-1", "pw-mixed-2", "key-query-3", "key-header-4", "tok-bearer-5", Data("ann:pw-basic-1".utf8).base64EncodedString()] {
            #expect(!text.contains(secret), "\(secret) in clear")
        }
        let session = try WorkspaceSession(try Workspace.load(path: path))
        #expect(try session.request(named: "Basic").0.headers["Authorization"] == "Basic " + Data("ann:pw-basic-1".utf8).base64EncodedString())
        #expect(try session.request(named: "Mixed").0.headers["Authorization"] == "Basic " + Data("ann:pw-mixed-2".utf8).base64EncodedString())
        #expect(try session.request(named: "Query").0.customURL == "http://h/q?k=key-query-3")
        #expect(try session.request(named: "Header").0.headers["X-Token"] == "key-header-4")
        #expect(try session.request(named: "Bearer").0.headers["Authorization"] == "Bearer tok-bearer-5")
    }
}

@Suite("OpenAPI import: hostile documents")
struct OpenAPIHostileTests {
    @Test("an alias bomb is refused before the decoder walks it")
    func aliasBomb() {
        var text = "openapi: 3.1.0\ninfo: {title: t, version: \"1\"}\nx-a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for level in 1...7 { text += "x-a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ") + "]\n" }
        let error = #expect(throws: OpenAPIImport.Failure.self) { try OpenAPIImport.parse(Data(text.utf8)) }
        #expect(error?.reason.contains("expands to more than") == true)
    }
}

@Suite("literal imports")
struct LiteralImportTests {
    @Test("a curl command's {{ stays text: the workspace escapes it and the request sends it as it was")
    func bracesStayText() throws {
        let files = try WorkspaceFiles()
        let path = files.directory + "/curlew.yaml"
        var collection = ImportedCollection()
        collection.isLiteral = true
        for item in try CurlImport.parse(#"curl http://h/a?q={{q}} -H 'X-T: {{y}}' --json '{"t":"{{x}}"}'"#) {
            collection.items.append(.init(name: "braces", request: item.request))
        }
        try WorkspaceWriter.add(collection, to: path)
        let request = try WorkspaceSession(try Workspace.load(path: path)).request(named: "braces").0
        #expect(request.customURL == "http://h/a?q={{q}}")
        #expect(request.headers["X-T"] == "{{y}}")
        #expect(request.requestSerializer == .raw(Data(#"{"t":"{{x}}"}"#.utf8), contentType: "application/json"))
    }
}

@Suite("imports: hostile and careless input")
struct ImportInputTests {
    @Test(".http: a variable without a value or a name, and a response of a request not defined before, are errors with their line")
    func httpFileMistakes() {
        let bare = #expect(throws: HTTPFileImport.Failure.self) { try HTTPFileImport.parse("@host\nGET http://h/\n") }
        #expect(bare?.line == 1 && bare?.reason.contains("needs a value") == true)
        let nameless = #expect(throws: HTTPFileImport.Failure.self) { try HTTPFileImport.parse("GET http://h/\n###\n@ = x\nGET http://h/b\n") }
        #expect(nameless?.line == 3)
        let undefined = #expect(throws: HTTPFileImport.Failure.self) {
            try HTTPFileImport.parse("GET http://h/\n\n###\n# @name me\nGET http://h/me?id={{login.response.body.$.id}}\n\n###\n# @name login\nPOST http://h/login\n")
        }
        #expect(undefined?.line == 5 && undefined?.reason.contains("no request before it is named login") == true)
    }

    @Test("an OpenAPI document OpenAPIKit cannot read is refused with the place of the mistake")
    func openAPIErrorPlace() {
        let document = "openapi: 3.1.0\ninfo: {title: t, version: \"1\"}\npaths:\n  /a:\n    get:\n      parameters: [{name: x, in: nowhere}]\n      responses: {\"200\": {description: ok}}\n"
        let error = #expect(throws: OpenAPIImport.Failure.self) { try OpenAPIImport.parse(Data(document.utf8)) }
        #expect(error?.reason.contains("(at .paths['/a'].get") == true, "\(error?.reason ?? "")")
    }

    @Test("a Postman environment whose values are not a list is refused")
    func postmanValuesNotAList() {
        let error = #expect(throws: PostmanImport.Failure.self) { try PostmanImport.parse(Data(#"{"name": "e", "values": {"key": "a"}}"#.utf8)) }
        #expect(error?.reason.contains("must be a list") == true)
    }

    @Test("curl: a file:// or other non-HTTP URL is refused; $'…' ends at a NUL as bash does")
    func curlSchemesAndNul() throws {
        for command in ["curl file:///etc/passwd", "curl FTP://h/x", "curl gopher://h/"] {
            let error = #expect(throws: CurlImport.Failure.self, "\(command)") { try CurlImport.parse(command) }
            #expect(error?.reason.contains("are not imported") == true)
        }
        let imported = try #require(try CurlImport.parse(#"curl http://h/ -H $'X-A: one\0two' -H $'X-B: b\x00c'"#).first)
        #expect(imported.request.headers["X-A"] == "one")
        #expect(imported.request.headers["X-B"] == "b")
        let raw = #expect(throws: CurlImport.Failure.self) { try CurlImport.parse("curl http://h/\u{0}x") }
        #expect(raw?.reason.contains("NUL") == true)
    }

    @Test("HAR: headers redacted when the HAR was written are left out, and redacted URLs and bodies are pointed out")
    func harRedactedValues() throws {
        let har = #"""
        {"log": {"version": "1.2", "entries": [
          {"startedDateTime": "2024-05-01T10:00:00Z", "time": 1,
           "request": {"method": "POST", "url": "http://h/a?token=[REDACTED]", "headers": [{"name": "Authorization", "value": "[REDACTED]"}, {"name": "X-A", "value": "1"}],
                       "postData": {"mimeType": "application/json", "text": "{\"password\":\"[REDACTED]\"}"}},
           "response": {"status": 200, "headers": [], "content": {"size": 0}}}]}}
        """#
        let collection = try HARImport.collection(Data(har.utf8))
        let request = try #require(collection.items.first?.request)
        #expect(request.headers["Authorization"] == nil && request.headers["X-A"] == "1")
        #expect(collection.notes.count == 3, "\(collection.notes)")
        #expect(collection.notes.contains { $0.contains("Authorization had redacted values") })
    }
}

@Suite("writing to a workspace: third review fixes")
struct WorkspaceWriterThirdReviewTests {
    static let postmanWithAuth = #"""
    {"info": {"schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"},
     "auth": {"type": "bearer", "bearer": [{"key": "token", "value": "shared-token-9"}]},
     "item": [
      {"name": "Login", "request": {"method": "GET", "url": "http://h/a"}},
      {"name": "B", "request": {"method": "GET", "url": "http://h/b"}},
      {"name": "C", "request": {"method": "GET", "url": "http://h/c"}}
     ]}
    """#

    @Test("a Postman credential's generated name already stored or defined is numbered, and the requests follow (they used the old secret)")
    func generatedNamesAvoidTheWorkspace() throws {
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", "secrets: [login_token]\n")
        try files.write("curlew.secrets.yaml", "variables:\n  login_token: someone-elses\n", mode: 0o600)
        let collection = try PostmanImport.parse(Data(Self.postmanWithAuth.utf8))
        #expect(collection.secrets.count == 1, "one credential inherited by three requests is one secret")
        let summary = try WorkspaceWriter.add(collection, to: path)
        #expect(summary.secrets == ["login_token_2"])
        let session = try WorkspaceSession(try Workspace.load(path: path))
        for name in ["Login", "B", "C"] {
            #expect(try session.request(named: name).0.headers["Authorization"] == "Bearer shared-token-9")
        }
    }

    @Test("a variable behind a credential header or secret query parameter goes to the secrets file, not variables:")
    func referencedCredentialVariables() throws {
        let files = try WorkspaceFiles()
        let path = files.directory + "/curlew.yaml"
        let http = "@token = tok-in-variable-1\n@key = key-in-variable-2\n@page = 2\n\nGET http://h/a?api_key={{key}}&page={{page}}\nAuthorization: Bearer {{token}}\n"
        let summary = try WorkspaceWriter.add(try HTTPFileImport.parse(http), to: path)
        #expect(Set(summary.secrets) == ["token", "key"])
        #expect(summary.variables == ["page"])
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!text.contains("tok-in-variable-1") && !text.contains("key-in-variable-2"), "\(text)")
        let request = try WorkspaceSession(try Workspace.load(path: path)).request(named: "GET /a").0
        #expect(request.headers["Authorization"] == "Bearer tok-in-variable-1")
        #expect(request.customURL == "http://h/a?api_key=key-in-variable-2&page=2")
    }

    @Test("a block scalar ending in a # line keeps it when requests are added after it")
    func blockScalarEndingInHash() throws {
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", "requests:\n  script:\n    url: /s\n    body: |\n      echo hi\n      # the last line\n")
        try WorkspaceWriter.add(WorkspaceWriterTests.collection([Request.url("http://h/x")]), to: path)
        let session = try WorkspaceSession(try Workspace.load(path: path))
        #expect(try session.request(named: "script").0.requestSerializer == .raw(Data("echo hi\n# the last line\n".utf8), contentType: "text/plain; charset=utf-8"))
        #expect(session.workspace.requests.map(\.name) == ["script", "GET /x"])
    }

    @Test("environment names YAML would misread are quoted in the secrets file, and a quoted one is found again")
    func environmentNamesQuoted() throws {
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", "variables: {base: http://h}\n")
        for (name, token) in [("QA: EU", "qa-token"), ("[dev]", "dev-token"), ("#2", "two-token")] {
            let data = Data(#"{"name": "\#(name)", "values": [{"key": "token", "value": "\#(token)", "type": "secret"}, {"key": "x", "value": "1"}]}"#.utf8)
            try WorkspaceWriter.add(try PostmanImport.parse(data), to: path)
        }
        // A second secret for an environment already in the file goes under the same key.
        let more = Data(#"{"name": "QA: EU", "values": [{"key": "other", "value": "other-token", "type": "secret"}]}"#.utf8)
        try WorkspaceWriter.add(try PostmanImport.parse(more), to: path)
        let workspace = try Workspace.load(path: path)
        #expect(try WorkspaceSession(workspace, environment: "QA: EU").secretValues.contains("qa-token"))
        #expect(try WorkspaceSession(workspace, environment: "QA: EU").secretValues.contains("other-token"))
        #expect(try WorkspaceSession(workspace, environment: "[dev]").secretValues.contains("dev-token"))
        #expect(try WorkspaceSession(workspace, environment: "#2").secretValues.contains("two-token"))
    }

    @Test("a file with CR line ends is extended with CR line ends")
    func carriageReturnOnly() throws {
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", "requests:\r  a:\r    url: /a\r")
        try WorkspaceWriter.add(WorkspaceWriterTests.collection([Request.url("http://h/b")]), to: path)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!text.contains("\n"))
        #expect(try Workspace.load(path: path).requests.map(\.name) == ["a", "GET /b"])
    }

    @Test("curl: a :// inside a schemeless URL's query is not taken for its scheme")
    func schemelessURLWithURLInQuery() throws {
        let imported = try #require(try CurlImport.parse("curl 'example.com/a?next=https://x'").first)
        #expect(imported.request.customURL == "http://example.com/a?next=https://x")
    }
}
