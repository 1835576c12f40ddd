import CurlewAgent
import CurlewLocking

/// Each request's times in a run, from its debug message: what the report shows (from
/// submission to the last byte, as `log show` and the interface do) and what a `maxDuration`
/// assertion checks (the network's total, `ExchangeOutcome.duration(of:)`).
final class ExchangeTimes: Sendable {
    /// A request's two times.
    struct Times {
        /// From submission to the last byte: time queued included.
        var shown: Duration
        /// The network's total, without time queued.
        var checked: Duration

        init(shown: Duration, checked: Duration) {
            self.shown = shown
            self.checked = checked
        }

        /// One time for both, for a request without a debug message's timings: `wall`, measured
        /// around it by the caller.
        init(wall: Duration) {
            self.init(shown: wall, checked: wall)
        }
    }

    private let byRequest = Locked<[UInt64: Times]>([:])

    /// Keeps `message`'s times; a request's `debug` callback. A retried request's latest attempt
    /// is found under each of its attempts' ids (`DebugMessage.answeredRequestIDs`).
    @Sendable func record(_ message: DebugMessage) {
        guard let timings = message.timings, let checked = ExchangeOutcome.duration(of: timings) else { return }
        let times = Times(shown: .microseconds(timings.elapsed), checked: checked)
        let ids = message.answeredRequestIDs
        byRequest.withLock { byRequest in
            for id in ids { byRequest[id] = times }
        }
    }

    /// The times of the request `id`; nil for one without a debug message with timings.
    func of(_ id: UInt64?) -> Times? {
        guard let id else { return nil }
        return byRequest.withLock { $0[id] }
    }
}
