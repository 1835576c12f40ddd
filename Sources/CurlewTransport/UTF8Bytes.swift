import Foundation

extension String {
    /// The text of a buffer C filled, up to its first NUL (all of it when it has none), invalid
    /// UTF-8 repaired.
    init(nulTerminated buffer: [CChar]) {
        let end = buffer.firstIndex(of: 0) ?? buffer.count
        self = buffer[..<end].withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with the string's UTF-8 bytes, in place for a native string.
    ///
    /// `withUTF8` is mutating, and copying a string into a `var` for it costs a retain and a
    /// release per call: about 40 instructions, paid for every header and every logged string.
    @inlinable
    public func withUTF8Bytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        if let result = try utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = self
        return try copy.withUTF8(body)
    }

    /// Whether two strings are the same bytes: `==` calls canonically equivalent text equal (`K`
    /// and the Kelvin sign), which are different bytes on the wire.
    @inlinable
    public func hasSameBytes(as other: String) -> Bool {
        utf8.count == other.utf8.count && withUTF8Bytes { mine in
            other.withUTF8Bytes { theirs in mine.count == 0 || memcmp(mine.baseAddress!, theirs.baseAddress!, mine.count) == 0 }
        }
    }
}
