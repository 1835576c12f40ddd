import CurlewTransport

/// A small set of names kept as one contiguous run of bytes, for membership checks on raw bytes
/// (header names, parameter names, JSON member names) without building strings or touching
/// reference counts per comparison.
struct ByteNameSet: Sendable, Equatable {
    private var storage: [UInt8] = []
    private var ranges: [Range<Int>] = []
    private let ignoresCase: Bool

    /// With `ignoringCase`, names are stored lowercased and compared ignoring ASCII case.
    init(_ names: some Sequence<String>, ignoringCase: Bool) {
        self.ignoresCase = ignoringCase
        for name in names {
            let start = storage.count
            storage.append(contentsOf: ignoringCase ? Array(name.lowercased().utf8) : Array(name.utf8))
            ranges.append(start..<storage.count)
        }
    }

    func contains(_ name: UnsafeRawBufferPointer.SubSequence) -> Bool {
        storage.withUnsafeBufferPointer { stored in
            for range in ranges where range.count == name.count {
                var index = range.lowerBound
                var matched = true
                for byte in name {
                    let candidate = ignoresCase ? ASCII.lowercase(byte) : byte
                    if candidate != stored[index] { matched = false; break }
                    index += 1
                }
                if matched { return true }
            }
            return false
        }
    }
}
