import CurlewTransport

/// A small set of names kept as one contiguous run of bytes, for membership checks on raw bytes
/// (header names, parameter names, JSON member names) without building strings or touching
/// reference counts per comparison.
struct ByteNameSet: Sendable, Equatable {
    private var storage: [UInt8] = []
    private var ranges: [Range<Int>] = []
    private let ignoresCase: Bool
    /// Whether `_` and `-` are left out of names, stored and looked up (`access_token`,
    /// `accessToken` and `access-token` are one name).
    private let ignoresSeparators: Bool
    /// Two bits per member, one in each word, chosen by two mixes of its length and its first
    /// and last bytes: most names looked up (a JSON body's members, a request's headers) miss one
    /// of them and are turned away before any byte is compared (a dozen members let about one
    /// name in twenty-five through).
    private var signatures: (UInt64, UInt64) = (0, 0)
    private var hasEmptyName = false

    /// With `ignoringCase`, names are stored lowercased and compared ignoring ASCII case; with
    /// `ignoringSeparators`, `_` and `-` are left out of names on both sides.
    init(_ names: some Sequence<String>, ignoringCase: Bool, ignoringSeparators: Bool = false) {
        self.ignoresCase = ignoringCase
        self.ignoresSeparators = ignoringSeparators
        for name in names {
            let start = storage.count
            // ASCII folding only, the same as lookups: a name with other letters matches itself.
            let kept = ignoringSeparators ? name.utf8.filter { !Self.isSeparator($0) } : Array(name.utf8)
            storage.append(contentsOf: ignoringCase ? kept.map(ASCII.lowercase) : kept)
            ranges.append(start..<storage.count)
            if let first = storage[start...].first, let last = storage[start...].last {
                let bits = Self.signatureBits(count: storage.count - start, first: first, last: last)
                signatures = (signatures.0 | bits.0, signatures.1 | bits.1)
            } else {
                hasEmptyName = true
            }
        }
    }

    /// The bits of a name of `count` bytes from `first` to `last`; ASCII case does not change them.
    @inline(__always)
    private static func signatureBits(count: Int, first: UInt8, last: UInt8) -> (UInt64, UInt64) {
        let key = UInt64(truncatingIfNeeded: count) << 16 | UInt64(ASCII.lowercase(first)) << 8 | UInt64(ASCII.lowercase(last))
        let mixed = key &* 0x9E37_79B9_7F4A_7C15
        return (1 << (mixed >> 58), 1 << ((mixed >> 52) & 63))
    }

    /// Equal when built from the same names in the same order (the signatures follow from them).
    static func == (lhs: ByteNameSet, rhs: ByteNameSet) -> Bool {
        lhs.storage == rhs.storage && lhs.ranges == rhs.ranges && lhs.ignoresCase == rhs.ignoresCase
            && lhs.ignoresSeparators == rhs.ignoresSeparators
    }

    func contains(_ name: String) -> Bool {
        name.withUTF8Bytes { contains(UnsafeRawBufferPointer($0)[...]) }
    }

    @inline(__always)
    private static func isSeparator(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }

    func contains(_ name: UnsafeRawBufferPointer.SubSequence) -> Bool {
        if ignoresSeparators, name.contains(where: Self.isSeparator) {
            // Looked up without its separators, from a copy on the stack.
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: name.count) { room in
                var count = 0
                for byte in name where !Self.isSeparator(byte) {
                    room[count] = byte
                    count += 1
                }
                return containsAsWritten(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: room[..<count]))[...])
            }
        }
        return containsAsWritten(name)
    }

    /// `contains` for a name without separators to leave out.
    private func containsAsWritten(_ name: UnsafeRawBufferPointer.SubSequence) -> Bool {
        let count = name.count
        guard count > 0, let base = name.base.baseAddress else { return hasEmptyName }
        let start = base + name.startIndex
        let bits = Self.signatureBits(count: count, first: start.load(as: UInt8.self), last: start.load(fromByteOffset: count - 1, as: UInt8.self))
        guard signatures.0 & bits.0 != 0, signatures.1 & bits.1 != 0 else { return false }
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
