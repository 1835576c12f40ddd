import Foundation

extension StringProtocol {
    /// The first occurrence of `needle` (ASCII: a template's `{{`, a marker such as `$env.`),
    /// found on the text's UTF-8 bytes by `memchr` in time proportional to how far it lies.
    ///
    /// Foundation's `range(of:)` on a substring costs time in proportion to the whole rest of
    /// the text at every call, so a loop that moves past one template at a time took time in the
    /// square of the text's length (100,000 templates in a 1.5 MB body: seconds).
    public func firstRange(ofASCII needle: StaticString) -> Range<Index>? {
        let found: Int?? = utf8.withContiguousStorageIfAvailable { ASCII.firstOffset(of: needle, in: UnsafeRawBufferPointer($0)) }
        let offset: Int?
        if let found {
            offset = found
        } else {
            var copy = String(self)
            offset = copy.withUTF8 { ASCII.firstOffset(of: needle, in: UnsafeRawBufferPointer($0)) }
        }
        guard let offset else { return nil }
        let lower = utf8.index(startIndex, offsetBy: offset)
        return lower..<utf8.index(lower, offsetBy: needle.withUTF8Buffer { $0.count })
    }
}

extension Data {
    /// The first occurrence of `needle` within `range` (all of the data when nil), found by
    /// `memchr` and `memcmp` in time proportional to how far it lies.
    ///
    /// Foundation's `range(of:in:)` costs time in proportion to the whole data at every call, so
    /// a loop that moves past one match at a time (a multipart body's parts) took time in the
    /// square of the body's length.
    public func firstRange(of needle: some Sequence<UInt8>, in range: Range<Index>? = nil) -> Range<Index>? {
        let range = range ?? startIndex..<endIndex
        let wanted = Array(needle)
        let found: Int? = withUnsafeBytes { whole in
            let lower = range.lowerBound - startIndex
            let slice = UnsafeRawBufferPointer(rebasing: whole[lower..<(range.upperBound - startIndex)])
            return wanted.withUnsafeBytes { ASCII.firstOffset(of: $0, in: slice) }
        }
        guard let found else { return nil }
        let lower = range.lowerBound + found
        return lower..<(lower + wanted.count)
    }
}

extension ASCII {
    /// Where `needle` first starts in `bytes`: candidates found by `memchr` on its first byte,
    /// then compared in place.
    static func firstOffset(of needle: StaticString, in bytes: UnsafeRawBufferPointer) -> Int? {
        // Through `withUTF8Buffer`: a one-character literal is stored without a pointer.
        needle.withUTF8Buffer { firstOffset(of: UnsafeRawBufferPointer($0), in: bytes) }
    }

    /// Where the bytes of `needle` first start in `bytes`; 0 for an empty needle.
    static func firstOffset(of needle: UnsafeRawBufferPointer, in bytes: UnsafeRawBufferPointer) -> Int? {
        let length = needle.count
        guard length > 0, bytes.count >= length, let base = bytes.baseAddress, let wanted = needle.baseAddress else { return length == 0 ? 0 : nil }
        let first = Int32(wanted.load(as: UInt8.self))
        var from = 0
        while from + length <= bytes.count {
            guard let found = memchr(base + from, first, bytes.count - length + 1 - from) else { return nil }
            let offset = base.distance(to: UnsafeRawPointer(found))
            if memcmp(base + offset, wanted, length) == 0 { return offset }
            from = offset + 1
        }
        return nil
    }
}
