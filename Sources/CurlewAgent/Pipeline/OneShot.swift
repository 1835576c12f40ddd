import CurlewLocking

/// A value delivered once, awaited by one task: whichever of `fulfil` and `value()` comes second
/// completes the hand-over. Later `fulfil` calls are ignored.
final class OneShot<Value: Sendable>: Sendable {
    private enum State {
        case empty
        case waiting(CheckedContinuation<Value, Never>)
        case done(Value)
    }

    private let state = Locked<State>(.empty)

    func fulfil(_ value: Value) {
        let waiter = state.withLock { state -> CheckedContinuation<Value, Never>? in
            switch state {
            case .empty:
                state = .done(value)
                return nil
            case .waiting(let continuation):
                state = .done(value)
                return continuation
            case .done:
                return nil
            }
        }
        waiter?.resume(returning: value)
    }

    func value() async -> Value {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Value? in
                switch state {
                case .empty:
                    state = .waiting(continuation)
                    return nil
                case .done(let value):
                    return value
                case .waiting:
                    preconditionFailure("OneShot awaited twice")
                }
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
