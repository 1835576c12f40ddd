@testable import CurlewAgent
import Testing

@Suite("Byte name set")
struct ByteNameSetTests {
    private let long = String(repeating: "k", count: 70)

    @Test("names are found in any case when case is ignored, and only exactly otherwise")
    func caseRules() {
        let ignoring = ByteNameSet(["Authorization", "token"], ignoringCase: true)
        #expect(ignoring.contains("authorization"))
        #expect(ignoring.contains("AUTHORIZATION"))
        #expect(ignoring.contains("ToKeN"))
        #expect(!ignoring.contains("tokens"))
        #expect(!ignoring.contains("toke"))
        let accented = ByteNameSet(["ÄPI_Key"], ignoringCase: true)
        #expect(accented.contains("Äpi_key"), "letters past ASCII are compared as they are, on both sides")
        #expect(!accented.contains("äpi_key"))
        let exact = ByteNameSet(["token"], ignoringCase: false)
        #expect(exact.contains("token"))
        #expect(!exact.contains("Token"))
    }

    @Test("a length no member has, long names past the length bits, and the empty name")
    func lengths() {
        let set = ByteNameSet(["ab", long], ignoringCase: true)
        #expect(!set.contains("abc"))
        #expect(!set.contains(""))
        #expect(set.contains(long.uppercased()))
        #expect(!set.contains(String(repeating: "k", count: 64)), "same length bit, different length")
        #expect(!set.contains(String(repeating: "k", count: 69) + "j"))
        #expect(ByteNameSet([""], ignoringCase: false).contains(""))
    }

    @Test("a slice is matched by its own bytes, not its base's")
    func slices() {
        let set = ByteNameSet(["cookie"], ignoringCase: true)
        let bytes = Array("x-cookie: 1".utf8)
        bytes.withUnsafeBytes { buffer in
            #expect(set.contains(buffer[2..<8]))
            #expect(!set.contains(buffer[0..<8]))
        }
    }
}
