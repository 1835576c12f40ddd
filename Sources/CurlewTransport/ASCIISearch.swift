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

extension ASCII {
    /// Where `needle` first starts in `bytes`: candidates found by `memchr` on its first byte,
    /// then compared in place.
    static func firstOffset(of needle: StaticString, in bytes: UnsafeRawBufferPointer) -> Int? {
        // Through `withUTF8Buffer`: a one-character literal is stored without a pointer.
        needle.withUTF8Buffer { needle in
            let length = needle.count
            guard length > 0, bytes.count >= length, let base = bytes.baseAddress, let wanted = needle.baseAddress else { return length == 0 ? 0 : nil }
            var from = 0
            while from + length <= bytes.count {
                guard let found = memchr(base + from, Int32(wanted.pointee), bytes.count - length + 1 - from) else { return nil }
                let offset = base.distance(to: UnsafeRawPointer(found))
                if memcmp(base + offset, wanted, length) == 0 { return offset }
                from = offset + 1
            }
            return nil
        }
    }
}
