import Synchronization

/// Ids for requests, groups and exchanges: one sequence, so none is ever reused within an agent.
final class IDSequence: Sendable {
    private let next = Atomic<UInt64>(1)

    func make() -> UInt64 {
        next.wrappingAdd(1, ordering: .relaxed).oldValue
    }
}
