/// An exchange's id as a dictionary key, hashed with a multiply and a shift instead of the
/// standard library's SipHash. The tables of exchanges in flight look an id up about six times
/// per request; ids are the agent's own sequence numbers, never chosen by a peer, so a keyed
/// hash buys nothing here and costs about 90 instructions a lookup.
public struct ExchangeKey: Hashable, Sendable {
    public let id: UInt64

    @inlinable
    public init(_ id: UInt64) {
        self.id = id
    }

    @inlinable
    public static func == (lhs: ExchangeKey, rhs: ExchangeKey) -> Bool {
        lhs.id == rhs.id
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
    }

    /// What `Dictionary` and `Set` use in place of `hash(into:)`: the id mixed with the table's
    /// seed by a Fibonacci multiply, its well-mixed upper bits moved down to where the table's
    /// bucket index is taken from. (An underscored requirement of `Hashable`: should the standard
    /// library stop calling it, the tables fall back to `hash(into:)`, correct and slower, and
    /// `ExchangeKeyTests` notices that the hash no longer depends on the seed this way.)
    @inlinable
    public func _rawHashValue(seed: Int) -> Int {
        let mixed = (id ^ UInt64(truncatingIfNeeded: seed)) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: mixed ^ (mixed >> 29))
    }
}
