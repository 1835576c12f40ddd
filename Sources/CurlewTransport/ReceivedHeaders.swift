import Foundation

/// A response's header fields as libcurl handed them over: the field lines kept as bytes, made
/// into strings only when read. Receiving a response costs one buffer instead of two strings a
/// field, and a caller that never reads a header pays nothing more.
///
/// A line folded onto the one before (obsolete line folding) joins that field's value after a space.
public struct ReceivedHeaders: Sendable {
    /// The field and continuation lines, each ending in LF.
    private var lines: [UInt8] = []

    public init() {}

    /// Whether the response carried no field.
    public var isEmpty: Bool { lines.isEmpty }

    /// Every field, in the order received.
    public var fields: [HeaderField] {
        var found: [HeaderField] = []
        found.reserveCapacity(lineCount)
        forEachField(named: nil) { found.append($0) }
        return found
    }

    /// The value of the first field named `name` (compared ignoring ASCII case).
    public func first(_ name: String) -> String? {
        var first: String?
        forEachField(named: name) { field in
            first = field.value
            return false
        }
        return first
    }

    /// The value of the last field named `name` (compared ignoring ASCII case).
    public func last(_ name: String) -> String? {
        var last: String?
        forEachField(named: name) { last = $0.value }
        return last
    }

    /// Adds a line the header callback classified as a field (`continuation` false) or as the
    /// continuation of one. A continuation with no field before it is dropped.
    mutating func append(_ line: UnsafeRawBufferPointer, continuation: Bool) {
        if continuation, lines.isEmpty { return }
        lines.append(contentsOf: line.bindMemory(to: UInt8.self))
        if line.last != 0x0A { lines.append(0x0A) }
    }

    /// Forgets every field, keeping the buffer (a new response on the same exchange starts).
    mutating func removeAll() {
        lines.removeAll(keepingCapacity: true)
    }

    /// Makes room for a typical response's head at once.
    mutating func reserveCapacity(_ count: Int) {
        lines.reserveCapacity(count)
    }

    /// The number of lines kept: at least the number of fields.
    private var lineCount: Int {
        lines.withUnsafeBytes { all in
            var count = 0
            var start = 0
            while start < all.count, let end = ASCII.firstIndex(of: 0x0A, in: all[start...]) {
                count += 1
                start = end + 1
            }
            return count
        }
    }

    /// Calls `body` with each field named `name` (every field for nil), its folded lines joined,
    /// in order, until it returns false. Only those fields are made into strings.
    private func forEachField(named name: String?, _ body: (HeaderField) -> Bool) {
        lines.withUnsafeBytes { all in
            // The field being read: kept until the next field line, as folded lines may follow.
            var pending: HeaderField?
            var start = 0
            while start < all.count, let end = ASCII.firstIndex(of: 0x0A, in: all[start...]) {
                let line = UnsafeRawBufferPointer(rebasing: all[start...end])
                start = end + 1
                switch ResponseHeaderLine(line) {
                case .field(let nameRange, let valueRange):
                    if let field = pending {
                        pending = nil
                        guard body(field) else { return }
                    }
                    if name.map({ Self.isNamed(UnsafeRawBufferPointer(rebasing: line[nameRange]), $0) }) ?? true {
                        pending = HeaderField(name: ResponseHeaderLine.text(line, nameRange), value: ResponseHeaderLine.text(line, valueRange))
                    }
                case .continuation(let more):
                    pending?.value += " " + ResponseHeaderLine.text(line, more)
                case .statusLine, .other:
                    if let field = pending {
                        pending = nil
                        guard body(field) else { return }
                    }
                }
            }
            if let field = pending { _ = body(field) }
        }
    }

    /// `forEachField` for a body that reads every field.
    private func forEachField(named name: String?, _ body: (HeaderField) -> Void) {
        forEachField(named: name) { (field: HeaderField) -> Bool in
            body(field)
            return true
        }
    }

    /// Whether a field's name, as `fields` presents it, is `name` ignoring ASCII case. A name
    /// with bytes beyond ASCII is compared as its text (invalid UTF-8 repaired), as `fields` has it.
    private static func isNamed(_ bytes: UnsafeRawBufferPointer, _ name: String) -> Bool {
        if bytes.contains(where: { $0 >= 0x80 }) {
            return ASCII.equalsIgnoringCase(String(decoding: bytes, as: UTF8.self), name)
        }
        return name.withUTF8Bytes { expected in
            guard expected.count == bytes.count else { return false }
            for index in 0..<bytes.count where ASCII.lowercase(bytes[index]) != ASCII.lowercase(expected[index]) { return false }
            return true
        }
    }
}
