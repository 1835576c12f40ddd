import Foundation
import CurlewLocking

/// A request as the demo server received it, for tests that assert on the server side.
public struct ReceivedRequest: Sendable {
    public var method: String
    public var uri: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    public var receivedAt: Date

    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// The most recent requests the server received, oldest first, bounded so a long run stays small.
final class RequestRecorder: Sendable {
    private let entries = Locked<[ReceivedRequest]>([])
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    func record(_ request: ReceivedRequest) {
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeFirst(entries.count - capacity + 1) }
            entries.append(request)
        }
    }

    var all: [ReceivedRequest] {
        entries.withLock { $0 }
    }
}
