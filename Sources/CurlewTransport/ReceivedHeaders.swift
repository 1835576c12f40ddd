import Foundation

/// A response's header fields as libcurl handed them over: the field lines kept as bytes, made
/// into strings only when read. Receiving a response costs one buffer instead of two strings a
/// field, and a caller that never reads a header pays nothing more. Each line is kept with where
/// its name and value lie, as the header callback found them, so that no reader (the session log,
/// the redaction checks, a lookup by name) parses a line again.
///
/// A line folded onto the one before (obsolete line folding) joins that field's value after a space.
public struct ReceivedHeaders: Sendable {
    /// The field and continuation lines, each ending in LF and led by a `LinePrefix`: the first
    /// `used` bytes of `storage`. The storage is made whole ahead of the lines and written in
    /// place, so keeping a line costs one copy and no call into the array's append.
    private var storage: [UInt8] = []
    private var used = 0
    /// What the kept lines are known to hold, noted as they arrive; empty for no line. One
    /// byte, so that copying the headers copies no more fields than before the facts were kept.
    private var facts: LineFacts = []

    private struct LineFacts: OptionSet {
        let rawValue: UInt8
        /// A kept line reads as continuing the field before it (obsolete line folding).
        static let folded = LineFacts(rawValue: 1)
        /// A line was appended without `notingPlainText`: the two facts below are not known,
        /// and readers look at the bytes themselves.
        static let unnoted = LineFacts(rawValue: 2)
        /// A kept line has a byte beyond ASCII.
        static let beyondASCII = LineFacts(rawValue: 4)
        /// A field's name or value needs an escape in a JSON string, or is beyond ASCII.
        static let escapedField = LineFacts(rawValue: 8)
    }

    private var hasFoldedLines: Bool { facts.contains(.folded) }

    /// Whether every field's name and value are ASCII that a JSON string holds as they are (no
    /// control byte, quote or backslash: `ASCII.isPlainJSONText`), as noted when each line
    /// arrived, so the session log writes them without looking at them again. False when that
    /// was not noted.
    public var fieldsArePlainJSONText: Bool { facts.isDisjoint(with: [.unnoted, .escapedField]) }
    /// Where the first field named Content-Type starts in `storage`, noted as its line arrives, so
    /// that reading it (every debug message does) walks no lines.
    private var contentTypeLine: Int?

    public init() {}

    /// Whether the response carried no field.
    public var isEmpty: Bool { used == 0 }

    /// Calls `body` with each field's name and value (trimmed of spaces and tabs) as the bytes
    /// that arrived, in order, and returns true. These are the bytes of the strings `fields`
    /// makes, so a reader that writes or checks bytes (the session log, the redaction checks)
    /// need not make them. Returns false at once, calling nothing, when that does not hold: a
    /// field with folded lines (only `fields` joins them) or a byte beyond ASCII (which `fields`
    /// repairs where it is not UTF-8).
    public func forEachPlainField(_ body: (_ name: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) -> Void) -> Bool {
        guard !hasFoldedLines, !facts.contains(.beyondASCII) else { return false }
        return withLines { all in
            if facts.contains(.unnoted) {
                var isASCII = true
                Self.forEachLine(all) { line, _ in
                    isASCII = ASCII.isASCII(line)
                    return isASCII
                }
                guard isASCII else { return false }
            }
            Self.forEachLine(all) { line, kind in
                if case .field(let name, let value) = kind {
                    body(UnsafeRawBufferPointer(rebasing: line[name]), UnsafeRawBufferPointer(rebasing: line[value]))
                }
                return true
            }
            return true
        }
    }

    /// Every field, in the order received.
    public var fields: [HeaderField] {
        withLines { all in
            var found: [HeaderField] = []
            found.reserveCapacity(Self.lineCount(all))
            // Whether the latest field line was kept, so its folded lines join it.
            var keptLatest = false
            Self.forEachLine(all) { line, kind in
                switch kind {
                case .field(let name, let value):
                    found.append(HeaderField(name: ResponseHeaderLine.text(line, name), value: ResponseHeaderLine.text(line, value)))
                    keptLatest = true
                case .continuation(let more):
                    if keptLatest { found[found.count - 1].value += " " + ResponseHeaderLine.text(line, more) }
                case .statusLine, .other:
                    keptLatest = false
                }
                return true
            }
            return found
        }
    }

    /// The value of the first Content-Type field, as `first("Content-Type")` gives it.
    public var contentType: String? {
        guard !hasFoldedLines else { return first("Content-Type") }
        guard let start = contentTypeLine else { return nil }
        return withLines { all in
            let line = Self.line(at: start, in: all)
            guard case .field(_, let value) = line.kind else { return nil }
            return ResponseHeaderLine.text(line.bytes, value)
        }
    }

    /// The value of the first field named `name` (compared ignoring ASCII case).
    public func first(_ name: String) -> String? {
        value(named: name, last: false)
    }

    /// The value of the last field named `name` (compared ignoring ASCII case).
    public func last(_ name: String) -> String? {
        value(named: name, last: true)
    }

    /// The value of the first or the last field named `name`, its folded lines joined. Only the
    /// value is made into a string.
    private func value(named name: String, last: Bool) -> String? {
        var found: String?
        forEachValuePart(named: name, last: last) { line, range, continues in
            let text = ResponseHeaderLine.text(line, range)
            if continues { found? += " " + text } else { found = text }
        }
        return found
    }

    /// The value of the last field named `name` as URL text, for a redirect's `Location`: in its
    /// path, query and fragment, each byte a URL cannot hold as it is (beyond ASCII, a control, a
    /// space, one of `"<>[\]^`{|}`, a `#` after the first, a `%` that starts no escape) is
    /// percent-encoded, and escapes already there stay. A byte that is not UTF-8 then leads where
    /// it says (`\xFF` as `%FF`, as curl sends it, not as a replacement character), and the URL
    /// parser, which would otherwise encode a whole component again (`%20` as `%2520`), finds
    /// nothing to encode. A scheme and host are left as they are: the parser turns an
    /// international host name into its ASCII form.
    func lastAsURLText(_ name: String) -> String? {
        var raw: [UInt8]?
        forEachValuePart(named: name, last: true) { line, range, continues in
            if continues {
                raw?.append(0x20)
                raw?.append(contentsOf: line[range])
            } else {
                raw = Array(line[range])
            }
        }
        return raw.map(Self.urlText)
    }

    /// Calls `body` with each part of the values of the fields named `name`, in order: a field's
    /// value (`continues` false), then each of its folded lines (`continues` true). With `last`
    /// false, it stops after the first such field.
    private func forEachValuePart(named name: String, last: Bool,
                                  _ body: (_ line: UnsafeRawBufferPointer, _ range: Range<Int>, _ continues: Bool) -> Void) {
        FieldName.with(name) { wanted in withLines { all in
            // Whether the latest field line was the one looked for, so its folded lines join it.
            var keptLatest = false
            Self.forEachLine(all) { line, kind in
                switch kind {
                case .field(let nameRange, let valueRange):
                    if keptLatest, !last { return false }
                    keptLatest = Self.isNamed(UnsafeRawBufferPointer(rebasing: line[nameRange]), wanted)
                    if keptLatest { body(line, valueRange, false) }
                case .continuation(let more):
                    if keptLatest { body(line, more, true) }
                case .statusLine, .other:
                    if keptLatest, !last { return false }
                    keptLatest = false
                }
                return true
            }
        } }
    }

    /// `bytes` as URL text (see `lastAsURLText`).
    static func urlText(_ bytes: [UInt8]) -> String {
        let authorityEnd = authorityEnd(in: bytes)
        let hex = Array("0123456789ABCDEF".utf8)
        func isHex(_ byte: UInt8) -> Bool { hex.contains(byte) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f")) }
        var encoded = Array(bytes[..<authorityEnd])
        encoded.reserveCapacity(bytes.count)
        var inFragment = false
        for index in authorityEnd..<bytes.count {
            let byte = bytes[index]
            let startsEscape = byte == UInt8(ascii: "%") && index + 2 < bytes.count && isHex(bytes[index + 1]) && isHex(bytes[index + 2])
            let secondHash = byte == UInt8(ascii: "#") && inFragment
            if byte == UInt8(ascii: "#") { inFragment = true }
            if byte <= 0x20 || byte >= 0x7F || #""<>[\]^`{|}"#.utf8.contains(byte) || secondHash
                || (byte == UInt8(ascii: "%") && !startsEscape) {
                encoded += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            } else {
                encoded.append(byte)
            }
        }
        return String(decoding: encoded, as: UTF8.self)
    }

    /// Where the scheme and authority of `bytes` end (`scheme://host:port` or `//host`): at the
    /// first `/`, `?` or `#` after them; 0 for a reference without an authority (`/path`, `x`).
    static func authorityEnd(in bytes: [UInt8]) -> Int {
        var index = 0
        while index < bytes.count, ASCII.isSchemeByte(bytes[index], first: index == 0) { index += 1 }
        let afterScheme = index > 0 && index < bytes.count && bytes[index] == UInt8(ascii: ":") ? index + 1 : 0
        guard bytes.count >= afterScheme + 2, bytes[afterScheme] == UInt8(ascii: "/"), bytes[afterScheme + 1] == UInt8(ascii: "/") else {
            return 0
        }
        var end = afterScheme + 2
        while end < bytes.count, bytes[end] != UInt8(ascii: "/"), bytes[end] != UInt8(ascii: "?"), bytes[end] != UInt8(ascii: "#") { end += 1 }
        return end
    }

    /// Adds a line as the header callback classified it (`kind`, which must be
    /// `ResponseHeaderLine(line)`: the ranges it gives are trusted when the line is read). A
    /// continuation arriving before any line is dropped; a line that becomes one only once its
    /// LFs are spaces (it started with an LF) is kept, and readers pass over it.
    ///
    /// libcurl hands over one line per call, so an LF can only end it; one inside it (which no
    /// HTTP/1 parser or HTTP/2 library lets through) becomes a space, so that a read never splits
    /// the line there. Such a line is classified again as kept, so what a reader finds is always
    /// what the kept bytes say.
    ///
    /// With `notingPlainText` (the session log will write the fields), each line is looked at
    /// as it arrives for `fieldsArePlainJSONText`; a head appended without it once is not.
    mutating func append(_ line: UnsafeRawBufferPointer, as kind: ResponseHeaderLine, notingPlainText: Bool = true) {
        assert(kind == ResponseHeaderLine(line), "a line kept as another kind than it is")
        if case .continuation = kind, used == 0 { return }
        // libcurl never hands over a line this long (its limit is 100 KiB a line); the prefix
        // could not say where its parts lie.
        guard let source = line.baseAddress, line.count < Int(LinePrefix.marksFrom) else { return }
        let keptLength = line.last == 0x0A ? line.count : line.count + 1
        let start = used
        let end = start + LinePrefix.size + keptLength
        if end > storage.count { grow(toHold: end) }
        let (kept, plainField) = storage.withUnsafeMutableBytes { all in
            let kept = UnsafeMutableRawBufferPointer(rebasing: all[(start + LinePrefix.size)..<end])
            kept.baseAddress!.copyMemory(from: source, byteCount: line.count)
            kept[keptLength - 1] = 0x0A
            var keptKind = kind
            if let inner = ASCII.firstIndex(of: 0x0A, in: UnsafeRawBufferPointer(kept)[..<(keptLength - 1)]) {
                for index in inner..<(keptLength - 1) where kept[index] == 0x0A { kept[index] = 0x20 }
                keptKind = ResponseHeaderLine(UnsafeRawBufferPointer(kept))
            }
            LinePrefix(length: keptLength, kind: keptKind).store(to: UnsafeMutableRawBufferPointer(rebasing: all[start...]))
            // A field's name and value lie in its first bytes, up to the value's end.
            guard notingPlainText, facts.isDisjoint(with: [.unnoted, .escapedField]), case .field(_, let value) = keptKind else {
                return (keptKind, false)
            }
            return (keptKind, ASCII.isPlainJSONText(UnsafeRawBufferPointer(rebasing: kept[..<value.upperBound])))
        }
        if !notingPlainText {
            facts.insert(.unnoted)
        } else if !plainField, !facts.contains(.unnoted) {
            // Plain text is ASCII, and what follows a plain value is spaces, tabs and the line end.
            if case .field = kept { facts.insert(.escapedField) }
            if !facts.contains(.beyondASCII), !ASCII.isASCII(line) { facts.insert(.beyondASCII) }
        }
        switch kept {
        // A line starting with a space or tab continues the field before it: a continuation, or
        // a line that started with an LF now made a space.
        case .continuation:
            facts.insert(.folded)
        case .field(let name, _):
            // The name's bytes as they arrived: only LFs, which no name holds, were changed.
            if contentTypeLine == nil, ASCII.isName(UnsafeRawBufferPointer(rebasing: line[name]), "content-type") { contentTypeLine = start }
        case .statusLine, .other:
            break
        }
        used = end
    }

    /// Makes the storage at least `count` bytes, at least doubling it: one allocation, the kept
    /// lines copied over and the rest zeroed (one `memcpy` and one `memset`). Appending zeros
    /// went through the array's generic append, about 600 instructions for a response's first
    /// 512 bytes.
    private mutating func grow(toHold count: Int) {
        let newCount = max(count, storage.count * 2)
        let kept = used
        storage = storage.withUnsafeBytes { old in
            [UInt8](unsafeUninitializedCapacity: newCount) { new, initialized in
                let base = UnsafeMutableRawPointer(new.baseAddress!)
                if kept > 0 { base.copyMemory(from: old.baseAddress!, byteCount: kept) }
                memset(base + kept, 0, newCount - kept)
                initialized = newCount
            }
        }
    }

    /// Calls `body` with the kept lines.
    private func withLines<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        storage.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[..<used])) }
    }

    /// What leads each kept line: its length (LF included) and where its parts lie, as four
    /// 32-bit numbers. A field's name ends at `nameEnd`; a continuation or another line has a
    /// mark there instead.
    private struct LinePrefix {
        static let size = 16
        /// `nameEnd` values from here up are marks, not offsets.
        static let marksFrom = UInt32.max - 1
        static let continuationMark = UInt32.max
        static let otherMark = UInt32.max - 1

        let length: Int
        let kind: ResponseHeaderLine

        init(length: Int, kind: ResponseHeaderLine) {
            self.length = length
            self.kind = kind
        }

        /// Reads the prefix at the start of `bytes`.
        init(from bytes: UnsafeRawBufferPointer) {
            length = Int(bytes.loadUnaligned(fromByteOffset: 0, as: UInt32.self))
            let nameEnd = bytes.loadUnaligned(fromByteOffset: 4, as: UInt32.self)
            let value = Int(bytes.loadUnaligned(fromByteOffset: 8, as: UInt32.self))..<Int(bytes.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
            switch nameEnd {
            case Self.continuationMark: kind = .continuation(value)
            case Self.otherMark: kind = .other
            default: kind = .field(name: 0..<Int(nameEnd), value: value)
            }
        }

        @inline(__always)
        func store(to bytes: UnsafeMutableRawBufferPointer) {
            var nameEnd = Self.otherMark
            var value = 0..<0
            switch kind {
            case .field(let name, let valueRange):
                nameEnd = UInt32(name.upperBound)
                value = valueRange
            case .continuation(let more):
                nameEnd = Self.continuationMark
                value = more
            case .statusLine, .other:
                break
            }
            bytes.storeBytes(of: UInt32(length), toByteOffset: 0, as: UInt32.self)
            bytes.storeBytes(of: nameEnd, toByteOffset: 4, as: UInt32.self)
            bytes.storeBytes(of: UInt32(value.lowerBound), toByteOffset: 8, as: UInt32.self)
            bytes.storeBytes(of: UInt32(value.upperBound), toByteOffset: 12, as: UInt32.self)
        }
    }

    /// Forgets every field, keeping the buffer (a new response on the same exchange starts).
    mutating func removeAll() {
        used = 0
        facts = []
        contentTypeLine = nil
    }

    /// Makes room for a typical response's head at once.
    mutating func reserveCapacity(_ count: Int) {
        if count > storage.count { grow(toHold: count) }
    }

    /// The number of lines in `all`: at least the number of fields.
    private static func lineCount(_ all: UnsafeRawBufferPointer) -> Int {
        var count = 0
        forEachLine(all) { _, _ in
            count += 1
            return true
        }
        return count
    }

    /// Calls `body` with each kept line of `all` (its LF included) and where its parts lie,
    /// until it returns false.
    private static func forEachLine(_ all: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer, ResponseHeaderLine) -> Bool) {
        var start = 0
        while start + LinePrefix.size <= all.count {
            let line = line(at: start, in: all)
            guard body(line.bytes, line.kind) else { return }
            start = line.end
        }
    }

    /// The kept line whose prefix starts at `start` of `all` (its LF included), what kind it is,
    /// and where the next line's prefix starts.
    private static func line(at start: Int, in all: UnsafeRawBufferPointer) -> (bytes: UnsafeRawBufferPointer, kind: ResponseHeaderLine, end: Int) {
        let prefix = LinePrefix(from: UnsafeRawBufferPointer(rebasing: all[start...]))
        let lineStart = start + LinePrefix.size
        let end = lineStart + prefix.length
        return (UnsafeRawBufferPointer(rebasing: all[lineStart..<end]), prefix.kind, end)
    }

    /// Whether a field's name, as `fields` presents it, is `name` ignoring ASCII case. A name
    /// with bytes beyond ASCII is compared as its text (invalid UTF-8 repaired), as `fields` has it.
    private static func isNamed(_ bytes: UnsafeRawBufferPointer, _ name: FieldName) -> Bool {
        // Most names differ in length, which settles it unless repairing bytes beyond ASCII
        // could make text of the name's length.
        if bytes.count != name.bytes.count, name.isASCII { return false }
        guard ASCII.isASCII(bytes) else { return ASCII.equalsIgnoringCase(String(decoding: bytes, as: UTF8.self), name.text) }
        guard bytes.count == name.bytes.count else { return false }
        for index in 0..<bytes.count where ASCII.lowercase(bytes[index]) != ASCII.lowercase(name.bytes[index]) { return false }
        return true
    }

    /// A name looked for, its bytes read in place once for all the lines it is compared with.
    private struct FieldName {
        let text: String
        let bytes: UnsafeBufferPointer<UInt8>
        let isASCII: Bool

        /// Calls `body` with `text` as a name to look for, valid only inside it.
        static func with<Result>(_ text: String, _ body: (FieldName) -> Result) -> Result {
            text.withUTF8Bytes { bytes in body(FieldName(text: text, bytes: bytes, isASCII: ASCII.isASCII(UnsafeRawBufferPointer(bytes)))) }
        }
    }
}
