@testable import CurlewAgent
import CurlewTestSupport
import CurlewTransport
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

    @Test("with separators ignored, _ and - are left out on both sides, however many and wherever they stand")
    func separators() {
        let set = ByteNameSet(["access_token", "x-api-key"], ignoringCase: true, ignoringSeparators: true)
        for name in ["accessToken", "AccessToken", "access-token", "ACCESS_TOKEN", "_access__token-", "xApiKey", "X_API_KEY", "x-api-key"] {
            #expect(set.contains(name), "\(name)")
        }
        #expect(!set.contains("access_tokens"))
        #expect(!set.contains("accessTok"))
        #expect(!set.contains("___"), "a name of separators only is the empty name, which is no member")
        let long = String(repeating: "a_", count: 300)
        // First and last letters of a member's (a… n), so it is folded and compared, not turned away first.
        #expect(!set.contains("a" + String(repeating: "_x", count: 300) + "n"), "a long name is folded on the stack without a limit")
        #expect(ByteNameSet([String(repeating: "a", count: 300)], ignoringCase: true, ignoringSeparators: true).contains(long))
        let kept = ByteNameSet(["access_token"], ignoringCase: true)
        #expect(!kept.contains("accessToken"), "without the option a separator is a byte like any other")
    }

    @Test("a length no member has, long names, and the empty name")
    func lengths() {
        let set = ByteNameSet(["ab", long], ignoringCase: true)
        #expect(!set.contains("abc"))
        #expect(!set.contains(""))
        #expect(set.contains(long.uppercased()))
        #expect(!set.contains(String(repeating: "k", count: 64)), "same first and last bytes, different length")
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

    /// A name of up to `length` letters, separators, a digit and a letter beyond ASCII, in any case.
    private static func randomName(upTo length: Int, using generator: inout SeededGenerator) -> String {
        let alphabet = Array("aAbBkK-_.0Ä".unicodeScalars)
        return String(String.UnicodeScalarView((0..<Int.random(in: 0...length, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }))
    }

    @Test("the signature filter never turns a member away: lookups agree with a plain set of lowercased names")
    func agreesWithPlainSet() {
        var generator = SeededGenerator(seed: 15)
        func name() -> String { Self.randomName(upTo: 6, using: &generator) }
        for _ in 0..<200 {
            let names = (0..<Int.random(in: 0...12, using: &generator)).map { _ in name() }
            let set = ByteNameSet(names, ignoringCase: true)
            let plain = Set(names.map { String(decoding: $0.utf8.map(ASCII.lowercase), as: UTF8.self) })
            for probe in names + (0..<20).map({ _ in name() }) {
                let folded = String(decoding: probe.utf8.map(ASCII.lowercase), as: UTF8.self)
                #expect(set.contains(probe) == plain.contains(folded), "\(probe.debugDescription) in \(names)")
                #expect(set.contains(probe.uppercased()) == plain.contains(String(decoding: probe.uppercased().utf8.map(ASCII.lowercase), as: UTF8.self)))
            }
        }
    }

    @Test("with separators ignored, lookups agree with a plain set of names lowercased without _, - and ., separators anywhere and only separators included")
    func separatorsAgreeWithPlainSet() {
        var generator = SeededGenerator(seed: 16)
        func name() -> String { Self.randomName(upTo: 8, using: &generator) }
        func folded(_ text: String) -> String {
            String(decoding: text.utf8.filter { !"_-.".utf8.contains($0) }.map(ASCII.lowercase), as: UTF8.self)
        }
        for _ in 0..<300 {
            let names = (0..<Int.random(in: 0...40, using: &generator)).map { _ in name() }
            let set = ByteNameSet(names, ignoringCase: true, ignoringSeparators: true)
            let plain = Set(names.map(folded))
            for probe in names + (0..<30).map({ _ in name() }) {
                #expect(set.contains(probe) == plain.contains(folded(probe)), "\(probe.debugDescription) in \(names)")
            }
        }
    }
}
