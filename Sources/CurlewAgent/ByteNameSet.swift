import CurlewTransport

/// A small set of names kept as one contiguous run of bytes, for membership checks on raw bytes
/// (header names, parameter names, JSON member names) without building strings or touching
/// reference counts per comparison.
struct ByteNameSet: Sendable, Equatable {
    private var storage: [UInt8] = []
    /// Each member's bytes in `storage`, ordered by length, and where each length's run starts
    /// among them (a length `n` runs from `lengthStarts[n]` to `lengthStarts[n + 1]`): a lookup
    /// compares only the members of its own length.
    private var rangesByLength: [Range<Int>] = []
    private var lengthStarts: [Int] = []
    private let ignoresCase: Bool
    /// Whether `_`, `-` and `.` are left out of names, stored and looked up (`access_token`,
    /// `accessToken` and `access-token` are one name).
    private let ignoresSeparators: Bool
    /// Two bits per member, one in each 128-bit filter (a low and a high word), chosen by two
    /// mixes of its length (left out where separators are, which change it) and its first and
    /// last bytes: most names looked up (a JSON body's
    /// members, a request's headers) miss one of them and are turned away before any byte is
    /// compared (thirty members let about one name in twenty through).
    private var signatures: (first: (UInt64, UInt64), second: (UInt64, UInt64)) = ((0, 0), (0, 0))
    private var hasEmptyName = false

    /// The length of the longest member as stored (without separators where they are left out).
    var longestLength: Int { rangesByLength.last?.count ?? 0 }
    /// The members' last bytes (lowercased where case is ignored), one bit each.
    private var lastBytes: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    /// Whether a member ends with `byte` (in any case where case is ignored): a name ending
    /// otherwise is none, nor is any of its tails.
    @inline(__always)
    func mayEnd(with byte: UInt8) -> Bool {
        let folded = ignoresCase ? ASCII.lowercase(byte) : byte
        let bit = UInt64(1) &<< UInt64(folded & 63)
        switch folded >> 6 {
        case 0: return lastBytes.0 & bit != 0
        case 1: return lastBytes.1 & bit != 0
        case 2: return lastBytes.2 & bit != 0
        default: return lastBytes.3 & bit != 0
        }
    }

    /// With `ignoringCase`, names are stored lowercased and compared ignoring ASCII case; with
    /// `ignoringSeparators`, `_`, `-` and `.` are left out of names on both sides.
    init(_ names: some Sequence<String>, ignoringCase: Bool, ignoringSeparators: Bool = false) {
        self.ignoresCase = ignoringCase
        self.ignoresSeparators = ignoringSeparators
        var ranges: [Range<Int>] = []
        for name in names {
            let start = storage.count
            // ASCII folding only, the same as lookups: a name with other letters matches itself.
            let kept = ignoringSeparators ? name.utf8.filter { !Self.isSeparator($0) } : Array(name.utf8)
            storage.append(contentsOf: ignoringCase ? kept.map(ASCII.lowercase) : kept)
            ranges.append(start..<storage.count)
            if let last = storage[start...].last {
                let bit = UInt64(1) &<< UInt64(last & 63)
                switch last >> 6 {
                case 0: lastBytes.0 |= bit
                case 1: lastBytes.1 |= bit
                case 2: lastBytes.2 |= bit
                default: lastBytes.3 |= bit
                }
            }
            if let first = storage[start...].first, let last = storage[start...].last {
                // Without separators to leave out, the length is known before a copy: it joins the key.
                let bits = Self.signatureBits(count: ignoringSeparators ? 0 : storage.count - start, first: first, last: last)
                signatures.first = (signatures.first.0 | bits.first.0, signatures.first.1 | bits.first.1)
                signatures.second = (signatures.second.0 | bits.second.0, signatures.second.1 | bits.second.1)
            } else {
                hasEmptyName = true
            }
        }
        rangesByLength = ranges.sorted { $0.count < $1.count }
        let longest = rangesByLength.last?.count ?? 0
        lengthStarts = (0...longest + 1).map { length in rangesByLength.firstIndex { $0.count >= length } ?? rangesByLength.count }
    }

    /// The bits of a name of `count` bytes from `first` to `last`; ASCII case does not change them.
    @inline(__always)
    private static func signatureBits(count: Int, first: UInt8, last: UInt8) -> (first: (UInt64, UInt64), second: (UInt64, UInt64)) {
        let key = UInt64(truncatingIfNeeded: count) << 16 | UInt64(ASCII.lowercase(first)) << 8 | UInt64(ASCII.lowercase(last))
        let mixed = key &* 0x9E37_79B9_7F4A_7C15
        return (bit(mixed >> 57), bit((mixed >> 50) & 127))
    }

    /// Bit `position` (below 128) of a filter, as its low and high words.
    @inline(__always)
    private static func bit(_ position: UInt64) -> (UInt64, UInt64) {
        position < 64 ? (1 &<< position, 0) : (0, 1 &<< (position &- 64))
    }

    /// Equal when built from the same names in the same order (the signatures follow from them).
    static func == (lhs: ByteNameSet, rhs: ByteNameSet) -> Bool {
        lhs.storage == rhs.storage && lhs.rangesByLength == rhs.rangesByLength && lhs.ignoresCase == rhs.ignoresCase
            && lhs.ignoresSeparators == rhs.ignoresSeparators
    }

    func contains(_ name: String) -> Bool {
        name.withUTF8Bytes { contains(UnsafeRawBufferPointer($0)[...]) }
    }

    /// `_`, `-`, `.`, a space or `+` (a space in a query), which a set ignoring separators leaves
    /// out of names: `api key` and `api+key` are `api_key`, as PHP reads such a parameter.
    @inline(__always)
    static func isSeparator(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == 0x20 || byte == UInt8(ascii: "+")
    }

    func contains(_ name: UnsafeRawBufferPointer.SubSequence) -> Bool {
        // The count from the indices: a slice's `count` is a generic call.
        let count = name.endIndex - name.startIndex
        guard count > 0, let base = name.base.baseAddress else { return hasEmptyName }
        let start = base + name.startIndex
        guard ignoresSeparators else {
            guard passesFilter(count: count, first: start.load(as: UInt8.self), last: start.load(fromByteOffset: count - 1, as: UInt8.self)) else { return false }
            return holds(start, count: count)
        }
        // The filter reads the first and last bytes that are no separator (the stored names'
        // own first and last), so nothing is copied for the names it turns away.
        var first = 0, last = count - 1
        while first < count, Self.isSeparator(start.load(fromByteOffset: first, as: UInt8.self)) { first += 1 }
        guard first < count else { return hasEmptyName }
        while Self.isSeparator(start.load(fromByteOffset: last, as: UInt8.self)) { last -= 1 }
        guard passesFilter(count: 0, first: start.load(fromByteOffset: first, as: UInt8.self), last: start.load(fromByteOffset: last, as: UInt8.self)) else {
            return false
        }
        let longest = longestLength
        // A name no longer than the longest member, without separators, is compared in place.
        if count <= longest, !Self.holdsSeparator(start, count: count) { return holds(start, count: count) }
        // Otherwise without its separators, from a copy on the stack that stops past the
        // longest member: a longer name is none, however long it is.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: longest + 1) { room in
            var kept = 0
            for offset in first...last {
                let byte = start.load(fromByteOffset: offset, as: UInt8.self)
                if !Self.isSeparator(byte) {
                    guard kept < longest else { return false }
                    room[kept] = byte
                    kept += 1
                }
            }
            return holds(UnsafeRawPointer(room.baseAddress!), count: kept)
        }
    }

    /// Whether `count` bytes from `start` hold a separator.
    @inline(__always)
    private static func holdsSeparator(_ start: UnsafeRawPointer, count: Int) -> Bool {
        var offset = 0
        while offset < count {
            if isSeparator(start.load(fromByteOffset: offset, as: UInt8.self)) { return true }
            offset &+= 1
        }
        return false
    }

    /// Whether a name may be a member, by its signature: false for certain when it is not.
    @inline(__always)
    private func passesFilter(count: Int, first: UInt8, last: UInt8) -> Bool {
        let bits = Self.signatureBits(count: count, first: first, last: last)
        return (signatures.first.0 & bits.first.0) | (signatures.first.1 & bits.first.1) != 0
            && (signatures.second.0 & bits.second.0) | (signatures.second.1 & bits.second.1) != 0
    }

    /// Whether the `count` bytes from `start` (no separators to leave out) are a member's,
    /// compared with the members of that length only.
    private func holds(_ start: UnsafeRawPointer, count: Int) -> Bool {
        guard count + 1 < lengthStarts.count else { return false }
        return storage.withUnsafeBufferPointer { stored in
            for range in rangesByLength[lengthStarts[count]..<lengthStarts[count + 1]] {
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
