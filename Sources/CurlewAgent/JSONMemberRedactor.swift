/// Hides the values of secret members in JSON text by walking its tokens, without parsing it into
/// a tree. It needs no complete document: a body kept only in part (larger than the debug body
/// limit) is redacted as surely as a whole one, and a value cut off by the limit is hidden up to
/// the cut. Everything else is kept byte for byte, so member order and formatting survive.
///
/// A member is secret by its name, or by its path read as a form nests it (`{"api": {"key": …}}`
/// as `api[key]`: see `JSONMemberPath`).
struct JSONMemberRedactor {
    /// Whether a member name (the raw bytes between its quotes, or a nested name made of such
    /// names) is secret.
    let isSecretName: (UnsafeRawBufferPointer.SubSequence) -> Bool
    /// How many bytes of a member's path are read (`JSONMemberPath.joinedLimit`).
    let pathLimit: Int
    /// Applied to the raw contents of every member name and string value that is not hidden
    /// (query parameters and URL passwords inside echoed URLs); returns nil when it changes
    /// nothing.
    let redactString: (ArraySlice<UInt8>) -> [UInt8]?
    let marker: [UInt8]

    /// The redacted text, or nil when nothing in `bytes` needed hiding.
    func redact(_ bytes: [UInt8]) -> [UInt8]? {
        bytes.withUnsafeBytes { redact(bytes, raw: $0) }
    }

    private func redact(_ bytes: [UInt8], raw: UnsafeRawBufferPointer) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var changed = false
        var path = JSONMemberPath()
        var index = 0
        let count = bytes.count
        while index < count {
            guard bytes[index] == UInt8(ascii: "\"") else {
                path.readStructural(bytes[index])
                output.append(bytes[index])
                index += 1
                continue
            }
            let (end, closed, contentsRange, memberColon) = Self.string(at: index, in: bytes)
            let contents = bytes[contentsRange]
            if let colon = memberColon {
                let nameRange = contentsRange
                let isSecret = isSecretName(raw[nameRange])
                    || (path.isNested && path.withNestedName(nameRange, in: raw, limit: pathLimit, isSecretName))
                // A name can carry what a value can (`{"https://h/cb?token=…": 1}`).
                if !isSecret, let replaced = redactString(contents) {
                    output.append(UInt8(ascii: "\""))
                    output += replaced
                    output += bytes[(end - 1)...colon]
                    changed = true
                } else {
                    output += bytes[index...colon]
                }
                var valueStart = colon + 1
                while valueStart < count, Self.isWhitespace(bytes[valueStart]) {
                    output.append(bytes[valueStart])
                    valueStart += 1
                }
                if isSecret {
                    if valueStart < count {
                        output.append(UInt8(ascii: "\""))
                        output += marker
                        output.append(UInt8(ascii: "\""))
                        changed = true
                    }
                    index = Self.valueEnd(bytes, from: valueStart)
                } else {
                    path.readName(nameRange)
                    index = valueStart
                }
            } else if let replaced = redactString(contents) {
                path.readString()
                output.append(UInt8(ascii: "\""))
                output += replaced
                if closed { output.append(UInt8(ascii: "\"")) }
                changed = true
                index = end
            } else {
                path.readString()
                output += bytes[index..<end]
                index = end
            }
        }
        return changed ? output : nil
    }

    /// Whether a member of the JSON text `bytes` is secret by its path but not by its name alone
    /// (`{"api": {"key": …}}`), walked as `redact` walks it (a member secret by its name has its
    /// value passed over there, and here). A check before paying for a redaction: a caller that
    /// found no secret name in `bytes` asks this only when they nest an object (two `{`).
    static func containsSecretPath(_ bytes: UnsafeRawBufferPointer, pathLimit: Int, isSecretName: (UnsafeRawBufferPointer.SubSequence) -> Bool) -> Bool {
        var path = JSONMemberPath()
        var index = 0
        let count = bytes.count
        while index < count {
            guard bytes[index] == UInt8(ascii: "\"") else {
                path.readStructural(bytes[index])
                index += 1
                continue
            }
            let (end, _, name, memberColon) = string(at: index, in: bytes)
            guard let colon = memberColon else {
                path.readString()
                index = end
                continue
            }
            if path.isNested, path.withNestedName(name, in: bytes, limit: pathLimit, isSecretName) { return true }
            var valueStart = colon + 1
            while valueStart < count, isWhitespace(bytes[valueStart]) { valueStart += 1 }
            if isSecretName(bytes[name]) {
                index = valueEnd(bytes, from: valueStart)
            } else {
                path.readName(name)
                index = valueStart
            }
        }
        return false
    }

    /// The string starting at `index` (its opening quote): where it ends, whether its closing
    /// quote came, its contents, and the colon after it when it is a member's name. The one
    /// reading of a name `redact` and `containsSecretPath` share, so both find the same members.
    private static func string<Bytes: RandomAccessCollection<UInt8>>(at index: Int, in bytes: Bytes)
        -> (end: Int, closed: Bool, contents: Range<Int>, colon: Int?) where Bytes.Index == Int {
        let (end, closed) = stringEnd(bytes, from: index)
        var colon = end
        while colon < bytes.endIndex, isWhitespace(bytes[colon]) { colon += 1 }
        let isName = colon < bytes.endIndex && bytes[colon] == UInt8(ascii: ":")
        return (end, closed, (index + 1)..<(closed ? end - 1 : end), isName ? colon : nil)
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// The index just past the string starting at `start` (its closing quote), or the end of input
    /// when the string is cut off.
    private static func stringEnd<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, from start: Int) -> (end: Int, closed: Bool) where Bytes.Index == Int {
        var index = start + 1
        while index < bytes.endIndex {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return (index + 1, true)
            default: index += 1
            }
        }
        return (bytes.endIndex, false)
    }

    /// The index just past the value starting at `start`: a string, a whole object or array, or a
    /// scalar; the end of input when the value is cut off.
    private static func valueEnd<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, from start: Int) -> Int where Bytes.Index == Int {
        guard start < bytes.endIndex else { return bytes.endIndex }
        switch bytes[start] {
        case UInt8(ascii: "\""):
            return stringEnd(bytes, from: start).end
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            return containerEnd(bytes, from: start) ?? bytes.endIndex
        default:
            var index = start
            while index < bytes.endIndex, !isWhitespace(bytes[index]),
                  bytes[index] != UInt8(ascii: ","), bytes[index] != UInt8(ascii: "}"), bytes[index] != UInt8(ascii: "]") {
                index += 1
            }
            return index
        }
    }

    /// `containerEnd`, looking at no more bytes than `budget` holds, and taking what it looked at
    /// from it: also nil once the budget is spent. A walk that asks at each of many values gives
    /// them one budget a few times its input, so containers opened and never closed
    /// (`a={&a={&…`) cost it linear time instead of a scan to the end from each.
    static func containerEnd<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, from start: Int, budget: inout Int) -> Int? where Bytes.Index == Int {
        guard budget > 0, start < bytes.endIndex, bytes[start] == UInt8(ascii: "{") || bytes[start] == UInt8(ascii: "[") else { return nil }
        let limit = start + min(budget, bytes.endIndex - start)
        let end = containerEnd(bytes[bytes.startIndex..<limit], from: start)
        budget -= (end ?? limit) - start
        return end
    }

    /// The index just past the object or array opening at `start` (its matching bracket, strings
    /// skipped); nil when `start` opens none, or it is never closed. Also where a form's or a
    /// query's value that opens JSON ends (`RedactionPolicy`), spaces, `&` and `#` inside it.
    static func containerEnd<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, from start: Int) -> Int? where Bytes.Index == Int {
        guard start < bytes.endIndex, bytes[start] == UInt8(ascii: "{") || bytes[start] == UInt8(ascii: "[") else { return nil }
        var depth = 0
        var index = start
        while index < bytes.endIndex {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                index = stringEnd(bytes, from: index).end
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 0 { return index + 1 }
            default:
                break
            }
            index += 1
        }
        return nil
    }
}
