import CurlewTransport

/// A small set of names kept as one contiguous run of bytes, for membership checks on raw bytes
/// (header names, parameter names, JSON member names) without building strings or touching
/// reference counts per comparison.
struct ByteNameSet: Sendable, Equatable {
    private var storage: [UInt8] = []
    private var ranges: [Range<Int>] = []
    private let ignoresCase: Bool
    /// Bit n set when a name of n bytes is in the set (bit 63 for 63 and longer): most names
    /// looked up have a length no member has, and are turned away by one test.
    private var lengths: UInt64 = 0

    /// With `ignoringCase`, names are stored lowercased and compared ignoring ASCII case.
    init(_ names: some Sequence<String>, ignoringCase: Bool) {
        self.ignoresCase = ignoringCase
        for name in names {
            let start = storage.count
            // ASCII folding only, the same as lookups: a name with other letters matches itself.
            storage.append(contentsOf: ignoringCase ? name.utf8.map(ASCII.lowercase) : Array(name.utf8))
            ranges.append(start..<storage.count)
            lengths |= Self.lengthBit(storage.count - start)
        }
    }

    @inline(__always)
    private static func lengthBit(_ count: Int) -> UInt64 {
        1 << UInt64(min(count, 63))
    }

    func contains(_ name: String) -> Bool {
        name.withUTF8Bytes { contains(UnsafeRawBufferPointer($0)[...]) }
    }

    func contains(_ name: UnsafeRawBufferPointer.SubSequence) -> Bool {
        let count = name.count
        guard lengths & Self.lengthBit(count) != 0 else { return false }
        guard count > 0, let base = name.base.baseAddress else { return ranges.contains { $0.isEmpty } }
        let start = base + name.startIndex
        return storage.withUnsafeBufferPointer { stored in
            for range in ranges where range.count == count {
                var offset = 0
                while offset < count {
                    let byte = start.load(fromByteOffset: offset, as: UInt8.self)
                    if (ignoresCase ? ASCII.lowercase(byte) : byte) != stored[range.lowerBound + offset] { break }
                    offset += 1
                }
                if offset == count { return true }
            }
            return false
        }
    }
}
