@testable import CurlewAgent
import CurlewTransport
import Foundation
import Testing

@Suite("Composing requests")
struct RequestComposerTests {
    let config = NetworkConfig(baseURL: "http://api.example.test/", cdnURL: "http://cdn.example.test", apiVersion: "2")

    private func url(_ request: Request, config: NetworkConfig? = nil) throws(RequestError) -> String {
        try RequestComposer(config: config ?? self.config).compose(request).transfer.url
    }

    @Test("a raw body's type: the request's own Content-Type wins, then the body's type, then a config default, then a guessed type")
    func rawBodyTypePrecedence() throws {
        var config = NetworkConfig(baseURL: "http://api.example.test")
        config.defaultHeaders = HTTPHeaders([HeaderField(name: "Content-Type", value: "application/json")])
        func sentType(_ request: Request, config: NetworkConfig) throws -> String? {
            let (transfer, composed) = try RequestComposer(config: config).compose(request)
            let sent = transfer.headers.filter { ASCII.equalsIgnoringCase($0.name, "Content-Type") }.map { $0.value }
            #expect(sent.count <= 1, "one Content-Type goes out")
            #expect(composed.headers.first { ASCII.equalsIgnoringCase($0.name, "Content-Type") }?.value == sent.first)
            return sent.first
        }
        var request = Request(.post, "/x")
        request.requestSerializer = .raw(Data("<a/>".utf8), contentType: "application/xml")
        #expect(try sentType(request, config: config) == "application/xml")
        #expect(try RequestComposer(config: config).compose(request).composed.automaticHeaders.contains("Content-Type"))
        request.rawContentTypeIsFallback = true
        #expect(try sentType(request, config: config) == "application/json")
        #expect(try sentType(request, config: NetworkConfig(baseURL: "http://api.example.test")) == "application/xml")
        request.headers = HTTPHeaders([HeaderField(name: "content-type", value: "text/csv")])
        #expect(try sentType(request, config: config) == "text/csv")
        request.rawContentTypeIsFallback = false
        #expect(try sentType(request, config: config) == "text/csv")
        // A type given with the body is checked as a header is: no line can be smuggled through it.
        request.headers = HTTPHeaders()
        request.requestSerializer = .raw(Data("a".utf8), contentType: "text/plain\r\nX-Evil: 1")
        #expect(throws: RequestError.self) { try RequestComposer(config: config).compose(request) }
    }

    @Test("the config's base URL, the API version and the path are joined with single slashes")
    func baseVersionPath() throws {
        #expect(try url(Request(.get, "/users/7")) == "http://api.example.test/v2/users/7")
        #expect(try url(Request(.get, "users/7")) == "http://api.example.test/v2/users/7")
    }

    @Test("precedence: full custom URL, then the request's base URL, then the config's")
    func precedence() throws {
        var request = Request(.get, "/a", baseURL: "http://other.test")
        #expect(try url(request) == "http://other.test/v2/a")
        request.customURL = "https://full.test/x?y=1"
        #expect(try url(request) == "https://full.test/x?y=1")
    }

    @Test("a custom URL without a host is a path under the base")
    func hostlessCustomURL() throws {
        #expect(try url(Request(.get, "/ignored", customURL: "/custom/path")) == "http://api.example.test/v2/custom/path")
    }

    @Test("useCDN picks the CDN URL, or the base URL when there is none")
    func cdn() throws {
        #expect(try url(Request(.get, "/img.png", useCDN: true)) == "http://cdn.example.test/v2/img.png")
        let noCDN = NetworkConfig(baseURL: "http://api.example.test")
        #expect(try url(Request(.get, "/img.png", useCDN: true), config: noCDN) == "http://api.example.test/img.png")
    }

    @Test("query parameters are percent-encoded and appended to an existing query")
    func queryParameters() throws {
        let request = Request(.get, "/search?sort=asc", params: ["q": "two words&more", "tags": ["a", "b"], "n": 3])
        #expect(try url(request) == "http://api.example.test/v2/search?sort=asc&q=two%20words%26more&tags%5B%5D=a&tags%5B%5D=b&n=3")
    }

    @Test("default parameters are merged, the request's win, and a request can opt out")
    func defaultParams() throws {
        let config = NetworkConfig(baseURL: "http://h.test", defaultParams: ["app": "curlew", "lang": "en"])
        #expect(try url(Request(.get, "/p", params: ["lang": "fr"]), config: config) == "http://h.test/p?app=curlew&lang=fr")
        #expect(try url(Request(.get, "/p", params: ["x": 1], usesDefaultParams: false), config: config) == "http://h.test/p?x=1")
    }

    @Test("request headers override default headers by name, whatever the case")
    func headerMerge() throws {
        let config = NetworkConfig(baseURL: "http://h.test", defaultHeaders: ["Accept": "text/plain", "X-App": "curlew"], userAgent: "UA/1")
        let composed = try RequestComposer(config: config).compose(Request(.get, "/", headers: ["accept": "application/json"])).composed
        #expect(composed.headers.map(\.name) == ["X-App", "accept", "User-Agent"])
        #expect(composed.headers.first { $0.name == "accept" }?.value == "application/json")
    }

    @Test("malformed URLs are refused with a message that says why", arguments: [
        "http://exa mple.test/", "ftp://example.test/file", "http:///nohost", "not a url", "http://x.test/\u{7}",
    ])
    func invalidURLs(_ bad: String) {
        #expect(throws: RequestError.self) { try url(Request.url(bad)) }
        do {
            _ = try url(Request.url(bad))
        } catch {
            #expect(error.kind == .invalidURL)
            #expect(!error.message.isEmpty)
        }
    }

    @Test("a space, tab or control character in a URL is named, with where it is and how to write it (in a host: remove it), before the URL itself, so a line cut short keeps them")
    func unsentCharactersNamed() {
        for (bad, said) in [("http://h.test/a b", "has a space at character 16; a URL cannot hold it as it is: write it percent-encoded, as %20"),
                            ("http://h.test/a\tb", "has a tab at character 16"), ("http://h.test/\u{7}", "has the control character U+0007 at character 15"),
                            ("http://h.test/x\u{7F}y", "as %7F"), ("http://h.test/?q=1\r\n", "has a carriage return at character 19; a URL cannot hold it as it is: remove it"),
                            ("http://h.test/x \t", "has a space at character 16; a URL cannot hold it as it is: remove it"),
                            // Counted in the URL as shown, its password masked.
                            ("http://u:longpassword@h.test/a b", "has a space at character \(19 + RedactionPolicy.marker.count); a URL cannot hold it as it is: write it percent-encoded, as %20 (in \"http://u:\(RedactionPolicy.marker)@h.test/a b\")"),
                            // A host cannot hold one even percent-encoded; a user name can.
                            ("http://exa mple.test/get", "has a space at character 11; a host or port cannot hold it, even percent-encoded: remove it"),
                            ("http://an n@h.test:8080/get", "at character 10; a URL cannot hold it as it is: write it percent-encoded, as %20"),
                            // One in the password is said to be there, the password still hidden.
                            ("http://ann:pa ss@h.test/get", "has a space in its password; a URL cannot hold it as it is: write it percent-encoded, as %20"),
                            // One in a secret parameter's value, hidden there: said to be there; a
                            // line end pasted after it is still to remove (found by review).
                            ("http://h.test/x?api_key=Ke y9&a=1", "has a space in a secret parameter's value; a URL cannot hold it as it is: write it percent-encoded, as %20 (in \"http://h.test/x?api_key=\(RedactionPolicy.marker)&a=1\")"),
                            ("http://h.test/x?api_key=Key9\n", "has a line feed in a secret parameter's value; a URL cannot hold it as it is: remove it (and what follows it)"),
                            ("http://ann:pa ss@h.test/get?token=a\tb", "has a tab in a secret parameter's value"),
                            // In the fragment too, as a log hides `#access_token=` (found by a new user's trial).
                            ("http://h.test/get#access_token=ab cd", "has a space in a secret parameter's value; a URL cannot hold it as it is: write it percent-encoded, as %20 (in \"http://h.test/get#access_token=\(RedactionPolicy.marker)\")"),
                            // After `;`, as a log hides it (found by a new user's trial: `semi sp` showed its second word).
                            ("http://h.test/x?a=1;token=semi sp&b=2", "has a space in a secret parameter's value; a URL cannot hold it as it is: write it percent-encoded, as %20 (in \"http://h.test/x?a=1;token=\(RedactionPolicy.marker)&b=2\")")] {
            do {
                _ = try url(Request.url(bad))
                Issue.record("\(bad.debugDescription) was taken")
            } catch {
                #expect(error.kind == .invalidURL)
                #expect(error.message.contains(said), "\(error.message)")
                #expect(error.message.hasPrefix("URL has ") && !error.message.contains("longpassword") && !error.message.contains("Ke y9")
                        && !error.message.contains("Key9") && !error.message.contains("ab cd"), "\(error.message)")
            }
        }
    }

    @Test("a port outside 1 to 65535, or not a number, is refused with the port named; a port in range, or none after the colon, is taken")
    func ports() throws {
        for (bad, port) in [("http://h.test:99999/get", "99999"), ("http://h.test:0/get", "0"), ("http://h.test:8o80/get", "8o80"),
                            ("http://javascript:alert(1)", "alert(1)"), ("http://u:p@h.test:70000/", "70000"),
                            ("http://[::1]:123456/", "123456"), ("https://h.test:-1", "-1"), ("http://h.test:8080x/", "8080x")] {
            do {
                _ = try url(Request.url(bad))
                Issue.record("\(bad) was taken")
            } catch {
                #expect(error.kind == .invalidURL)
                #expect(error.message.contains("has port \"\(port)\": a port is a number from 1 to 65535"), "\(error.message)")
            }
        }
        for good in ["http://h.test:65535/get", "http://h.test:1", "http://h.test:/get", "http://u:p@h.test:8080/", "http://[::1]:8080/x?a=b:c",
                     "http://h.test?q=1", "http://h.test:8080#f", "https://h.test:443?a=b:c"] {
            #expect(try url(Request.url(good)) == good)
        }
        // An IPv6 address left open is named as such, not as a port ":1" (found by a new user's trial).
        for open in ["http://[::1/get", "http://u:p@[::1:8080/x"] {
            let error = #expect(throws: RequestError.self) { try url(Request.url(open)) }
            #expect(error?.kind == .invalidURL && error?.message.contains("does not close it with ]") == true, "\(String(describing: error))")
        }
    }

    @Test("text outside ASCII in the path, query and fragment is sent percent-encoded, as a browser does; the host and ASCII URLs are left as they are")
    func nonASCIIEncoded() throws {
        #expect(try url(Request.url("http://h.test/anything/ü?y=é&z=%41#frag-ß")) == "http://h.test/anything/%C3%BC?y=%C3%A9&z=%41#frag-%C3%9F")
        #expect(try url(Request.url("http://bücher.test/a?q=ö")) == "http://bücher.test/a?q=%C3%B6")
        #expect(try url(Request.url("http://h.test/a?q=1&r=%20")) == "http://h.test/a?q=1&r=%20")
    }

    @Test("a path with no base URL anywhere is refused")
    func missingBase() {
        #expect(throws: RequestError(.invalidURL, #""/x" is a path and there is no base URL: give a full URL such as "http://localhost:8080/x", or set a base URL"#)) {
            try RequestComposer(config: NetworkConfig()).compose(Request(.get, "/x"))
        }
    }

    @Test("header names must be tokens and values must not carry CR, LF, NUL or another control byte but tab", arguments: [
        ("X-Evil", "a\r\nInjected: yes"), ("X-Evil", "a\nb"), ("X-Nul", "a\u{0}b"), ("Bad Name", "v"), ("", "v"),
        ("X-Bell", "a\u{7}b"), ("X-Escape", "\u{1B}[31m"), ("X-Del", "a\u{7F}"), ("X-VT", "a\u{0B}b"),
    ])
    func headerInjection(_ name: String, _ value: String) {
        do {
            _ = try RequestComposer(config: config).compose(Request(.get, "/", headers: HTTPHeaders([HeaderField(name: name, value: value)])))
            Issue.record("expected the header to be refused")
        } catch {
            #expect(error.kind == .invalidHeader)
        }
    }

    @Test("a method, URL or headers longer than libcurl's 1 MiB request head holds are refused, saying which part is long, instead of failing as \"Out of memory\" after connecting")
    func requestHeadLimit() throws {
        let composer = RequestComposer(config: NetworkConfig())
        let limit = "libcurl sends a request head of at most 1.0 MiB, which leaves 1008.0 KiB for the method, the URL and the headers"
        // The refusal names the URL by its scheme and host, its password masked: a path or query
        // cut short could show part of a secret a variable filled in, where no redaction finds it
        // (found by a new user's trial).
        let secretPath = "http://h.test/basic-auth/ann/ThirtyCharLongPasswordSecret30?pad=" + String(repeating: "x", count: 1_100_000)
        let refusal = #expect(throws: RequestError.self) { try composer.compose(Request.url(secretPath)) }
        #expect(refusal?.message.contains("Thirty") == false && refusal?.message.contains("basic-auth") == false)
        let long = "http://user:" + String(repeating: "s", count: 100) + "@h.test/" + String(repeating: "a", count: 1_800_000)
        #expect(throws: RequestError(.invalidURL, #"the URL is 1.7 MiB ("http://user:[REDACTED]@h.test"…); "# + limit)) {
            try composer.compose(Request.url(long))
        }
        // Not of the plain shape, so the full parser would read it (and quote it whole): the
        // length is checked first.
        #expect(throws: RequestError(.invalidURL, #"the URL is 1.7 MiB ("http://user:[REDACTED]@h.test"…); "# + limit)) {
            try composer.compose(Request.url(long + " x"))
        }
        // Query parameters can make a URL too long too.
        let query = Request(.get, "http://h.test/", params: ["q": .string(String(repeating: "b", count: 1 << 20))])
        // So close to the limit that no precision tells them apart: in bytes.
        let exact = "libcurl sends a request head of at most 1048576 B, which leaves 1032192 B for the method, the URL and the headers"
        #expect(throws: RequestError(.invalidURL, #"the URL is 1048593 B ("http://h.test"…); "# + exact)) {
            try composer.compose(query)
        }
        // The boundary: the method, the URL and the headers sent (the User-Agent) exactly fill
        // what the head leaves, and one byte more does not fit.
        let base = try composer.compose(Request.url("http://h.test/"))
        let headerBytes = base.transfer.headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
        let fits = "http://h.test/" + String(repeating: "a", count: RequestHeadLimit.available - 3 - headerBytes - 14)
        #expect(try composer.compose(Request.url(fits)).transfer.url == fits)
        #expect(throws: RequestError.self) { try composer.compose(Request.url(fits + "a")) }
        // A long URL and long headers that together do not fit: an error of the larger part.
        var both = Request.url(String(fits.dropLast(100_000)))
        both.headers = ["X-Long": String(repeating: "c", count: 200_000)]
        let together = try #require(throws: RequestError.self) { try composer.compose(both) }
        #expect(together.kind == .invalidURL)
        #expect(together.message == "the request head would be 1.1 MiB (the URL 910.3 KiB, the headers 195.3 KiB); " + limit)
        var headers = Request.url("http://h.test/")
        headers.headers = ["X-Long": String(repeating: "c", count: 1 << 20)]
        // At the precision that tells the size from the limit (found by a new user's trial: "1.0 MiB; at most 1.0 MiB").
        let fourPlaces = "libcurl sends a request head of at most 1.0000 MiB, which leaves 1008.0000 KiB for the method, the URL and the headers"
        #expect(throws: RequestError(.invalidHeader, "the request head would be 1.0001 MiB (the URL 14 B, the headers 1.0 MiB); " + fourPlaces)) {
            try composer.compose(headers)
        }
        let method = Request(HTTPMethod(rawValue: String(repeating: "M", count: 1_100_000)), "http://h.test/")
        let twoPlaces = "libcurl sends a request head of at most 1.00 MiB, which leaves 1008.00 KiB for the method, the URL and the headers"
        #expect(throws: RequestError(.invalidMethod, "the request head would be 1.05 MiB (the method 1.0 MiB, the URL 14 B, the headers 26 B); " + twoPlaces)) {
            try composer.compose(method)
        }
    }

    @Test("the config's default headers and User-Agent are refused the same way, for every request that sends them")
    func configHeaderInjection() throws {
        for config in [
            NetworkConfig(baseURL: "http://h.test", defaultHeaders: HTTPHeaders([HeaderField(name: "X-Evil", value: "a\r\nInjected: yes")])),
            NetworkConfig(baseURL: "http://h.test", userAgent: "UA/1\r\nInjected: yes"),
            NetworkConfig(baseURL: "http://h.test", defaultHeaders: ["Transfer-Encoding": "chunked"]),
        ] {
            let composer = RequestComposer(config: config)
            for request in [Request(.get, "/"), Request(.get, "/"), Request(.get, "/", headers: ["X-Own": "1"])] {
                #expect(throws: RequestError.self) { _ = try composer.compose(request) }
            }
        }
        // Headers that equal the defaults as strings but not as bytes are checked: the Kelvin
        // sign is canonically equivalent to K, and no HTTP token.
        let duplicated = NetworkConfig(baseURL: "http://h.test", defaultHeaders: HTTPHeaders([HeaderField(name: "X-K", value: "1"), HeaderField(name: "X-K", value: "1")]),
                                       userAgent: "")
        let kelvin = Request(.get, "/", headers: HTTPHeaders([HeaderField(name: "X-K", value: "1"), HeaderField(name: "X-\u{212A}", value: "1")]))
        #expect(throws: RequestError.self) { _ = try RequestComposer(config: duplicated).compose(kelvin) }
    }

    @Test("a header value may hold tabs, spaces, visible characters and UTF-8 beyond ASCII")
    func headerValuesAllowed() throws {
        let value = "a\tb c~ é ✓"
        let (transfer, _) = try RequestComposer(config: config).compose(Request(.get, "/", headers: ["X-Fine": value]))
        #expect(transfer.headers.contains { $0.0 == "X-Fine" && $0.1 == value })
    }
}
