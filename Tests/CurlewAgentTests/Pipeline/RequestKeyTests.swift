import CurlewTransport
@testable import CurlewAgent
import Foundation
import Testing

@Suite("Request keys")
struct RequestKeyTests {
    private func key(_ method: String = "GET", url: String = "http://h/p", headers: [HeaderField] = [], body: Data? = nil,
                     keyHeaders: [String] = ["Accept"]) -> RequestKey {
        RequestKey(method: method, url: url, headers: headers, body: body, keyHeaders: keyHeaders,
                   credentialHeaders: ["Authorization", "Cookie"], isVolatileParam: { _ in false })
    }

    @Test("the query is sorted by bytes, so parameters Unicode calls equal still sort one way (found by fuzzing)")
    func canonicalOrder() {
        let precomposed = "a=\u{E9}"
        let decomposed = "a=e\u{301}"
        let forward = RequestKey.canonicalURL("http://h/p?\(precomposed)&\(decomposed)", isVolatileParam: { _ in false })
        let backward = RequestKey.canonicalURL("http://h/p?\(decomposed)&\(precomposed)", isVolatileParam: { _ in false })
        #expect(forward == backward)
        // A combining mark right after `&` makes "&" and the mark one Character; the split is by bytes.
        let marked = "\u{6E3}b=2"
        #expect(RequestKey.canonicalURL("http://h/p?a=1&\(marked)", isVolatileParam: { _ in false })
                == RequestKey.canonicalURL("http://h/p?\(marked)&a=1", isVolatileParam: { _ in false }))
    }

    @Test("the fragment is dropped, volatile parameters too, and a body changes the key")
    func parts() {
        #expect(RequestKey.canonicalURL("http://h/p?ts=1&b=2&a=1#frag", isVolatileParam: { $0 == "ts" }) == "http://h/p?a=1&b=2")
        #expect(RequestKey.canonicalURL("http://h/p?ts=1", isVolatileParam: { $0 == "ts" }) == "http://h/p")
        let accept = key(headers: [HeaderField(name: "accept", value: "text/html")])
        #expect(Set([key().digest, key(body: Data([1, 2])).digest, accept.digest]).count == 3)
    }

    @Test("keys, bodies and credentials are named by SHA-256, a digest nobody can make two requests share")
    func sha256() {
        let abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        #expect(SHA256Digest.hex(of: Data("abc".utf8)) == abc)
        #expect(SHA256Digest.hex(of: Data()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        let withBody = key("POST", body: Data("abc".utf8))
        #expect(withBody.text.hasSuffix("\nbody 3 " + abc))
        #expect(withBody.digest == SHA256Digest.hex(of: Data(withBody.text.utf8)))
    }

    @Test("credentials separate keys but never appear in them")
    func credentials() {
        let alice = key(headers: [HeaderField(name: "Authorization", value: "Bearer alice-secret-token")])
        let bob = key(headers: [HeaderField(name: "Authorization", value: "Bearer bob-secret-token")])
        let withPassword = key(url: "http://ada:hunter2@h/p")
        let otherPassword = key(url: "http://ada:letmein@h/p")
        #expect(Set([key().text, alice.text, bob.text, withPassword.text, otherPassword.text]).count == 5)
        for text in [alice.text, bob.text, withPassword.text, otherPassword.text] {
            #expect(!text.contains("secret-token") && !text.contains("hunter2") && !text.contains("letmein") && !text.contains("ada:"))
        }
        // A secret query parameter (also nested, as forms write it) enters the key as a digest.
        let tokens = [key(url: "http://h/p?token=QueryTok1&a=1"), key(url: "http://h/p?token=QueryTok2&a=1"),
                      key(url: "http://h/p?user%5Btoken%5D=QueryTok3")]
        #expect(Set(tokens.map(\.text)).count == 3)
        #expect(tokens.allSatisfy { !$0.text.contains("QueryTok") }, "\(tokens.map(\.text))")
        #expect(RequestKey.hidingSecretParameters(in: "http://h/p?a=1&Access_Token=Tok#f") { _ in "[REDACTED]" } == "http://h/p?a=1&Access_Token=[REDACTED]#f")
        // A URL that repeats its password enters the key as a digest (found by review: the
        // cache's metadata kept it in clear); two such URLs still have keys of their own.
        let repeated = [key(url: "http://ada:hunter2@h/basic-auth/ada/hunter2"), key(url: "http://ada:hunter3@h/basic-auth/ada/hunter3")]
        #expect(repeated.allSatisfy { !$0.text.contains("hunter") && $0.text.hasPrefix("GET digest ") }, "\(repeated.map(\.text))")
        #expect(repeated[0].text != repeated[1].text)
        let basic = key(url: "http://h/basic-auth/ada/hunter42", headers: [HeaderField(name: "Authorization", value: "Basic " + Data("ada:hunter42".utf8).base64EncodedString())])
        #expect(basic.text.hasPrefix("GET digest ") && !basic.text.contains("hunter42"), "\(basic.text)")
        let cookie = key(headers: [HeaderField(name: "Accept", value: "application/json-with-a-secret")])
        #expect(!cookie.text.contains("application/json-with-a-secret"))
    }

    @Test("the memory store keeps its byte bound and refuses an entry larger than it")
    func memoryBound() {
        let store = MemoryCacheStore(capacity: 10, maxBytes: 100)
        func entry(_ size: Int, _ name: String) -> CacheEntry {
            CacheEntry(metadata: CacheEntry.Metadata(format: 1, key: name, version: "", storedAt: Date(), expiresAt: .distantFuture,
                                                     statusCode: 200, statusLine: "HTTP/1.1 200 OK", httpVersion: "1.1", headers: [],
                                                     url: "http://h/", bodySize: size, bodyDigest: ""), body: Data(count: size))
        }
        store.write(entry(60, "a"), digest: "a")
        store.write(entry(60, "b"), digest: "b")
        #expect(store.read(digest: "a", key: "a") == nil)
        #expect(store.read(digest: "b", key: "b") != nil)
        store.write(entry(101, "c"), digest: "c")
        #expect(store.read(digest: "c", key: "c") == nil)
        #expect(store.read(digest: "b", key: "b") != nil)
    }
}

@Suite("What a cache entry keeps")
struct CacheEntryHeaderTests {
    @Test("a response header with a control byte is left out of the entry, so the entry reads back instead of being rejected as corrupt every time")
    func controlBytesNotStored() throws {
        let request = Request(.get, "http://h/p")
        let plan = try #require(CachePlan(request: request, method: "GET", url: "http://h/p", headers: [], body: nil,
                                          settings: CacheSettings(storage: .memory, policy: .cacheElseNetwork), credentialHeaders: []))
        let headers: HTTPHeaders = ["Content-Type": "text/plain", "X-Odd": "a\u{1}b", "X-Tab": "a\tb", "Set-Cookie": "s=1"]
        let response = Response(requestID: 1, statusCode: 200, statusLine: "HTTP/1.1 200 OK", httpVersion: "1.1", headers: headers,
                                body: Data("hi".utf8), value: .data(Data("hi".utf8)), url: "http://h/p")
        let entry = try #require(plan.entry(for: response))
        #expect(entry.metadata.headers.map(\.name) == ["Content-Type", "X-Tab"])
        #expect(entry.metadata.isPlausible)
        let refreshed = CachePlan.revalidated(entry, with: [HeaderField(name: "X-Bell", value: "\u{7}"), HeaderField(name: "ETag", value: "\"v2\"")])
        #expect(refreshed.metadata.headers.map(\.name) == ["Content-Type", "X-Tab", "ETag"])
        #expect(refreshed.metadata.isPlausible)
    }
}
