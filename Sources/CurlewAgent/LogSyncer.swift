import Dispatch
import Foundation
import Synchronization

/// Runs a log file's fsyncs on a queue of their own, so the thread writing entries (an observer
/// lane) never waits for one: it asks for a sync and goes on encoding.
///
/// Requests made while a sync is pending share it; a request made while one runs gets another
/// after it, so every write that asked is covered by an fsync that started after it.
final class LogSyncer: Sendable {
    private let descriptor: Int32
    private let sync: @Sendable (Int32) -> Void
    private let queue = DispatchQueue(label: "curlew.logger.sync")
    private let scheduled = Atomic<Bool>(false)

    /// `sync` flushes the file to the disk; tests count its calls.
    init(descriptor: Int32, sync: @escaping @Sendable (Int32) -> Void = { _ = fsync($0) }) {
        self.descriptor = descriptor
        self.sync = sync
    }

    /// Schedules an fsync of everything written so far, unless one is already waiting to start.
    func requestSync() {
        guard !scheduled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        queue.async { [self] in
            // Cleared before the sync starts: a write that asks from now on needs a sync of its own.
            scheduled.store(false, ordering: .releasing)
            sync(descriptor)
        }
    }

    /// Waits for the syncs asked for so far, then syncs once more; call before closing the file.
    func finish() {
        queue.sync {}
        sync(descriptor)
    }
}
