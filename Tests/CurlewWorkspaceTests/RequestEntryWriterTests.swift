import CurlewAgent
import CurlewSessions
import CurlewWorkspace
import Foundation
import Testing

@Suite("saving one request entry")
struct RequestEntryWriterTests {
    static let workspace = """
    # top
    requests:
      first:   # the first one
        url: /a
        retry: 2
        expect: {status: 200}

      # between the entries
      second: {url: /b}
    groups:
      g: {batch: [second]}
    """

    @Test("saving replaces only the entry's lines, keeps the fields the editor does not edit, and reads back")
    func replaceKeepsTheRest() throws {
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", Self.workspace)
        var request = Request(.post, "/a2", headers: ["X-A": "1"])
        request.requestSerializer = .raw(Data(#"{"n":1}"#.utf8), contentType: "application/json")
        try WorkspaceWriter.save(request, query: ["q": "1", "v": "1.10", "w": "007", "s": "+1"], named: "first", in: path)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasPrefix("# top\nrequests:\n  first:\n"))
        // A query's numbers written as a user writes them; each reads back as the text it was.
        #expect(text.contains("q: 1") && text.contains("v: 1.10"), "\(text)")
        #expect(text.contains("    retry: 2") && text.contains("    expect:"))
        #expect(text.contains("\n\n  # between the entries\n  second: {url: /b}\n"), "\(text)")
        let session = try WorkspaceSession(try Workspace.load(path: path))
        let saved = try session.request(named: "first").0
        #expect(saved.method == .post && saved.path == "/a2" && saved.params == ["q": "1", "v": "1.10", "w": "007", "s": "+1"] && saved.headers["X-A"] == "1")
        #expect(saved.requestSerializer == .raw(Data(#"{"n":1}"#.utf8), contentType: "application/json"))
        #expect(saved.retry?.maxRetries == 2)
        #expect(session.workspace.request(named: "first")?.expectations.count == 1)
    }

    @Test("a rename replaces the entry under its new name; a new name is added at the end; a taken name is refused")
    func renameAndAdd() throws {
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", Self.workspace)
        try WorkspaceWriter.save(Request(.get, "/a"), named: "renamed", replacing: "first", in: path)
        try WorkspaceWriter.save(Request(.get, "/c"), named: "third", in: path)
        #expect(try Workspace.load(path: path).requests.map(\.name) == ["renamed", "second", "third"])
        #expect(throws: WorkspaceError.self) { try WorkspaceWriter.save(Request(.get, "/x"), named: "second", replacing: "third", in: path) }
    }

    @Test("delete removes the entry; one a group uses is refused with nothing written")
    func delete() throws {
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", Self.workspace)
        let error = #expect(throws: WorkspaceError.self) { try WorkspaceWriter.delete(requestNamed: "second", in: path) }
        #expect(error?.message.contains("nothing was written") == true, "\(error?.description ?? "")")
        try WorkspaceWriter.delete(requestNamed: "first", in: path)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text == "# top\nrequests:\n\n  # between the entries\n  second: {url: /b}\ngroups:\n  g: {batch: [second]}")
    }

    @Test("entries in a one-line requests block or an included file are not rewritten")
    func refusedLayouts() throws {
        let files = try WorkspaceFiles()
        let flow = try files.write("flow.yaml", "requests: {a: {url: /a}, b: {url: /b}}\n")
        let error = #expect(throws: WorkspaceError.self) { try WorkspaceWriter.save(Request(.get, "/x"), named: "a", in: flow) }
        #expect(error?.message.contains("one line") == true)
        try files.write("more.yaml", "requests:\n  inc: {url: /i}\n")
        let main = try files.write("curlew.yaml", "include: [more.yaml]\nrequests:\n  a: {url: /a}\n")
        let included = #expect(throws: WorkspaceError.self) { try WorkspaceWriter.save(Request(.get, "/x"), named: "inc", in: main) }
        #expect(included?.message.contains("included file") == true)
    }

    @Test("a read-only workspace is not written, even by root; text outside ASCII stays readable")
    func readOnlyAndUnicode() throws {
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", "requests:\n  café: {url: /a, description: \"Liste des cafés — résumé\"}\n")
        try WorkspaceWriter.save(Request(.get, "/b"), named: "café", in: path)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("café\":") && text.contains("Liste des cafés — résumé") && !text.contains("\\u"), "\(text.debugDescription)")
        chmod(path, 0o444)
        let error = #expect(throws: WorkspaceError.self) { try WorkspaceWriter.save(Request(.get, "/c"), named: "café", in: path) }
        #expect(error?.message.contains("read-only") == true)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == text)
    }

    @Test("a password or a secret parameter typed into the URL is saved to the secrets file, not the workspace")
    func urlCredentialsSaved() throws {
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", Self.workspace)
        try WorkspaceWriter.save(Request.url("http://u:urlpass-77@127.0.0.1:9/basic-auth/u/x?api_key=zz-111&page=1"), named: "typed", in: path)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!text.contains("urlpass-77") && !text.contains("zz-111"), "\(text)")
        let secrets = try String(contentsOfFile: files.directory + "/curlew.secrets.yaml", encoding: .utf8)
        #expect(secrets.contains("urlpass-77") && secrets.contains("zz-111"))
        let session = try WorkspaceSession(try Workspace.load(path: path))
        #expect(try session.request(named: "typed").0.customURL == "http://u:urlpass-77@127.0.0.1:9/basic-auth/u/x?api_key=zz-111&page=1")
    }

    @Test("a password in a saved request's JSON body or query goes to the secrets file; the request reads back the same")
    func bodyCredentialsSaved() throws {
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", Self.workspace)
        var request = Request(.post, "http://127.0.0.1:9/post", headers: ["Authorization": #"Bearer Hdr-11\{{x"#])
        request.requestSerializer = .raw(Data(#"{"user":"bob","password":"SavedPw-9"}"#.utf8), contentType: "application/json")
        try WorkspaceWriter.save(request, query: ["access_token": "SavedAt-10"], named: "login", in: path)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!text.contains("SavedPw-9") && !text.contains("SavedAt-10") && !text.contains("Hdr-11"), "\(text)")
        let secrets = try String(contentsOfFile: files.directory + "/curlew.secrets.yaml", encoding: .utf8)
        #expect(secrets.contains("SavedPw-9") && secrets.contains("SavedAt-10"))
        let saved = try WorkspaceSession(try Workspace.load(path: path)).request(named: "login").0
        #expect(saved.requestSerializer == .raw(Data(#"{"user":"bob","password":"SavedPw-9"}"#.utf8), contentType: "application/json"))
        #expect(saved.params["access_token"] == "SavedAt-10")
        // A secret header with escaped braces (literal text) moves too (found by review).
        #expect(saved.headers["Authorization"] == "Bearer Hdr-11{{x")
    }

    @Test("a secret saved from one place is also a reference where the entry repeats it: the URL's path and query, another header, the body, the query parameters; a short one is left (found by a new user's trial)")
    func repeatsOfMovedSecret() throws {
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", Self.workspace)
        var request = Request(.post, "http://127.0.0.1:9/users/Tok-9x8y7z/echo?e=Tok-9x8y7z&n=1234",
                              headers: ["Authorization": "Bearer Tok-9x8y7z", "X-Echo": "was Tok-9x8y7z", "X-Pin": "1234"])
        request.requestSerializer = .raw(Data(#"{"password":"1234","note":"Tok-9x8y7z and 1234"}"#.utf8), contentType: "application/json")
        try WorkspaceWriter.save(request, query: ["copy": "Tok-9x8y7z"], named: "echo", in: path)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!text.contains("Tok-9x8y7z") && text.contains("X-Pin: \"1234\""), "\(text)")
        let saved = try WorkspaceSession(try Workspace.load(path: path)).request(named: "echo").0
        #expect(saved.customURL == "http://127.0.0.1:9/users/Tok-9x8y7z/echo?e=Tok-9x8y7z&n=1234")
        #expect(saved.headers["X-Echo"] == "was Tok-9x8y7z" && saved.headers["X-Pin"] == "1234" && saved.params["copy"] == "Tok-9x8y7z")
        #expect(saved.requestSerializer == .raw(Data(#"{"password":"1234","note":"Tok-9x8y7z and 1234"}"#.utf8), contentType: "application/json"))
    }

    @Test("a save or an import into a workspace made read-only writes no secret either, and the secrets file is refused as a workspace (found by a new user's trial: the secrets were written, or a secret lost)")
    func readOnlyAndSecretsFileRefused() throws {
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", Self.workspace, mode: 0o444)
        let secretsPath = files.directory + "/curlew.secrets.yaml"
        let request = Request(.get, "http://127.0.0.1:9/get", headers: ["X-Api-Key": "RoSecret-9"])
        #expect(throws: WorkspaceError.self) { try WorkspaceWriter.save(request, named: "ro", in: path) }
        #expect(!FileManager.default.fileExists(atPath: secretsPath))
        var collection = ImportedCollection()
        collection.items = [.init(name: "ro", request: request)]
        #expect(throws: WorkspaceError.self) { try WorkspaceWriter.add(collection, to: path) }
        #expect(!FileManager.default.fileExists(atPath: secretsPath))
        chmod(path, 0o644)
        try WorkspaceWriter.save(request, named: "ro", in: path)
        #expect(try String(contentsOfFile: secretsPath, encoding: .utf8).contains("RoSecret-9"))
        for attempt in [{ _ = try Workspace.load(path: secretsPath) }, { _ = try WorkspaceWriter.add(collection, to: secretsPath) },
                        { _ = try WorkspaceWriter.add(collection, to: files.directory + "/new/curlew.secrets.yaml") }] {
            do {
                try attempt()
                Issue.record("the secrets file was taken as a workspace")
            } catch {
                #expect("\(error)".contains("is the secrets file of the workspace in its folder"), "\(error)")
            }
        }
        #expect(try String(contentsOfFile: secretsPath, encoding: .utf8).contains("RoSecret-9") && !FileManager.default.fileExists(atPath: files.directory + "/new"))
    }

    @Test("a body kept as text only for an escape inside its secret is written as json: members once the secret moves, so the secret is kept decoded and sent as the same JSON (found by review)")
    func escapedSecretInJSON() throws {
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", Self.workspace)
        for (name, body) in [("php", #"{"user":"bob","token":"abc\/def=="}"#), ("py", #"{"password":"päss","n":1}"#)] {
            var request = Request(.post, "http://127.0.0.1:9/post")
            request.requestSerializer = .raw(Data(body.utf8), contentType: "application/json")
            try WorkspaceWriter.save(request, named: name, in: path)
            let saved = try WorkspaceSession(try Workspace.load(path: path)).request(named: name).0
            guard case .raw(let data, _) = saved.requestSerializer else { Issue.record("no body"); continue }
            #expect(try JSONValue.parse(data) == JSONValue.parse(Data(body.utf8)), "\(String(decoding: data, as: UTF8.self))")
        }
        let secrets = try String(contentsOfFile: files.directory + "/curlew.secrets.yaml", encoding: .utf8)
        #expect(secrets.contains("abc/def==") && secrets.contains("päss"), "\(secrets)")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!text.contains("abc") && !text.contains("p\\u00e4ss"))
    }

    @Test("a JSON body with a key twice, or bytes that are not UTF-8, is saved as text; a credential in a body that is not UTF-8 still moves (found by review)")
    func repeatedKeysAndBadBytes() throws {
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", Self.workspace)
        #expect(WorkspaceWriter.jsonMembers(of: Data(#"{"a":1,"a":2}"#.utf8), contentType: "application/json") == nil)
        #expect(WorkspaceWriter.jsonMembers(of: Data(#"{"o":{"k":1,"k":[]}}"#.utf8), contentType: "application/json") == nil)
        #expect(WorkspaceWriter.jsonMembers(of: Data(#"{"a":1,"b":{"a":2}}"#.utf8), contentType: "application/json") != nil)
        var request = Request(.post, "http://127.0.0.1:9/post")
        request.requestSerializer = .raw(Data(#"{"a":1,"a":2}"#.utf8), contentType: "application/json")
        try WorkspaceWriter.save(request, named: "twice", in: path)
        #expect(try Workspace.load(path: path).request(named: "twice")?.bodyIsText == true)
        var bad = Request(.post, "http://127.0.0.1:9/post")
        bad.requestSerializer = .raw(Data(#"{"password":"BadBytesPw-3","n":""#.utf8) + Data([0xE9]) + Data(#""}"#.utf8), contentType: "application/json")
        try WorkspaceWriter.save(bad, named: "bad", in: path)
        #expect(!(try String(contentsOfFile: path, encoding: .utf8)).contains("BadBytesPw-3"))
        #expect(try String(contentsOfFile: files.directory + "/curlew.secrets.yaml", encoding: .utf8).contains("BadBytesPw-3"))
    }

    @Test("a JSON body json: members would send otherwise is kept as text, byte for byte (found by new users' trials: 1e400 went out as \"inf\", 1.50 as 1.5, \"caf\\u00e9\" as \"café\"); one they send as typed but for its spacing is written as members")
    func jsonTokensKept() throws {
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", Self.workspace)
        let kept = [#"{"big": 12345678901234567890123, "f": 1e400, "neg": -0}"#, #"{"p":1.50}"#, #"{"e": 1E5}"#, #"{"s":"caf\u00e9"}"#, #"{"s":"a\/b"}"#]
        for (index, body) in (kept + ["{\n  \"p\": 1.5,\n  \"n\": -3,\n  \"s\": \"café \\\"q\\\"\"\n}"]).enumerated() {
            var request = Request(.post, "http://127.0.0.1:9/post")
            request.requestSerializer = .raw(Data(body.utf8), contentType: "application/json")
            try WorkspaceWriter.save(request, named: "r\(index)", in: path)
        }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!text.contains("inf") && text.contains("12345678901234567890123"), "\(text)")
        let workspace = try Workspace.load(path: path)
        let session = try WorkspaceSession(workspace)
        for (index, body) in kept.enumerated() {
            #expect(try session.request(named: "r\(index)").0.requestSerializer == .raw(Data(body.utf8), contentType: "application/json"))
            #expect(workspace.request(named: "r\(index)")?.bodyIsText == true)
        }
        guard case .raw(let data, _) = try session.request(named: "r\(kept.count)").0.requestSerializer else { Issue.record("no body"); return }
        #expect(String(decoding: data, as: UTF8.self) == #"{"p":1.5,"n":-3,"s":"café \"q\""}"#, "sent compact, every token as typed")
        #expect(workspace.request(named: "r\(kept.count)")?.bodyIsText == false, "written as json: members")
    }

    @Test("a JSON body under a +json type is saved as json: members, as the reader takes json: under any type; a type that only starts like JSON stays text")
    func plusJSONTypes() throws {
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", Self.workspace)
        for (name, type) in [("api", "application/vnd.api+json; charset=utf-8"), ("problem", "Application/Problem+JSON"), ("seq", "application/json-seq")] {
            var request = Request(.post, "http://127.0.0.1:9/post", headers: ["Content-Type": type])
            request.requestSerializer = .raw(Data(#"{"data": {"type": "orders"}}"#.utf8), contentType: type)
            try WorkspaceWriter.save(request, named: name, in: path)
        }
        let workspace = try Workspace.load(path: path)
        #expect(workspace.request(named: "api")?.bodyIsText == false && workspace.request(named: "problem")?.bodyIsText == false)
        #expect(workspace.request(named: "seq")?.bodyIsText == true)
        let session = try WorkspaceSession(workspace)
        let api = try session.request(named: "api").0
        guard case .raw(let data, let type) = api.requestSerializer else { Issue.record("no body"); return }
        #expect(type == "application/vnd.api+json; charset=utf-8", "the type is kept beside json:")
        #expect(try JSONValue.parse(data) == JSONValue.parse(Data(#"{"data": {"type": "orders"}}"#.utf8)))
        #expect(MIMEType.isJSON("application/json") && MIMEType.isJSON(" application/hal+json ;x=1") && !MIMEType.isJSON("+json") && !MIMEType.isJSON("text/plain"))
    }

    @Test("an entry's URL is read as the interface reads it: host:port and localhost are URLs, users/1 is a path for the base URL")
    func entryURLs() throws {
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", """
        config: {baseURL: "http://127.0.0.1:9/api"}
        requests:
          hostPort: {url: "127.0.0.1:9/get"}
          local: {url: "localhost/x"}
          relative: {url: users/1}
        """)
        let session = try WorkspaceSession(try Workspace.load(path: path))
        #expect(try session.request(named: "hostPort").0.customURL == "http://127.0.0.1:9/get")
        #expect(try session.request(named: "local").0.customURL == "http://localhost/x")
        let relative = try session.request(named: "relative").0
        #expect(relative.customURL == nil && relative.path == "users/1")
    }

    @Test("the request as written keeps its templates")
    func asWritten() throws {
        let files = try WorkspaceFiles()
        let path = try files.write("curlew.yaml", "variables: {t: x}\nrequests:\n  r: {url: \"/u/{{t}}\", headers: {Authorization: \"Bearer {{t}}\"}}\n")
        let request = try Workspace.load(path: path).requestAsWritten(named: "r")
        #expect(request.path == "/u/{{t}}" && request.headers["Authorization"] == "Bearer {{t}}")
    }
}
