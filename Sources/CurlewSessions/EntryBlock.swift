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

    /// A block of what `builder` holds. A block far from full (a followed log's few new
    /// entries) keeps only the room its entries take, not the room reserved for a whole block.
    init(first: Int, building builder: consuming EntryBlockBuilder) {
        self.first = first
        base = builder.base
        let compact = builder.count < Self.capacity / 2
        offsets = compact ? Array(builder.offsets[...]) : builder.offsets
        statuses = compact ? Array(builder.statuses[...]) : builder.statuses
        methods = compact ? Array(builder.methods[...]) : builder.methods
        urls = compact ? Array(builder.urls[...]) : builder.urls
        elapsed = compact ? Array(builder.elapsed[...]) : builder.elapsed
        sizes = compact ? Array(builder.sizes[...]) : builder.sizes
    }

    private init(first: Int, base: Int64, offsets: [UInt32], statuses: [UInt16], methods: [UInt8], urls: [UInt32], elapsed: [UInt32], sizes: [UInt32]) {
        self.first = first
        self.base = base
        self.offsets = offsets
        self.statuses = statuses
        self.methods = methods
        self.urls = urls
        self.elapsed = elapsed
        self.sizes = sizes
    }

    /// Blocks under this many entries take the next block's entries into one block, so a log
    /// followed for hours, a few entries at a time, is not held as thousands of tiny blocks.
    static let joinedBelow = 4_096

    /// This block with `next`'s entries after its own, when `next` follows it directly, this
    /// block is under `joinedBelow` entries and `next`'s offsets fit its base; else nil.
    func joining(_ next: EntryBlock) -> EntryBlock? {
        guard count < Self.joinedBelow, next.first == first + count, next.count > 0,
              next.offset(next.count - 1) - base <= Int64(UInt32.max) else { return nil }
        let shift = UInt32(next.base - base)
        return EntryBlock(first: first, base: base, offsets: offsets + next.offsets.map { $0 + shift },
                          statuses: statuses + next.statuses, methods: methods + next.methods, urls: urls + next.urls,
                          elapsed: elapsed + next.elapsed, sizes: sizes + next.sizes)
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
