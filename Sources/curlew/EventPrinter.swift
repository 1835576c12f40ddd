import CurlewAgent
import CurlewLocking
import Foundation

/// Prints the events of a `text/event-stream` response as they arrive, for `curlew send`: one line
/// each, with the time since the request started, the event type, its ID and its data.
final class EventPrinter: Sendable {
    private let started = ContinuousClock.now
    private let printed = Locked(0)
    private let write: @Sendable (String) -> Void

    init(write: @escaping @Sendable (String) -> Void) {
        self.write = write
    }

    /// How many events were printed.
    var count: Int { printed.withLock { $0 } }

    func receive(_ item: StreamItem) {
        guard case .event(let event) = item else { return }
        printed.withLock { $0 += 1 }
        let elapsed = ContinuousClock.now - started
        let seconds = elapsed.seconds
        let data = event.data.replacingOccurrences(of: "\n", with: "\n" + String(repeating: " ", count: 12))
        write(String(format: "[+%7.3fs] ", seconds) + "\(event.event)" + (event.id.map { "  id=\($0)" } ?? "") + "  " + data)
    }
}
