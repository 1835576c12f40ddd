/// Index entries in columns, immutable once the indexer publishes them: about 19 bytes an entry,
/// so ten million entries fit in under 200 MiB.
///
/// A value too large for its column, a method or URL the string tables had no room for, is
/// stored as `EntryBlock.unknown` and read from the entry's line when a filter needs it.
final class EntryBlock: Sendable {
    /// Stored in `urls`, `elapsed` or `sizes` (and `methodUnknown` in `methods`) when the value is
    /// on the line only.
    static let unknown = UInt32.max - 1
    /// Stored in `elapsed` or `sizes` when the record has no such value.
    static let absent = UInt32.max
    static let methodUnknown: UInt8 = 0x7F
    static let failedBit: UInt8 = 0x80
    static let statusUnknown = UInt16.max
    /// Entries per block: blocks are published as they fill, so the interface sees entries
    /// arrive every few hundred milliseconds on a large log.
    static let capacity = 1 << 16

    /// Index of the block's first entry in the whole log.
    let first: Int
    /// File offset the entries' `offsets` count from.
    let base: Int64
    let offsets: [UInt32]
    let statuses: [UInt16]
    /// Method number in the index's method table (`methodUnknown`: read the line), with
    /// `failedBit` set when the exchange failed.
    let methods: [UInt8]
    let urls: [UInt32]
    /// Queued plus total time in microseconds.
    let elapsed: [UInt32]
    /// Response body size in bytes.
    let sizes: [UInt32]

    init(first: Int, building builder: consuming EntryBlockBuilder) {
        self.first = first
        base = builder.base
        offsets = builder.offsets
        statuses = builder.statuses
        methods = builder.methods
        urls = builder.urls
        elapsed = builder.elapsed
        sizes = builder.sizes
    }

    var count: Int { offsets.count }

    func offset(_ position: Int) -> Int64 {
        base + Int64(offsets[position])
    }
}

/// The block being filled by the indexer.
struct EntryBlockBuilder {
    private(set) var base: Int64 = 0
    var offsets: [UInt32] = []
    var statuses: [UInt16] = []
    var methods: [UInt8] = []
    var urls: [UInt32] = []
    var elapsed: [UInt32] = []
    var sizes: [UInt32] = []

    var count: Int { offsets.count }

    /// Whether an entry at `offset` fits in this block (its distance from the block's first entry
    /// fits the column).
    func fits(offset: Int64) -> Bool {
        offsets.isEmpty || offset - base <= Int64(UInt32.max)
    }

    mutating func append(offset: Int64, summary: SessionRecordSummaryColumns) {
        if offsets.isEmpty {
            base = offset
            offsets.reserveCapacity(EntryBlock.capacity)
            urls.reserveCapacity(EntryBlock.capacity)
            elapsed.reserveCapacity(EntryBlock.capacity)
            sizes.reserveCapacity(EntryBlock.capacity)
            statuses.reserveCapacity(EntryBlock.capacity)
            methods.reserveCapacity(EntryBlock.capacity)
        }
        offsets.append(UInt32(offset - base))
        statuses.append(summary.status)
        methods.append(summary.method)
        urls.append(summary.url)
        elapsed.append(summary.elapsed)
        sizes.append(summary.size)
    }
}
