/// One line of a response head as libcurl hands it to the header callback, classified by where
/// its parts lie in the line. Pure, so it is tested and fuzzed apart from libcurl: any bytes give
/// a value, never a trap.
enum ResponseHeaderLine: Equatable {
    /// "HTTP/1.1 200 OK", without its line end: a new response starts (after a 1xx or a redirect
    /// there can be several).
    case statusLine(Range<Int>)
    /// An obsolete folded line, trimmed: more of the previous field's value.
    case continuation(Range<Int>)
    /// A field's name, and its value trimmed of spaces and tabs.
    case field(name: Range<Int>, value: Range<Int>)
    /// The blank line ending the head, or a line without a colon.
    case other

    init(_ bytes: UnsafeRawBufferPointer) {
        var end = bytes.count
        while end > 0, bytes[end - 1] == 0x0A || bytes[end - 1] == 0x0D { end -= 1 }
        if end >= 5, bytes[0] == 0x48, bytes[1] == 0x54, bytes[2] == 0x54, bytes[3] == 0x50, bytes[4] == 0x2F {  // "HTTP/"
            self = .statusLine(0..<end)
        } else if end > 0, bytes[0] == 0x20 || bytes[0] == 0x09 {
            self = .continuation(ASCII.trimmed(bytes, from: 0, to: end))
        } else if let colon = ASCII.firstIndex(of: 0x3A, in: bytes[0..<end]) {
            self = .field(name: 0..<colon, value: ASCII.trimmed(bytes, from: colon + 1, to: end))
        } else {
            self = .other
        }
    }

    /// The text of `range` in `bytes`, invalid UTF-8 repaired.
    static func text(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }
}
