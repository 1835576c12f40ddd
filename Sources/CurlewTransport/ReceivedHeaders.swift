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
        fields { _ in true }
    }

    /// The value of the first field named `name` (compared ignoring ASCII case).
    public func first(_ name: String) -> String? {
        fields { Self.isNamed($0, name) }.first?.value
    }

    /// The value of the last field named `name` (compared ignoring ASCII case).
    public func last(_ name: String) -> String? {
        fields { Self.isNamed($0, name) }.last?.value
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

    /// The fields whose names pass `wanted`, made into strings; only they are.
    private func fields(where wanted: (UnsafeRawBufferPointer) -> Bool) -> [HeaderField] {
        lines.withUnsafeBytes { all in
            var found: [HeaderField] = []
            // Whether the latest field line was kept, so its continuations are too.
            var keptLatest = false
            var start = 0
            while start < all.count, let end = ASCII.firstIndex(of: 0x0A, in: all[start...]) {
                let line = UnsafeRawBufferPointer(rebasing: all[start...end])
                start = end + 1
                switch ResponseHeaderLine(line) {
                case .field(let name, let value):
                    keptLatest = wanted(UnsafeRawBufferPointer(rebasing: line[name]))
                    if keptLatest {
                        found.append(HeaderField(name: ResponseHeaderLine.text(line, name), value: ResponseHeaderLine.text(line, value)))
                    }
                case .continuation(let more):
                    if keptLatest { found[found.count - 1].value += " " + ResponseHeaderLine.text(line, more) }
                case .statusLine, .other:
                    keptLatest = false
                }
            }
            return found
        }
    }

    private static func isNamed(_ bytes: UnsafeRawBufferPointer, _ name: String) -> Bool {
        name.withUTF8Bytes { expected in
            guard expected.count == bytes.count else { return false }
            for index in 0..<bytes.count where ASCII.lowercase(bytes[index]) != ASCII.lowercase(expected[index]) { return false }
            return true
        }
    }
}
