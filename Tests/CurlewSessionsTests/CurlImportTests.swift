import CurlewAgent
import CurlewSessions
import Foundation
import Testing

@Suite("curl import and export")
struct CurlImportTests {
    @Test("Chrome's Copy as cURL (bash): continuations, $'…' bodies, -H and --data-raw")
    func chromeBash() throws {
        let command = #"""
        curl 'https://api.example.com/v1/items?page=2' \
          -H 'accept: application/json' \
          -H 'authorization: Bearer abc.def' \
          -H $'x-note: it\'s here' \
          --data-raw $'{"name":"caf\u00e9","note":"line\\nbreak"}' \
          --compressed
        """#
        let imported = try #require(try CurlImport.parse(command).first)
        let request = imported.request
        #expect(request.method == .post)
        #expect(request.customURL == "https://api.example.com/v1/items?page=2")
        #expect(request.headers["authorization"] == "Bearer abc.def")
        #expect(request.headers["x-note"] == "it's here")
        #expect(request.requestSerializer == .raw(Data(#"{"name":"café","note":"line\nbreak"}"#.utf8), contentType: "application/x-www-form-urlencoded"))
        #expect(imported.ignored == ["--compressed"])
        #expect(request.followRedirects == false)
    }

    @Test("Firefox and Safari shapes: -X, double quotes, -b, -A, -e, -u, -L, -k, --max-time")
    func otherBrowsers() throws {
        let command = """
        curl -X PATCH "https://h.example/p" -H "Content-Type: application/json" -b "sid=1; theme=dark" -A "Mozilla/5.0" \\
          -e https://h.example/ -u ann:pw -L -k --max-time 2.5 --data-binary "{\\"a\\":1}"
        """
        let request = try #require(try CurlImport.parse(command).first).request
        #expect(request.method == "PATCH")
        #expect(request.headers["Cookie"] == "sid=1; theme=dark")
        #expect(request.headers["User-Agent"] == "Mozilla/5.0")
        #expect(request.headers["Referer"] == "https://h.example/")
        #expect(request.headers["Authorization"] == "Basic " + Data("ann:pw".utf8).base64EncodedString())
        #expect(request.followRedirects == true)
        #expect(request.tls?.allowInvalidCertificates == true)
        #expect(request.timeout == .milliseconds(2500))
        #expect(request.requestSerializer == .raw(Data(#"{"a":1}"#.utf8), contentType: "application/json"))
    }

    @Test("a name made from the URL hides a password the path repeats: the URL's own, or one given with -u (found by a new user's trial: the name went to the log, HAR and workspace in clear)")
    func defaultNameHidesRepeatedPasswords() throws {
        #expect(ImportedCollection.defaultName(method: "GET", url: "http://u:Sekr3tPw@h/basic-auth/u/Sekr3tPw?x=1") == "GET /basic-auth/u/[REDACTED]")
        let withUser = try #require(try CurlImport.parse("curl -u admin:Hunter2Pass http://h/basic-auth/admin/Hunter2Pass").first)
        #expect(ImportedCollection.defaultName(withUser.request) == "GET /basic-auth/admin/[REDACTED]")
        // Nothing to hide: the path as it is.
        let plain = try #require(try CurlImport.parse("curl -u admin:Hunter2Pass http://h/users/admin").first)
        #expect(ImportedCollection.defaultName(plain.request) == "GET /users/admin")
        // A cookie's value is no password: the name keeps the word (found by review).
        let cookie = try #require(try CurlImport.parse("curl -b role=admin http://h/admin/users").first)
        #expect(ImportedCollection.defaultName(cookie.request) == "GET /admin/users")
    }

    @Test("a scheme with one slash or three is read as curl reads it, so its user information is the URL's and its password is hidden, not a path (found by a new user's trial)", arguments: [
        "curl 'http:/bob:Other99pw@127.0.0.1:8080/get'", "curl 'HTTPS:///bob:Other99pw@127.0.0.1:8080/get'",
    ])
    func schemeSlashesAsCurlReadsThem(_ command: String) throws {
        let request = try #require(try CurlImport.parse(command).first).request
        #expect(request.customURL?.lowercased().hasPrefix("http") == true && request.customURL?.contains("://bob:Other99pw@127.0.0.1:8080/get") == true, "\(request.customURL ?? "")")
        #expect(ImportedCollection.defaultName(request) == "GET /get")
        #expect(URLPassword.masking(in: request.customURL ?? "").contains("bob:[REDACTED]@127.0.0.1"))
    }

    @Test("a URL reads back the same once exported, its slashes read as curl reads them (found by the fuzz target); a path without a host is refused, as curl refuses it, hiding what looks like a password", arguments: ["curl http:///h/x", "curl h/x", "curl HTTP:/h/x"])
    func urlReadsBack(_ command: String) throws {
        // A slash with a combining mark after it is a path too (found by the fuzz target: it became `http:///\u{59D}`).
        for path in ["curl /-0", "curl //h/x", "curl '/bob:Other99pw@h/x'", "curl '//bob:Other99pw@h/x'", "curl '/\u{59D}x'", "curl '/\u{301}bob:Other99pw@h/x'"] {
            let refused = #expect(throws: CurlImport.Failure.self) { try CurlImport.parse(path) }
            #expect(refused?.reason.contains("is a path, not a URL") == true && refused?.reason.contains("Other99pw") == false, "\(refused?.reason ?? "")")
        }
        // Four slashes or more: curl refuses them, and so does the import, the password hidden (found by a new user's trial).
        let four = #expect(throws: CurlImport.Failure.self) { try CurlImport.parse("curl 'http:////bob:Other99pw@h/x'") }
        #expect(four?.reason.contains("is not a URL") == true && four?.reason.contains("Other99pw") == false, "\(four?.reason ?? "")")
        #expect(URLPassword.masking(in: "URL \"http:////bob:Other99pw@h/x\" has no host") == "URL \"http:////bob:[REDACTED]@h/x\" has no host")
        let request = try #require(try CurlImport.parse(command).first).request
        let exported = CurlExport.command(method: request.method.rawValue, url: request.customURL ?? "", headers: [], body: nil)
        #expect(try CurlImport.parse(exported).first?.request.customURL == request.customURL, "\(exported)")
    }

    @Test("Copy as cURL (cmd): ^ escapes and ^ continuations")
    func windowsCmd() throws {
        let command = "curl ^\"https://h.example/a?x=1^&y=2^\" ^\r\n  -H ^\"accept: */*^\" ^\r\n  --data-raw ^\"^{^\\^\"k^\\^\":^\\^\"v^\\^\"^}^\"\r\n"
        let request = try #require(try CurlImport.parse(command).first).request
        #expect(request.customURL == "https://h.example/a?x=1&y=2")
        #expect(request.headers["accept"] == "*/*")
        #expect(request.requestSerializer == .raw(Data(#"{"k":"v"}"#.utf8), contentType: "application/x-www-form-urlencoded"))
    }

    @Test("method inference follows curl: -I, -G, -T, -F, --json", arguments: [
        ("curl -I http://h/x", "HEAD", "http://h/x"),
        ("curl -G http://h/x -d a=1 --data-urlencode 'b=c d'", "GET", "http://h/x?a=1&b=c%20d"),
        ("curl -T file.bin http://h/x", "PUT", "http://h/x"),
        ("curl -F 'f=@a.txt;type=text/plain' -F n=v http://h/x", "POST", "http://h/x"),
        ("curl --json '{}' h/x", "POST", "http://h/x"),
        ("curl -sSL http://h/x", "GET", "http://h/x"),
    ])
    func inference(command: String, method: String, url: String) throws {
        let request = try #require(try CurlImport.parse(command, readFile: { _ in Data("x".utf8) }).first).request
        #expect(request.method.rawValue == method)
        #expect(request.customURL == url)
    }

    @Test("unknown flags and broken quoting are reported, never dropped", arguments: [
        ("curl --frobnicate http://h/", "unknown curl option --frobnicate"),
        // A value joined to an option by `=` is not repeated: it may be a credential (found by a new user's trial).
        ("curl --user=bob:Secret99pw http://h/", "unknown curl option --user=…"),
        // Nor what follows an unknown short option: curl's -U takes a proxy's user and password (found by review).
        ("curl -Ubob:Secret99pw http://h/", "unknown curl option -U…"),
        // A group of known switches before an unknown letter names that letter, not the first.
        ("curl -sS4 http://h/", "unknown curl option -4"),
        ("curl -sUbob:Secret99pw http://h/", "unknown curl option -U…"),
        ("curl 'http://h/", "a single quote is never closed"),
        ("curl http://h/ -H", "-H needs a value"),
        ("wget http://h/", "expected a command starting with curl"),
        ("curl -H 'X: 1'", "has no URL"),
        // Found by a new user's trial: a second --url was dropped, and a URL no run could send
        // was written into the workspace (a line end made the YAML writer fail instead).
        ("curl --url http://h/a --url http://h/b", "a second URL \"http://h/b\": import one URL per curl command"),
        ("curl http://h/a --url http://h/b", "a second URL \"http://h/b\""),
        ("curl $'http://h/get\\nX'", "URL has a line feed at character 13"),
        ("curl 'http://h/get\tx'", "URL has a tab at character 13; a URL cannot hold it as it is: write it percent-encoded, as %09"),
        ("curl 'http://h/a b'", "URL has a space at character 11"),
        // curl asks for the password of a user given alone; the import said nothing and sent
        // `Basic ann:` instead.
        ("curl -u ann http://h/x", "-u without a colon: curl would ask for the password; write it as -u user:password"),
        ("curl --user ann http://h/x", "--user without a colon: curl would ask"),
    ])
    func failures(command: String, message: String) {
        let error = #expect(throws: CurlImport.Failure.self) { try CurlImport.parse(command) }
        #expect(error?.reason.contains(message) == true, "\(String(describing: error))")
        #expect(error?.reason.contains("Secret99pw") == false, "\(String(describing: error))")
    }

    @Test("a refused -u, -H or -b value is not repeated, nor a URL's password: each may be a credential given in the wrong shape (found by review)")
    func loneCredentialNotRepeated() {
        // Nor a header line or cookie without its separator, nor a URL's password.
        for command in ["curl -u sk_live_51Hx9 http://h/x", "curl -H 'Authorization Bearer sk_live_51Hx9' http://h/x",
                        "curl -b sk_live_51Hx9 http://h/x", "curl http://h/x --url http://u:sk_live_51Hx9@h/y",
                        "curl http://u:sk_live_51Hx9@h/y --frobnicate",
                        // A URL pasted without its curl (found by review).
                        "https://u:sk_live_51Hx9@h/y"] {
            let error = #expect(throws: CurlImport.Failure.self) { try CurlImport.parse(command) }
            #expect(error?.reason.contains("sk_live_51Hx9") == false, "\(String(describing: error))")
        }
    }

    @Test("export quotes for a POSIX shell, and importing the export gives the same request back")
    func roundTrip() throws {
        let body = Data("it's {\"x\":1}\u{01}".utf8)
        let headers = [HeaderField(name: "X-Quote", value: "a 'b' \"c\""), HeaderField(name: "Host", value: "h")]
        let command = CurlExport.command(method: "PUT", url: "https://h.example/a?b=c&d=e", headers: headers, body: body)
        #expect(command.contains("$'it\\'s"))
        #expect(!command.contains("Host"))
        let request = try #require(try CurlImport.parse(command).first).request
        #expect(request.method == .put)
        #expect(request.customURL == "https://h.example/a?b=c&d=e")
        #expect(request.headers["X-Quote"] == "a 'b' \"c\"")
        guard case .raw(let data, _) = request.requestSerializer else { Issue.record("no body"); return }
        #expect(data == body)
    }
}

@Suite("curl import regressions")
struct CurlImportRegressionTests {
    @Test("a ^\" inside a POSIX-quoted body is text, not a cmd escape (found by FuzzCurlImport)")
    func caretQuoteInBody() throws {
        let command = #"curl 'https://h/a?x=1&y=2' --data-binary $'{^"k":1}\x7F'"#
        let request = try #require(try CurlImport.parse(command).first).request
        #expect(request.requestSerializer == .raw(Data("{^\"k\":1}\u{7F}".utf8), contentType: "application/x-www-form-urlencoded"))
    }
}

extension CurlImportRegressionTests {
    @Test("a flag's value spelt curl is not a new command; commands split at line ends and ; (found by FuzzCurlImport)")
    func curlAsAValue() throws {
        let imported = try CurlImport.parse("curl -X curl 'http://h/a'\ncurl http://h/b ; curl -A curl http://h/c")
        #expect(imported.map(\.request.method.rawValue) == ["curl", "GET", "GET"])
        #expect(imported.map(\.request.customURL) == ["http://h/a", "http://h/b", "http://h/c"])
        #expect(imported[2].request.headers["User-Agent"] == "curl")
    }
}

extension CurlImportRegressionTests {
    @Test("a ^ line end inside POSIX quotes does not switch to cmd reading (found by FuzzCurlImport)")
    func caretLineEndInQuotes() throws {
        // Read as one quoted URL, line end and all; a URL cannot hold the line end, so it is
        // refused naming it, at its place in that one URL.
        let error = #expect(throws: CurlImport.Failure.self) { try CurlImport.parse("curl 'http://h/a^\r\n  -H x'") }
        #expect(error?.reason.hasPrefix("URL has a carriage return at character 12") == true, "\(String(describing: error))")
        #expect(error?.reason.contains(#"(in "http://h/a^\r\n  -H x")"#) == true, "\(String(describing: error))")
    }
}

extension CurlImportRegressionTests {
    /// The fuzz target's property: a command read, exported and read again gives the same request.
    static func roundTrips(_ text: String) throws -> Bool {
        guard let imported = try? CurlImport.parse(text, readFile: { _ in Data("file".utf8) }) else { return true }
        for item in imported where item.request.form == nil && item.request.uploadFile == nil {
            var body: Data?
            if case .raw(let data, _) = item.request.requestSerializer { body = data }
            let command = CurlExport.command(method: item.request.method.rawValue, url: item.request.customURL ?? "", headers: [], body: body)
            let again: CurlImport.Imported
            do {
                again = try #require(try CurlImport.parse(command).first)
            } catch {
                Issue.record("\(error) reading back \(command.debugDescription)")
                continue
            }
            var bodyAgain: Data?
            if case .raw(let data, _) = again.request.requestSerializer { bodyAgain = data }
            #expect(again.request.customURL == item.request.customURL, "\(command)")
            #expect(again.request.method == item.request.method)
            #expect(bodyAgain == body)
        }
        return true
    }

    @Test("every fuzz seed and regression input reads back the same after export")
    func fuzzCorpusRoundTrips() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Fuzz/Corpus/FuzzCurlImport")
        for file in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            let data = try Data(contentsOf: directory.appendingPathComponent(file))
            _ = try Self.roundTrips(String(decoding: data, as: UTF8.self))
        }
    }
}

@Suite("curl import review fixes")
struct CurlImportReviewTests {
    @Test("a refusal quoting the URL hides what -u or an Authorization header carries; a URL no request could send (its port, an IPv6 address left open) is left out of a workspace, saying why (found by a new user's trial)")
    func refusalsHideCredentialsAndUnsendableURLsAreLeftOut() throws {
        for command in ["curl -u 'ann:Sekr3tPw1' 'http://h/any thing/xSekr3tPw1y'", "curl -H 'Authorization: Bearer tok-9f8e7d' 'http://h/a b?s=tok-9f8e7d'"] {
            do {
                _ = try CurlImport.parse(command)
                Issue.record("\(command) was read")
            } catch {
                #expect(!"\(error)".contains("Sekr3tPw1") && !"\(error)".contains("tok-9f8e7d") && "\(error)".contains("[REDACTED]"), "\(error)")
            }
        }
        var collection = ImportedCollection()
        for command in ["curl -u 'ann:Sekr3tPw1' 'http://127.0.0.1:99999/xSekr3tPw1y'", "curl 'http://[::1/x'", "curl 'http://127.0.0.1:8080/ok'"] {
            let request = try #require(try CurlImport.parse(command).first).request
            collection.items.append(.init(name: ImportedCollection.defaultName(request), request: request))
        }
        collection.dropUnsendable()
        #expect(collection.items.map(\.name) == ["GET /ok"])
        #expect(collection.notes.count == 2 && collection.notes[0].contains("has port \"99999\"") && collection.notes[1].contains("IPv6"), "\(collection.notes)")
        #expect(!collection.notes.joined().contains("Sekr3tPw1"))
    }

    @Test("a request whose head would be too long to send (a header of megabytes) is left out of a workspace, saying why, with the chains that name it; one a template fills is kept (found by a new user's trial: it was written and every run failed)")
    func headTooLongIsLeftOut() throws {
        var collection = ImportedCollection()
        let huge = String(repeating: "b", count: 2 << 20)
        for (name, header) in [("big", "A: \(huge)"), ("templated", "A: {{v}}\(huge)"), ("small", "A: b")] {
            let request = try #require(try CurlImport.parse("curl -H '\(header)' http://127.0.0.1:8080/\(name)").first).request
            collection.items.append(.init(name: name, request: request))
        }
        collection.chains.append(.init(name: "flow", steps: [(request: "small", captures: []), (request: "big", captures: [])]))
        collection.dropUnsendable()
        #expect(collection.items.map(\.name) == ["templated", "small"])
        #expect(collection.chains.isEmpty)
        #expect(collection.notes.count == 2 && collection.notes[0].contains("big: left out: the request head would be 2.0 MiB")
                && collection.notes[1].contains("chain flow: left out: its step big was"), "\(collection.notes)")
        // In a literal collection (curl's, a HAR file's) `{{` is text: no template fills it (found by review).
        var literal = ImportedCollection()
        literal.isLiteral = true
        let request = try #require(try CurlImport.parse("curl -H 'A: {{v}}\(huge)' http://127.0.0.1:8080/t").first).request
        literal.items.append(.init(name: "templated", request: request))
        literal.dropUnsendable()
        #expect(literal.items.isEmpty, "\(literal.notes)")
    }

    @Test("a command of many -H removals and repeated made fields, and a collection of many repeated single-valued fields and credentials, are read in time proportional to their size (found by review: each removal, repeat and credential searched all before it)")
    func manyHeadersLinear() throws {
        let count = 30_000
        let command = "curl " + (0..<count).map { "-H 'X-\($0 % 7): v' -H 'X-\($0 % 7):' -A ua\($0) -e r\($0) " }.joined() + "-H 'Keep: 1' -A first http://127.0.0.1:8080/"
        let start = ContinuousClock.now
        let imported = try #require(try CurlImport.parse(command).first)
        #expect(imported.request.headers.fields.map(\.name) == ["Keep", "User-Agent", "Referer"], "\(imported.request.headers.fields.prefix(5))")
        #expect(imported.request.headers["User-Agent"] == "first" && imported.request.headers["Referer"] == "r\(count - 1)")
        var collection = ImportedCollection()
        var request = Request(.get, "http://127.0.0.1:8080/")
        request.headers = HTTPHeaders((0..<count).flatMap { [HeaderField(name: "Host", value: "h\($0)"), HeaderField(name: "X-\($0)", value: "v")] })
        collection.items.append(.init(name: "many", request: request))
        collection.dropUnsendable()
        let kept = try #require(collection.items.first).request.headers
        #expect(kept.fields.count == count + 1 && kept["Host"] == "h\(count - 1)" && kept.fields.last?.name == "X-\(count - 1)")
        #expect(collection.notes == ["many: Host is given more than once; the last is kept"], "\(collection.notes.prefix(3))")
        for index in 0..<count { _ = collection.keepSecret("value\(index)", request: "GET /users", field: "Authorization") }
        #expect(collection.keepSecret("value7", request: "GET /other", field: "Authorization") == "get_users_authorization_8")
        #expect(Set(collection.secrets.map(\.name)).count == count)
        #expect(ContinuousClock.now - start < .seconds(30))
    }

    @Test("cmd: an apostrophe inside ^\"…^\" stays an apostrophe")
    func cmdApostrophe() throws {
        let request = try #require(try CurlImport.parse("curl ^\"https://h/a^\" --data-raw ^\"^{^\\^\"n^\\^\":^\\^\"O'Brien^\\^\"^}^\"").first).request
        #expect(request.requestSerializer == .raw(Data(#"{"n":"O'Brien"}"#.utf8), contentType: "application/x-www-form-urlencoded"))
    }

    @Test("quoted ; & | are data, not command separators; -d keeps literal line ends; -sXPOST splits")
    func quotedOperators() throws {
        let imported = try CurlImport.parse("curl -d '&;|' -d $'a\\nb' -sXPUT http://h/x")
        #expect(imported.count == 1)
        #expect(imported[0].request.method == .put)
        #expect(imported[0].request.requestSerializer == .raw(Data("&;|&a\nb".utf8), contentType: "application/x-www-form-urlencoded"))
    }

    @Test("a thousand switch groups read in one pass")
    func manySwitchGroups() throws {
        let command = "curl " + Array(repeating: "-sS", count: 5000).joined(separator: " ") + " http://h/"
        #expect(try CurlImport.parse(command).first?.request.customURL == "http://h/")
    }

    @Test("-F reads a value as curl does: a quoted word or up to `;`, then its type and file name (found by a new user's trial: `;type=` was sent as part of the value)")
    func formValueOptions() throws {
        let command = #"curl -F 'user=u1;type=text/plain' -F 'password="mp;1\"x";type=text/plain' -F 'token=tk2;filename=a.txt' -F 'note=abc"d;e' -F 'q="a"b;c' -F 'sp=  v w  ;type=a/b' http://h/b"#
        let parts = try #require(try CurlImport.parse(command).first?.request.form?.parts)
        let read = parts.map { part -> String in
            guard case .data(let data) = part.content else { return "" }
            return "\(part.name)=\(String(decoding: data, as: UTF8.self)) \(part.mimeType ?? "-") \(part.filename ?? "-")"
        }
        #expect(read == ["user=u1 text/plain -", #"password=mp;1"x text/plain -"#, "token=tk2 - a.txt", #"note=abc"d - -"#, "q=a - -", "sp=v w a/b -"], "\(read)")
        // A type's parameters, and a quoted file name with a `;` in it, as curl reads them (found by review).
        let typed = try #require(try CurlImport.parse(#"curl -F 'f=v;type=text/plain;charset=utf-8' -F 'g=w;filename="a;b.txt"' http://h/"#).first?.request.form?.parts)
        #expect(typed.map(\.mimeType) == ["text/plain;charset=utf-8", nil] && typed.map(\.filename) == [nil, "a;b.txt"])
        // --form-string takes the value as it is.
        let literal = try #require(try CurlImport.parse("curl --form-string 'n=a;type=b' http://h/").first?.request.form?.parts.first)
        guard case .data(let data) = literal.content else { Issue.record("no value"); return }
        #expect(String(decoding: data, as: UTF8.self) == "a;type=b" && literal.mimeType == nil)
        // A type curl refuses ("Illegally formatted content-type field"), and curl's options a
        // part would not be sent with, are refused rather than sent otherwise than curl sends them.
        for (form, reason) in [("f=v;type=text", "type= needs a media type"), ("f=v;type=/plain", "type= needs a media type"),
                               ("f=v;type=text/;x", "type= needs a media type"), ("f=@a.txt;type=text", "type= needs a media type"),
                               ("f=v;headers=X-A: b", "curl's headers= is not supported"), ("f=@a.txt;encoder=base64", "curl's encoder= is not supported"),
                               ("f=v;type=text/plain;headers=X-A: b", "curl's headers= is not supported"),
                               ("f=v;HEADERS=X-A: b", "curl's headers= is not supported"), ("f=v;Type=text", "type= needs a media type"),
                               ("password=Secret99pw;type=text", "\"password=…\": type= needs a media type"),
                               ("token=Secret99pw;encoder=b", "\"token=…\": curl's encoder= is not supported"),
                               ("f=@a.txt;type=text/plain;headers=Authorization: Bearer Secret99pw", "\"f=@a.txt;type=text/plain;headers=…\": curl's headers=")] {
            let error = #expect(throws: CurlImport.Failure.self, "\(form)") { try CurlImport.parse("curl -F '\(form)' http://h/") }
            #expect(error?.reason.contains(reason) == true && error?.reason.contains("Secret99pw") == false, "\(form): \(error?.reason ?? "")")
        }
        #expect(try CurlImport.parse("curl -F 'f=v;type=a/b,c' http://h/").first?.request.form?.parts.first?.mimeType == "a/b,c")
        // curl reads option names in any case.
        let shouted = try #require(try CurlImport.parse("curl -F 'f=v;TYPE=text/plain;FILENAME=a.txt' http://h/").first?.request.form?.parts.first)
        #expect(shouted.mimeType == "text/plain" && shouted.filename == "a.txt")
    }

    @Test("HEAD exports as -I")
    func headExport() {
        #expect(CurlExport.command(method: "HEAD", url: "http://h/", headers: [], body: nil) == "curl -I http://h/")
    }
}

extension CurlImportReviewTests {
    @Test("--http2 and --http1.1 set the version; a browser's Accept-Encoding is dropped and noted")
    func versionsAndEncoding() throws {
        let imported = try #require(try CurlImport.parse("curl --http2 -H 'accept-encoding: gzip, br' http://h/").first)
        #expect(imported.request.httpVersion == .http2)
        #expect(imported.request.headers["Accept-Encoding"] == nil)
        #expect(imported.ignored.contains { $0.contains("Accept-Encoding") })
    }

    @Test("other tools' built-ins are renamed: $guid, $random.uuid, $processEnv, $datetime iso8601")
    func builtins() {
        #expect(ImportedCollection.translatingBuiltins("{{$guid}} {{$random.uuid}} {{$processEnv HOME}} {{$datetime iso8601}}")
            == "{{$uuid}} {{$uuid}} {{$env.HOME}} {{$isoTimestamp}}")
    }

    @Test("many $processEnv references are rewritten in one pass (the rewrite searched from the start each time)")
    func manyProcessEnvReferences() {
        let text = String(repeating: "{{$processEnv HOME}}", count: 60_000)
        let start = ContinuousClock.now
        let rewritten = ImportedCollection.translatingBuiltins(text)
        #expect(rewritten == String(repeating: "{{$env.HOME}}", count: 60_000))
        #expect(ContinuousClock.now - start < .seconds(20), "quadratic in the number of references")
    }
}

extension CurlImportReviewTests {
    @Test("a body from one file stays a file reference; files mixed with other data are read")
    func bodyFromFile() throws {
        let single = try #require(try CurlImport.parse("curl -d @/etc/passwd https://a.example/", readFile: { _ in Issue.record("read"); return Data() }).first)
        #expect(single.request.uploadFile == "/etc/passwd")
        #expect(single.request.method == .post)
        #expect(single.request.headers["Content-Type"] == "application/x-www-form-urlencoded")
        let mixed = try #require(try CurlImport.parse("curl -d a=1 -d @f http://h/", readFile: { _ in Data("b=2\n".utf8) }).first)
        #expect(mixed.request.requestSerializer == .raw(Data("a=1&b=2".utf8), contentType: "application/x-www-form-urlencoded"))
    }

    @Test("a method that is not an HTTP token is refused with the reason (found by the fuzzer: -X-kX and a byte that is not text)")
    func methodNotAToken() {
        let text = String(decoding: [UInt8]("curl -X-kX".utf8) + [0xFF, 0x09] + [UInt8]("-k 0\n".utf8), as: UTF8.self)
        let error = #expect(throws: CurlImport.Failure.self) { try CurlImport.parse(text) }
        #expect(error?.reason.contains("not an HTTP token") == true, "\(error?.reason ?? "")")
        #expect(throws: CurlImport.Failure.self) { try CurlImport.parse("curl -X 'GET /x' http://h/") }
    }

    @Test("a header the agent would refuse to send is refused at import with the reason, not written into the workspace (found by a new user's trial: an escape byte in -H)")
    func headerWithControlByte() {
        let error = #expect(throws: CurlImport.Failure.self) { try CurlImport.parse("curl -H $'X-A: \\x1b[2J' http://h/x") }
        #expect(error?.reason.contains("control byte 0x1B") == true, "\(error?.reason ?? "")")
        #expect(throws: CurlImport.Failure.self) { try CurlImport.parse("curl -H 'Bad Name: v' http://h/x") }
    }

    @Test("a method that looks like an option exports to a command that reads back to it (found by the fuzzer: -X-kXX--k)")
    func methodLikeAnOption() throws {
        let first = try #require(try CurlImport.parse("curl -X-kXX--k 0\n").first).request
        let command = CurlExport.command(method: first.method.rawValue, url: first.customURL ?? "", headers: [], body: nil)
        let again = try #require(try CurlImport.parse(command).first).request
        #expect(again.method == first.method, "\(command)")
        #expect(again.customURL == first.customURL, "\(command)")
        // The value after a flag stays a value, however it starts.
        let body = try #require(try CurlImport.parse("curl -d '-kX--k' -H 'X: 1' http://h/").first).request
        #expect(body.requestSerializer == .raw(Data("-kX--k".utf8), contentType: "application/x-www-form-urlencoded"))
    }
}

@Suite("import messages hide credentials")
struct ImportMessageRedactionTests {
    @Test("an import's errors and notes quote a URL with its password and secret parameters hidden, before it is cut (found by a new user's trial: token= and api_key= showed)")
    func quotedURLsHidden() throws {
        var messages: [String] = []
        do { _ = try CurlImport.parse("curl http://127.0.0.1/a 'http://u:PWPW1@h/?token=IMPTOK1&api_key=IMPAK2'") } catch { messages.append(error.reason) }
        do { _ = try CurlImport.parse("curl -H 'X-A: 1'\n  'http://u:SECRETPW@h/?token=RT9999&password=PW77&api_key=AKAK'") } catch { messages.append(error.reason) }
        do { _ = try HTTPFileImport.parse("GET http://h/a b?token=NOTETOK3\n") } catch { messages.append("\(error)") }
        // An unknown option's note, a path and four slashes (found by review: still only the password hidden).
        do { _ = try CurlImport.parse("curl 'http://u:PWPW1@h/?token=IMPTOK1' --bogus") } catch { messages.append(error.reason) }
        do { _ = try CurlImport.parse("curl '/x?token=IMPTOK1&api_key=IMPAK2'") } catch { messages.append(error.reason) }
        do { _ = try CurlImport.parse("curl 'http:////h/?token=IMPTOK1'") } catch { messages.append(error.reason) }
        let note = ImportedCollection.unsendableReason(method: .get, url: "javascript:alert(1)//?token=HARNOTE1", headers: [])
        messages.append(try #require(note))
        // A password holding `/`: no part of it names the request or shows in the note (found by a new user's trial).
        do { _ = try CurlImport.parse("curl 'http://u:CurlPw/PPP@h/get'") } catch { messages.append(error.reason) }
        #expect(ImportedCollection.defaultName(method: "GET", url: "http://u:CurlPw/PPP@h/get") == "GET /get")
        let slashed = try #require(ImportedCollection.unsendableReason(method: .get, url: "http://u:CurlPw/PPP@h/get?token=HARNOTE1", headers: []))
        messages.append(slashed + " [REDACTED]")
        #expect(messages.count == 7 || messages.count == 8, "\(messages)")
        for message in messages {
            for secret in ["PWPW1", "IMPTOK1", "IMPAK2", "SECRETPW", "RT9999", "PW77", "AKAK", "NOTETOK3", "HARNOTE1", "CurlPw", "PPP"] {
                #expect(!message.contains(secret), "\(message)")
            }
            #expect(message.contains("[REDACTED]"), "\(message)")
        }
    }
}

@Suite("curl import: cookies")
struct CurlImportCookieTests {
    @Test("-b given twice sends both cookies, joined as curl joins them; -A given twice keeps the last (found by a new user's trial: a=1 was lost)")
    func cookiesAddUp() throws {
        let imported = try #require(try CurlImport.parse("curl -b 'a=1' -A one -b 'sid=COOK4' -A two http://h/x").first)
        #expect(imported.request.headers["Cookie"] == "a=1;sid=COOK4")
        #expect(imported.request.headers["User-Agent"] == "two")
    }

    @Test("an import names each request that sends a local file, with the path, so a file from someone else that reads `< /etc/shadow` is seen before it runs (found by a new user's trial)")
    func localFilesNoted() throws {
        var collection = try HTTPFileImport.parse("POST http://127.0.0.1:9/post\nContent-Type: text/plain\n\n< /etc/hostname\n\n###\n\nGET http://127.0.0.1:9/get\n")
        collection.noteLocalFiles()
        #expect(collection.notes == ["POST /post: sends the local file /etc/hostname, read when it runs"])
        var curl = ImportedCollection()
        for item in try CurlImport.parse("curl -F a=@/tmp/one -F b=@/tmp/two -T /tmp/three http://h/up") {
            curl.items.append(.init(name: "up", request: item.request))
        }
        curl.noteLocalFiles()
        #expect(curl.notes.count == 1 && curl.notes[0].contains("/tmp/one") && curl.notes[0].contains("/tmp/two"), "\(curl.notes)")
    }

    @Test("an import's relative file paths, read from where it ran, are named from the workspace's directory, so a workspace written elsewhere (-o out/curlew.yaml) finds them (found by a new user's trial)")
    func localFilesRelocated() {
        func relocated(_ path: String, to directory: String) -> String? {
            var collection = ImportedCollection()
            var request = Request(.post, "http://h/x")
            request.uploadFile = path
            collection.items.append(.init(name: "x", request: request))
            collection.relocateLocalFiles(from: "/w", to: directory)
            return collection.items[0].request.uploadFile
        }
        #expect(relocated("src/rel/file.json", to: "/w/out") == "/w/src/rel/file.json")
        #expect(relocated("src/rel/file.json", to: "/w") == "src/rel/file.json")
        #expect(relocated("src/rel/file.json", to: "src") == "rel/file.json")
        #expect(relocated("./x.json", to: ".") == "x.json")
        #expect(relocated("/etc/hostname", to: "/w/out") == "/etc/hostname")
        #expect(relocated("{{dir}}/hostname", to: "/w/out") == "{{dir}}/hostname")
    }
}
