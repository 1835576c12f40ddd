import CurlewAgent

/// One request in the live stream: known from `willSend`, complete once its debug message arrived.
public struct LiveRow: Sendable {
    public var info: RequestInfo
    public var state: RequestState
    public var progress: RequestProgress?
    public var message: DebugMessage?
    /// What a streamed response carried so far, while it runs.
    public var stream: StreamRecord?

    /// The row as a debug message: the real one once it arrived, until then what is known (the
    /// method, URL and state, and the stream so far), so a running request can be opened.
    public var detailMessage: DebugMessage {
        if let message { return message }
        return DebugMessage(
            requestID: info.id, name: info.name, groupID: info.groupID, step: info.step, state: state, startedAt: info.startedAt,
            original: nil, sent: nil, response: nil, error: nil, timings: nil, connection: nil, callbackQueue: "", stream: stream
        )
    }

    /// Counts a streamed chunk's bytes.
    mutating func addStreamed(bytes: Int) {
        // Taken out while it changes, so the change does not copy the events it keeps.
        var record = stream ?? StreamRecord()
        stream = nil
        record.chunks += 1
        record.bytes += Int64(bytes)
        stream = record
    }

    /// Keeps a streamed event (see `StreamRecord.keep`); `dropped` items were lost before it.
    mutating func addStreamed(_ event: ServerSentEvent, dropped: Int) {
        var record = stream ?? StreamRecord()
        stream = nil
        record.keep(event, counting: 1 + dropped)
        stream = record
    }
}

/// The live debug stream: a ring of rows that evicts the oldest beyond a count or a byte budget,
/// so memory stays bounded however long the session runs.
public struct LiveState: Sendable {
    public let capacity: Int
    public let byteBudget: Int
    public private(set) var rows: [LiveRow] = []
    /// Absolute number of the first row kept; rows before it were evicted.
    public private(set) var evicted = 0
    private var positions: [UInt64: Int] = [:]
    private var keptBytes = 0

    public var selected = 0
    public var scroll = 0
    /// Keep the newest row selected as rows arrive.
    public var follow = true
    /// While paused, new rows are kept but not shown.
    public private(set) var pausedAt: Int?

    public init(capacity: Int = 10_000, byteBudget: Int = 128 << 20) {
        self.capacity = max(1, capacity)
        self.byteBudget = byteBudget
    }

    /// Rows shown: all of them, or those that had arrived when the stream was paused.
    public var visibleCount: Int { pausedAt.map { min($0, rows.count) } ?? rows.count }
    public var hiddenWhilePaused: Int { rows.count - visibleCount }

    public mutating func togglePause() {
        pausedAt = pausedAt == nil ? rows.count : nil
        clampSelection()
    }

    public mutating func upsert(_ info: RequestInfo, change: (inout LiveRow) -> Void) {
        if let position = positions[info.id] {
            let before = Self.bytes(rows[position - evicted])
            change(&rows[position - evicted])
            keptBytes += Self.bytes(rows[position - evicted]) - before
        } else {
            var row = LiveRow(info: info, state: .pending)
            change(&row)
            positions[info.id] = evicted + rows.count
            rows.append(row)
            keptBytes += Self.bytes(row)
        }
        evictIfNeeded()
        if follow, pausedAt == nil { selected = max(0, visibleCount - 1) }
    }

    private mutating func evictIfNeeded() {
        guard rows.count > capacity || keptBytes > byteBudget else { return }
        // Evict a tenth at a time so eviction cost is amortised over many appends.
        var drop = rows.count > capacity ? max(1, capacity / 10) : 0
        var freed = 0
        while keptBytes - freed > byteBudget, drop < rows.count - 1 {
            freed += Self.bytes(rows[drop])
            drop += 1
        }
        drop = min(drop, rows.count - 1)
        for row in rows[..<drop] {
            positions[row.info.id] = nil
            keptBytes -= Self.bytes(row)
        }
        rows.removeFirst(drop)
        evicted += drop
        if let paused = pausedAt { pausedAt = max(0, paused - drop) }
        selected = max(0, selected - drop)
        scroll = max(0, scroll - drop)
    }

    mutating func clampSelection() {
        selected = min(max(0, selected), max(0, visibleCount - 1))
    }

    private static func bytes(_ row: LiveRow) -> Int {
        let streamed = row.stream.map { $0.events.reduce(0) { $0 + $1.data.utf8.count + 64 } } ?? 0
        guard let message = row.message else { return 256 + streamed }
        let bodies = [message.original?.body, message.sent?.body, message.response?.body].compactMap { $0?.data.count }
        return 1024 + bodies.reduce(0, +) + (message.sent?.head.utf8.count ?? 0) + streamed
    }

    /// The row of a request, while it is kept.
    public func row(id: UInt64) -> LiveRow? {
        positions[id].map { rows[$0 - evicted] }
    }

    /// In-flight requests (known but not finished).
    public var inFlightCount: Int {
        rows.reduce(0) { $0 + ($1.state.isTerminal ? 0 : 1) }
    }
}
