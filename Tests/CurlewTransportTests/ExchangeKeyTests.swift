@testable import CurlewTransport
import Testing

@Suite("Exchange ids as dictionary keys")
struct ExchangeKeyTests {
    @Test("a table keyed by exchange ids finds, replaces and removes each id, and only it, through growth and removals")
    func table() {
        var table: [ExchangeKey: UInt64] = [:]
        // Sequential ids, as the agent makes them, and ids far apart, with the high bits set.
        let ids = Array(1...20_000).map(UInt64.init) + (0..<2_000).map { UInt64.max - UInt64($0) * 0x1_0000_0001 }
        for id in ids { table[ExchangeKey(id)] = id &* 3 }
        #expect(table.count == ids.count)
        for id in ids { #expect(table[ExchangeKey(id)] == id &* 3) }
        for id in ids where id % 3 == 0 { #expect(table.removeValue(forKey: ExchangeKey(id)) == id &* 3) }
        for id in ids { #expect(table[ExchangeKey(id)] == (id % 3 == 0 ? nil : id &* 3)) }
        #expect(table[ExchangeKey(0)] == nil)
        #expect(table[ExchangeKey(20_001)] == nil)
        table[ExchangeKey(1)] = 7
        #expect(table[ExchangeKey(1)] == 7)
        #expect(table.count == ids.filter { $0 % 3 != 0 }.count)
    }

    @Test("equal keys hash alike, in every table's seed, and different ids spread over the buckets")
    func hashing() {
        #expect(ExchangeKey(42) == ExchangeKey(42))
        #expect(ExchangeKey(42) != ExchangeKey(43))
        for seed in [0, 1, -1, 0x5EED, Int.max] {
            #expect(ExchangeKey(42)._rawHashValue(seed: seed) == ExchangeKey(42)._rawHashValue(seed: seed))
        }
        #expect(ExchangeKey(42).hashValue == ExchangeKey(42).hashValue)
        // The table's seed takes part: one key lands apart in tables of different seeds.
        #expect(Set([0, 1, 2, 0x5EED].map { ExchangeKey(42)._rawHashValue(seed: $0) }).count == 4)
        // What a table uses is this hash, not SipHash's: `hashValue` is the hash with seed 0.
        #expect(ExchangeKey(42).hashValue == ExchangeKey(42)._rawHashValue(seed: 0))
        // 1,024 sequential ids in a table of 1,024 buckets (the low ten bits): most land apart.
        let buckets = Set((0..<1_024).map { ExchangeKey(UInt64($0))._rawHashValue(seed: 0x5EED) & 1_023 })
        #expect(buckets.count > 600, "\(buckets.count) buckets")
    }
}
