@testable import CurlewAgent
import Foundation
import Testing

@Suite("Request keys")
struct RequestKeyTests {
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
        let plain = RequestKey(method: "POST", url: "http://h/p", headers: [], body: nil, keyHeaders: [], isVolatileParam: { _ in false })
        let withBody = RequestKey(method: "POST", url: "http://h/p", headers: [], body: Data([1, 2]), keyHeaders: [], isVolatileParam: { _ in false })
        let accept = RequestKey(method: "POST", url: "http://h/p", headers: [HeaderField(name: "accept", value: "text/html")], body: nil,
                                keyHeaders: ["Accept"], isVolatileParam: { _ in false })
        #expect(Set([plain.digest, withBody.digest, accept.digest]).count == 3)
    }
}
