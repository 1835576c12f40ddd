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

/// The most recent requests the server received, oldest first, bounded so a long run stays small:
/// at most `capacity` requests, and at most `bodyBudget` bytes of their bodies together (a loop
/// of 60 MB uploads would otherwise keep ten thousand of them).
final class RequestRecorder: Sendable {
    private struct Entries {
        var requests: [ReceivedRequest] = []
        var bodyBytes = 0
    }

    private let entries = Locked(Entries())
    private let capacity: Int
    private let bodyBudget: Int

    init(capacity: Int, bodyBudget: Int = 256 << 20) {
        self.capacity = capacity
        self.bodyBudget = bodyBudget
    }

    func record(_ request: ReceivedRequest) {
        entries.withLock { entries in
            entries.requests.append(request)
            entries.bodyBytes += request.body.count
            var dropped = 0
            while entries.requests.count - dropped > capacity
                    || (entries.bodyBytes > bodyBudget && entries.requests.count - dropped > 1) {
                entries.bodyBytes -= entries.requests[dropped].body.count
                dropped += 1
            }
            if dropped > 0 { entries.requests.removeFirst(dropped) }
        }
    }

    var all: [ReceivedRequest] {
        entries.withLock { $0.requests }
    }
}
