import DequeModule

/// The TUI observer's queue of events not yet drawn, kept in chunks.
///
/// Under a flood of requests it holds hundreds of thousands of events (stream items are bounded
/// by `TUIObserver`). In one contiguous buffer, every growth
/// copied all of them while the lock was held, and the interface waited that long for its next
/// batch (over 100 ms measured). Chunks keep every append and every take proportional to the
/// events touched.
struct EventQueue {
    static let chunkSize = 1024

    private var chunks = Deque<[UIEvent]>()
    private(set) var count = 0
    /// Queued items of streamed responses (bytes and events).
    private(set) var streamItemCount = 0

    mutating func append(_ event: UIEvent) {
        if event.isStreamItem { streamItemCount += 1 }
        if chunks.last.map({ $0.count >= Self.chunkSize }) ?? true {
            var chunk: [UIEvent] = []
            chunk.reserveCapacity(Self.chunkSize)
            chunks.append(chunk)
        }
        chunks[chunks.count - 1].append(event)
        count += 1
    }

    /// Removes and returns up to `limit` events, oldest first.
    mutating func takeFirst(_ limit: Int) -> [UIEvent] {
        var taken: [UIEvent] = []
        while taken.count < limit, let first = chunks.first {
            let wanted = limit - taken.count
            if first.count <= wanted {
                taken.append(contentsOf: first)
                chunks.removeFirst()
            } else {
                taken.append(contentsOf: first[..<wanted])
                chunks[0] = Array(first[wanted...])
            }
        }
        count -= taken.count
        if streamItemCount > 0 { streamItemCount -= taken.reduce(0) { $0 + ($1.isStreamItem ? 1 : 0) } }
        return taken
    }
}

extension UIEvent {
    /// Whether this is an item of a streamed response, which the observer may drop under a flood.
    var isStreamItem: Bool {
        switch self {
        case .streamedBytes, .streamedEvent: true
        default: false
        }
    }
}
