import CCurl

/// A request's header lines as the `curl_slist` libcurl sends them from, with the fields it was
/// built from, so an easy handle can tell whether the next exchange sends the same headers.
/// Owns the C list and frees it on deinit: whoever holds it must have replaced or reset the
/// option pointing at it first.
final class RequestHeaderList {
    /// libcurl's own headers stopped by an empty entry ("Name:"), when the request has none of
    /// that name.
    struct Suppressed: OptionSet {
        let rawValue: UInt8
        /// libcurl adds "Expect: 100-continue" to a body and waits for the server.
        static let expect = Suppressed(rawValue: 1)
        /// libcurl labels a POST without a Content-Type as a form.
        static let contentType = Suppressed(rawValue: 2)
    }

    let pointer: UnsafeMutablePointer<curl_slist>?
    private let fields: [(name: String, value: String)]
    private let suppressed: Suppressed

    init(_ fields: [(name: String, value: String)], suppressed: Suppressed) {
        self.fields = fields
        self.suppressed = suppressed
        var list: UnsafeMutablePointer<curl_slist>?
        if suppressed.contains(.expect) { list = curl_slist_append(list, "Expect:") }
        if suppressed.contains(.contentType) { list = curl_slist_append(list, "Content-Type:") }
        // Each line is put together in one reused C buffer (libcurl copies it), not as a string.
        var line: [UInt8] = []
        line.reserveCapacity(256)
        for field in fields {
            line.removeAll(keepingCapacity: true)
            field.name.withUTF8Bytes { line.append(contentsOf: $0) }
            if field.value.isEmpty {
                // "Name;" is libcurl's way to send a header with an empty value.
                line.append(UInt8(ascii: ";"))
            } else {
                line.append(UInt8(ascii: ":"))
                line.append(UInt8(ascii: " "))
                field.value.withUTF8Bytes { line.append(contentsOf: $0) }
            }
            line.append(0)
            list = line.withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { curl_slist_append(list, $0.baseAddress) }
            }
        }
        pointer = list
    }

    deinit {
        curl_slist_free_all(pointer)
    }

    /// Whether this list sends exactly `fields`, byte for byte, in order, with the same
    /// suppressions. (Not `String`'s `==`, which calls canonically equivalent text equal: `K` and
    /// the Kelvin sign, which are different bytes on the wire.)
    /// An array sharing the storage of the one the list was made from holds the same fields
    /// (kept by the list, that storage is never written in place): the composer hands every
    /// request whose headers composing leaves as the configuration's the same array, and so most
    /// exchanges compare nothing.
    func holds(_ other: [(name: String, value: String)], suppressed otherSuppressed: Suppressed) -> Bool {
        guard suppressed == otherSuppressed, fields.count == other.count else { return false }
        if fields.withUnsafeBufferPointer({ mine in other.withUnsafeBufferPointer { mine.baseAddress == $0.baseAddress } }) { return true }
        for index in fields.indices
        where !fields[index].name.hasSameBytes(as: other[index].name) || !fields[index].value.hasSameBytes(as: other[index].value) {
            return false
        }
        return true
    }
}
