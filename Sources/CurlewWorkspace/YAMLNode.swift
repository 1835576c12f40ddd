import CurlewSessions
import Foundation
import Yams

/// A YAML document as plain values that remember where they were written. Yams parses; this tree
/// is what the rest of the workspace code reads, so it never holds a Yams type.
public indirect enum YAMLNode: Sendable, Equatable {
    /// A scalar's text; `isPlain` when it was written without quotes (so `null`, `true` and
    /// numbers mean what YAML says rather than a string).
    case scalar(String, isPlain: Bool, SourcePosition)
    case mapping([(key: YAMLNode, value: YAMLNode)], SourcePosition)
    case sequence([YAMLNode], SourcePosition)

    public var position: SourcePosition {
        switch self {
        case .scalar(_, _, let position), .mapping(_, let position), .sequence(_, let position): position
        }
    }

    /// A null scalar (`~`, `null`, or nothing after the key).
    public var isNull: Bool {
        if case .scalar(let text, true, _) = self { return ["", "~", "null", "Null", "NULL"].contains(text) }
        return false
    }

    /// What kind of value this is, for "expected … found …" messages.
    public var kindName: String {
        switch self {
        case .scalar: isNull ? "nothing" : "a scalar"
        case .mapping: "a mapping"
        case .sequence: "a list"
        }
    }

    public static func == (lhs: YAMLNode, rhs: YAMLNode) -> Bool {
        switch (lhs, rhs) {
        case let (.scalar(a, plainA, _), .scalar(b, plainB, _)): a == b && plainA == plainB
        case let (.sequence(a, _), .sequence(b, _)): a == b
        case let (.mapping(a, _), .mapping(b, _)): a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: false
        }
    }
}

/// Parses YAML text into `YAMLNode`s with positions.
public enum YAMLDocument {
    /// The most nodes a document may expand to. Aliases can make a short file describe an
    /// exponentially large tree ("billion laughs"); past this it is refused, not built.
    public static let maxNodes = 500_000
    /// The largest file read, in bytes.
    public static let maxFileBytes = 16 << 20

    /// The document in `text`, or nil for an empty document.
    public static func parse(_ text: String, file: String) throws(WorkspaceError) -> YAMLNode? {
        try refuseComplexKeys(text, file: file)
        let node: Node?
        do {
            node = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw syntaxError(error, file: file, text: text)
        } catch {
            throw WorkspaceError(.syntax, at: SourcePosition(file: file, line: 1, column: 1), "not YAML: \(error)")
        }
        guard let node else { return nil }
        var budget = maxNodes
        return try convert(node, file: file, budget: &budget)
    }

    /// Reads and parses a file.
    public static func read(path: String) throws(WorkspaceError) -> YAMLNode? {
        try parse(readText(path: path), file: path)
    }

    /// A file's text, refusing directories, huge files and text that is not UTF-8.
    public static func readText(path: String) throws(WorkspaceError) -> String {
        // Said as the system says it: a missing file, a link that leads nowhere or in a loop
        // (`ELOOP`), a directory on the way that cannot be searched.
        var status = stat()
        guard stat(path, &status) == 0 else {
            let reason = errno == ENOENT ? "no such file" : String(cString: strerror(errno)).lowercased()
            throw WorkspaceError(.unreadable, at: nil, "\(path): \(reason)")
        }
        guard status.st_mode & S_IFMT != S_IFDIR else { throw WorkspaceError(.unreadable, at: nil, "\(path): is a directory") }
        // A FIFO, a device or /dev/stdin would block or never end.
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw WorkspaceError(.unreadable, at: nil, "\(path): not a regular file")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw WorkspaceError(.unreadable, at: nil, "\(path): cannot be opened") }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: maxFileBytes + 1) ?? Data()
        } catch {
            throw WorkspaceError(.unreadable, at: nil, "\(path): \(error.localizedDescription)")
        }
        guard data.count <= maxFileBytes else { throw WorkspaceError(.unreadable, at: nil, "\(path): larger than \(maxFileBytes >> 20) MiB") }
        guard let text = String(data: data.withoutByteOrderMark, encoding: .utf8) else {
            throw WorkspaceError(.unreadable, at: nil, "\(path): not UTF-8 text")
        }
        return text
    }

    /// Refuses explicit (`? key`) and alias (`*anchor: value`) mapping keys before Yams reads
    /// the document. The format never uses them, and Yams compares such keys for duplicates by
    /// walking them whole, so an alias key that expands exponentially would hang the reader.
    /// One forward pass over the bytes. A line ends where libyaml ends one: `\n`, `\r\n`, a lone
    /// `\r`, NEL (U+0085), LS (U+2028) and PS (U+2029); a byte-order mark at a line's start is
    /// skipped as libyaml skips it.
    public static func refuseComplexKeys(_ text: String, file: String) throws(WorkspaceError) {
        let bytes = Array(text.utf8)
        var lineStart = 0
        var lineNumber = 1
        // The indentation of the line that opened a block scalar (`key: |`); deeper lines are
        // its text, where a `*` is only a star.
        var blockScalarIndent: Int?
        while lineStart <= bytes.count {
            var lineEnd = lineStart
            var breakLength = 0
            while lineEnd < bytes.count {
                breakLength = lineBreakLength(bytes, at: lineEnd)
                if breakLength > 0 { break }
                lineEnd += 1
            }
            let line = bytes[lineStart..<lineEnd]
            let indent = line.prefix { $0 == UInt8(ascii: " ") }.count
            let blank = line.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            if let opener = blockScalarIndent, blank || indent > opener {
                // Text of the block scalar.
            } else {
                blockScalarIndent = nil
                try refuseComplexKey(in: line, line: lineNumber, file: file)
                if opensBlockScalar(line) { blockScalarIndent = indent }
            }
            lineStart = lineEnd + max(1, breakLength)
            lineNumber += 1
        }
    }

    /// A line whose value is a block scalar indicator: `key: |`, `- >-`, `key: |2+` (a comment
    /// may follow).
    private static func opensBlockScalar(_ line: ArraySlice<UInt8>) -> Bool {
        var content = Array(line)
        if let hash = content.indices.first(where: { content[$0] == UInt8(ascii: "#") && ($0 == 0 || content[$0 - 1] == UInt8(ascii: " ")) }) {
            content = Array(content[..<hash])
        }
        while let last = content.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { content.removeLast() }
        var index = content.count
        while index > 0, "-+0123456789".utf8.contains(content[index - 1]) { index -= 1 }
        guard index > 0, content[index - 1] == UInt8(ascii: "|") || content[index - 1] == UInt8(ascii: ">") else { return false }
        let before = index - 1
        // The indicator is the whole value: after `: `, after `- `, or alone on the line.
        if before == 0 || content[..<before].allSatisfy({ $0 == UInt8(ascii: " ") }) { return true }
        guard before >= 2, content[before - 1] == UInt8(ascii: " ") else { return false }
        return content[before - 2] == UInt8(ascii: ":") || content[before - 2] == UInt8(ascii: "-")
    }

    /// How many bytes the line break at `index` takes, or 0 when there is none.
    private static func lineBreakLength(_ bytes: [UInt8], at index: Int) -> Int {
        switch bytes[index] {
        case UInt8(ascii: "\n"): return 1
        case UInt8(ascii: "\r"): return index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "\n") ? 2 : 1
        case 0xC2 where index + 1 < bytes.count && bytes[index + 1] == 0x85: return 2
        case 0xE2 where index + 2 < bytes.count && bytes[index + 1] == 0x80 && (bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9): return 3
        default: return 0
        }
    }

    private static func refuseComplexKey(in line: ArraySlice<UInt8>, line number: Int, file: String) throws(WorkspaceError) {
        func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        var start = line.startIndex
        if line.starts(with: [0xEF, 0xBB, 0xBF]) { start += 3 }
        while start < line.endIndex, isBlank(line[start]) || line[start] == UInt8(ascii: "-") { start += 1 }
        let position = SourcePosition(file: file, line: number, column: start - line.startIndex + 1)
        if start < line.endIndex, line[start] == UInt8(ascii: "?"), start + 1 == line.endIndex || isBlank(line[start + 1]) {
            throw WorkspaceError(.invalid, at: position, "an explicit (?) mapping key; keys are plain names")
        }
        let ends: Set<UInt8> = Set(" \t,[]{}:".utf8)
        let before: Set<UInt8> = Set(" \t{,[".utf8)
        // A quoted scalar opens where a value may start; a `*` inside one is only a star.
        let quoteStarts: Set<UInt8> = Set(" \t{,[:-".utf8)
        var quote: UInt8?
        var index = start
        while index < line.endIndex {
            let byte = line[index]
            if let open = quote {
                if open == UInt8(ascii: "\""), byte == UInt8(ascii: "\\") { index += 2; continue }
                // `''` inside single quotes is one quote.
                if open == UInt8(ascii: "'"), byte == open, index + 1 < line.endIndex, line[index + 1] == open { index += 2; continue }
                if byte == open { quote = nil }
                index += 1
                continue
            }
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'"), index == start || quoteStarts.contains(line[index - 1]) {
                quote = byte
                index += 1
                continue
            }
            guard byte == UInt8(ascii: "*") else { index += 1; continue }
            let nameStart = index + 1
            var nameEnd = nameStart
            while nameEnd < line.endIndex, !ends.contains(line[nameEnd]) { nameEnd += 1 }
            var after = nameEnd
            while after < line.endIndex, isBlank(line[after]) { after += 1 }
            let startsKey = index == start || before.contains(line[index - 1])
            if nameEnd > nameStart, startsKey, after < line.endIndex, line[after] == UInt8(ascii: ":"),
               after + 1 == line.endIndex || isBlank(line[after + 1]) {
                let name = String(decoding: line[nameStart..<nameEnd], as: UTF8.self)
                throw WorkspaceError(.invalid, at: position, "an alias (*\(name)) as a mapping key; keys are plain names")
            }
            index = max(nameEnd, nameStart)
        }
    }

    private static func syntaxError(_ error: YamlError, file: String, text: String) -> WorkspaceError {
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _):
            // The parser's depth limit speaks of the C function that sets it.
            if problem.hasPrefix("Maximum nesting level") {
                return WorkspaceError(.syntax, at: SourcePosition(file: file, line: mark.line, column: mark.column),
                                      "not valid YAML: nested too deeply (lists and mappings more than 1,000 levels inside each other)")
            }
            return WorkspaceError(.syntax, at: SourcePosition(file: file, line: mark.line, column: mark.column), "not valid YAML: \(detail(problem, context?.text))")
        case .composer(let context, let problem, let mark, _):
            return WorkspaceError(.syntax, at: SourcePosition(file: file, line: mark.line, column: mark.column), "not valid YAML: \(detail(problem, context?.text))")
        case .duplicatedKeysInMapping(let duplicates, let context):
            // Where the key is given again, not where the mapping starts.
            let (line, column) = duplicates.first.flatMap {
                secondKey($0, inBlockMappingAt: context.mark.line, column: context.mark.column, of: text)
                    ?? secondKey($0, inFlowMappingAt: context.mark.line, column: context.mark.column, of: text)
            } ?? (context.mark.line, context.mark.column)
            return WorkspaceError(.syntax, at: SourcePosition(file: file, line: line, column: column),
                                  "the key \(duplicates.joined(separator: ", ")) appears twice in one mapping")
        case .reader(let problem, let offset, let value, _):
            // Said by its place and the character's code, never with the line quoted: the file
            // may be any file on the disk (`/proc/self/environ`), or the secrets file (found by
            // a new user's trial).
            let (line, column) = offset.map { place(ofByte: $0, in: text) } ?? (1, 1)
            let code = value >= 0 ? String(format: " (U+%04X)", value) : ""
            return WorkspaceError(.syntax, at: SourcePosition(file: file, line: line, column: column), "not valid YAML: \(problem)\(code)")
        default:
            return WorkspaceError(.syntax, at: SourcePosition(file: file, line: 1, column: 1), "not valid YAML")
        }
    }

    /// The YAML library's problem after the context it arose in, as libyaml words them to be
    /// read (`expected a single document in the stream, but found another document`; `while
    /// scanning a simple key, could not find expected ':'`).
    private static func detail(_ problem: String, _ context: String?) -> String {
        guard let context, !context.isEmpty else { return problem }
        return "\(context), \(problem)"
    }

    /// The line and column (1-based, in characters) of the byte at `offset` of `text`.
    static func place(ofByte offset: Int, in text: String) -> (line: Int, column: Int) {
        var (line, column) = (1, 1)
        var bytes = 0
        for character in text {
            guard bytes < offset else { break }
            bytes += character.utf8.count
            if character == "\n" || character == "\r\n" { (line, column) = (line + 1, 1) } else { column += 1 }
        }
        return (line, column)
    }

    /// The line and column of the second `key:` of a block mapping whose first key stands at
    /// `line` and `column` (1-based): the key lines at that indentation from there on, quoted
    /// or not. Nil when it cannot be found so (a flow mapping, `{a: 1, a: 2}`).
    static func secondKey(_ key: String, inBlockMappingAt line: Int, column: Int, of text: String) -> (line: Int, column: Int)? {
        let spellings = [key, "\"\(key)\"", "'\(key)'"].map { $0 + ":" }
        var found = 0
        // By bytes: a CRLF is one Character, which a split on "\n" would not cut.
        for (index, bytes) in text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated().dropFirst(line - 1) {
            let row = Substring(decoding: bytes, as: UTF8.self)
            let trimmed = row.hasSuffix("\r") ? row.dropLast() : row
            let indent = trimmed.prefix { $0 == " " }.count
            // A line less indented (not blank, not a comment) ends the mapping.
            let content = trimmed.dropFirst(indent)
            if index > line - 1, indent < column - 1, !content.isEmpty, !content.hasPrefix("#") { return nil }
            guard indent == column - 1, spellings.contains(where: { content.hasPrefix($0) && (content.count == $0.count || content.dropFirst($0.count).first == " ") })
            else { continue }
            found += 1
            if found == 2 { return (index + 1, column) }
        }
        return nil
    }

    /// The line and column of the second `key` of a flow mapping (`{a: 1, a: 2}`, over lines
    /// too) whose first key stands at `line` and `column` (1-based), as the parser marks it:
    /// the keys at its own depth, after a `,`, quoted or not; what nested brackets and quoted
    /// strings hold is passed over. Nil when it cannot be found so.
    static func secondKey(_ key: String, inFlowMappingAt line: Int, column: Int, of text: String) -> (line: Int, column: Int)? {
        var (row, col) = (1, 1)
        // From the first key on, inside the mapping.
        var depth = 1
        var expectingKey = true
        var found = 0
        var quote: Character?
        var keyStart: (line: Int, column: Int)?
        var keyText = ""
        for character in text {
            defer {
                if character == "\n" || character == "\r\n" { (row, col) = (row + 1, 1) } else { col += 1 }
            }
            guard (row, col) >= (line, column) else { continue }
            if let open = quote {
                if character == open { quote = nil } else if keyStart != nil { keyText.append(character) }
                continue
            }
            switch character {
            case "{", "[":
                depth += 1
            case "}", "]":
                depth -= 1
                if depth == 0 { return nil }
            case ",":
                if depth == 1 { expectingKey = true; keyStart = nil; keyText = "" }
            case ":":
                if depth == 1, let start = keyStart {
                    if keyText.trimmingCharacters(in: .whitespaces) == key {
                        found += 1
                        if found == 2 { return start }
                    }
                    keyStart = nil
                    keyText = ""
                    expectingKey = false
                }
            case "\"", "'":
                if depth == 1, expectingKey, keyStart == nil { keyStart = (row, col) }
                quote = character
            case " ", "\t", "\n", "\r\n":
                if keyStart != nil { keyText.append(" ") }
            default:
                if depth == 1, expectingKey {
                    if keyStart == nil { keyStart = (row, col) }
                    keyText.append(character)
                }
            }
        }
        return nil
    }

    private static func convert(_ node: Node, file: String, budget: inout Int) throws(WorkspaceError) -> YAMLNode {
        let position = SourcePosition(file: file, line: node.mark?.line ?? 1, column: node.mark?.column ?? 1)
        budget -= 1
        guard budget >= 0 else {
            throw WorkspaceError(.invalid, at: position, "the document expands to more than \(maxNodes) values, counting each value an alias repeats: a workspace this large, or aliases nested this deep, is refused")
        }
        switch node {
        case .scalar(let scalar):
            return .scalar(scalar.string, isPlain: scalar.style == .plain, position)
        case .mapping(let mapping):
            var pairs: [(key: YAMLNode, value: YAMLNode)] = []
            for (key, value) in mapping {
                pairs.append((try convert(key, file: file, budget: &budget), try convert(value, file: file, budget: &budget)))
            }
            return .mapping(pairs, position)
        case .sequence(let sequence):
            var elements: [YAMLNode] = []
            for element in sequence { elements.append(try convert(element, file: file, budget: &budget)) }
            return .sequence(elements, position)
        case .alias:
            throw WorkspaceError(.invalid, at: position, "an alias that names no anchor")
        }
    }
}
