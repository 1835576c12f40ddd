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
        return lower..<utf8.index(lower, offsetBy: needle.utf8CodeUnitCount)
    }
}

extension ASCII {
    /// Where `needle` first starts in `bytes`: candidates found by `memchr` on its first byte,
    /// then compared in place.
    static func firstOffset(of needle: StaticString, in bytes: UnsafeRawBufferPointer) -> Int? {
        let length = needle.utf8CodeUnitCount
        guard length > 0, bytes.count >= length, let base = bytes.baseAddress else { return length == 0 ? 0 : nil }
        let first = Int32(needle.utf8Start.pointee)
        var from = 0
        while from + length <= bytes.count {
            guard let found = memchr(base + from, first, bytes.count - length + 1 - from) else { return nil }
            let offset = base.distance(to: UnsafeRawPointer(found))
            if memcmp(base + offset, needle.utf8Start, length) == 0 { return offset }
            from = offset + 1
        }
        return nil
    }
}
