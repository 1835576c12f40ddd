import CurlewTransport
import Foundation
import CurlewLocking
import Synchronization

/// Collects an engine's events and lets a test await the result of one exchange.
final class EventCollector: Sendable {
    private struct State {
        var events: [TransferEvent] = []
        var results: [UInt64: TransferResult] = [:]
        var finishCounts: [UInt64: Int] = [:]
        var finishedAt: [UInt64: ContinuousClock.Instant] = [:]
        var waiters: [UInt64: [CheckedContinuation<TransferResult, Never>]] = [:]
    }

    private let state = Locked(State())

    func receive(_ event: TransferEvent) {
        let resumed: ([CheckedContinuation<TransferResult, Never>], TransferResult)? = state.withLock { state in
            state.events.append(event)
            guard case .finished(let result) = event else { return nil }
            state.finishCounts[result.id, default: 0] += 1
            state.finishedAt[result.id] = .now
            state.results[result.id] = result
            return (state.waiters.removeValue(forKey: result.id) ?? [], result)
        }
        if let (waiters, result) = resumed { waiters.forEach { $0.resume(returning: result) } }
    }

    func result(for id: UInt64) async -> TransferResult {
        await withCheckedContinuation { continuation in
            let ready: TransferResult? = state.withLock { state in
                if let result = state.results[id] { return result }
                state.waiters[id, default: []].append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    func finishCount(for id: UInt64) -> Int { state.withLock { $0.finishCounts[id] ?? 0 } }
    func finishedAt(_ id: UInt64) -> ContinuousClock.Instant? { state.withLock { $0.finishedAt[id] } }

    func events(for id: UInt64) -> [TransferEvent] {
        state.withLock { $0.events }.filter { event in
            switch event {
            case .started(let eventID), .progress(let eventID, _), .chunk(let eventID, _, _, _): eventID == id
            case .finished(let result): result.id == id
            }
        }
    }
}

/// An engine wired to a collector, with ids handed out in order.
final class EngineHarness: Sendable {
    let engine: TransferEngine
    let collector = EventCollector()
    private let nextID = Atomic<UInt64>(1)

    init(configuration: TransferEngine.Configuration = TransferEngine.Configuration()) {
        let collector = collector
        engine = TransferEngine(configuration: configuration) { events, _ in events.forEach(collector.receive) }
    }

    func submit(_ request: TransferRequest) -> UInt64 {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        engine.submit(request, id: id)
        return id
    }

    func run(_ request: TransferRequest) async -> TransferResult {
        await collector.result(for: submit(request))
    }
}
