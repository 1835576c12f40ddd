import CurlewAgent

/// One entry's summary as the columns store it.
struct SessionRecordSummaryColumns {
    var status: UInt16
    var method: UInt8
    var url: UInt32
    var elapsed: UInt32
    var size: UInt32

    /// A summary in column form, interning its method and URL.
    init(_ summary: SessionRecordSummary, methods: InternedStrings, urls: InternedStrings) {
        status = (0..<Int(EntryBlock.statusUnknown)).contains(summary.statusCode) ? UInt16(summary.statusCode) : EntryBlock.statusUnknown
        let methodID = methods.intern(summary.method).map { UInt8($0) } ?? EntryBlock.methodUnknown
        method = methodID | (summary.failed ? EntryBlock.failedBit : 0)
        url = urls.intern(summary.url) ?? EntryBlock.unknown
        elapsed = Self.column(summary.elapsedMicros)
        size = Self.column(summary.responseSize)
    }

    private static func column(_ value: Int64?) -> UInt32 {
        guard let value else { return EntryBlock.absent }
        return (0..<Int64(EntryBlock.unknown)).contains(value) ? UInt32(value) : EntryBlock.unknown
    }
}
