import CurlewSessions
import Testing

@Suite("Unique names")
struct UniqueNamesTests {
    @Test("a free name is itself, a taken one numbered from 2, skipping numbers already in use")
    func numbering() {
        var names = UniqueNames(taken: ["list", "list 3"])
        #expect(names.claim("show") == "show")
        #expect(names.claim("show") == "show 2")
        #expect(names.claim("list") == "list 2")
        #expect(names.claim("list") == "list 4")
        #expect(names.claim("list 2") == "list 2 2")
        #expect(names.claim("list") == "list 5")
    }

    @Test("20,000 claims of one name are all different and numbered in order")
    func many() {
        var names = UniqueNames(taken: [])
        let claimed = (0..<20_000).map { _ in names.claim("GET /get") }
        #expect(Set(claimed).count == claimed.count)
        #expect(claimed.first == "GET /get" && claimed[1] == "GET /get 2" && claimed.last == "GET /get 20000")
    }
}
