import CurlewAgent
import Foundation

/// Reads one YAML value as part of the workspace format, with its key path for messages.
struct NodeReader {
    let node: YAMLNode
    let keyPath: String

    init(_ node: YAMLNode, keyPath: String) {
        self.node = node
        self.keyPath = keyPath
    }

    func error(_ message: String, kind: WorkspaceError.Kind = .invalid) -> WorkspaceError {
        WorkspaceError(kind, at: node.position, keyPath: keyPath, message)
    }

    func expected(_ what: String) -> WorkspaceError {
        let found: String
        if case .scalar(let text, _, _) = node, !node.isNull {
            found = Self.shownValue(text)
        } else {
            found = node.kindName
        }
        return error("expected \(what), found \(found)")
    }

    /// A value an error quotes, hidden as a log hides it, since it may be a credential on the
    /// wrong line: also what follows an authorization scheme (`Bearer [REDACTED]`), which a log
    /// hides by the header it stands in.
    static func shownValue(_ text: String) -> String {
        var shown = RedactionPolicy().redactText(text)
        // After the first word that names a scheme or an `Authorization:` field, whatever
        // spaces or tabs stand around the words.
        let words = shown.split(whereSeparator: { $0 == " " || $0 == "\t" })
        if let scheme = words.firstIndex(where: { Self.credentialWords.contains($0.lowercased()) }), scheme + 1 < words.count {
            shown = words[...scheme].joined(separator: " ") + " " + RedactionPolicy.marker
        }
        return ClippedText.quoted(shown, limit: 40)
    }

    /// Words a credential follows: the authorization schemes, and a field that carries one.
    private static let credentialWords: Set<String> = ["bearer", "basic", "token", "digest", "negotiate", "apikey", "hmac", "aws4-hmac-sha256",
                                                       "authorization:", "proxy-authorization:", "x-api-key:", "cookie:"]

    /// A mapping whose keys are read one by one; `finish()` reports any left unread.
    func mapping() throws(WorkspaceError) -> MappingReader {
        guard case .mapping(let pairs, _) = node else { throw expected("a mapping") }
        var entries: [(key: String, keyNode: YAMLNode, value: YAMLNode)] = []
        for pair in pairs {
            guard case .scalar(let key, _, _) = pair.key else {
                throw NodeReader(pair.key, keyPath: keyPath).expected("a plain key")
            }
            entries.append((key, pair.key, pair.value))
        }
        return MappingReader(entries: entries, keyPath: keyPath, position: node.position)
    }

    func list() throws(WorkspaceError) -> [NodeReader] {
        guard case .sequence(let elements, _) = node else { throw expected("a list") }
        return elements.enumerated().map { NodeReader($0.element, keyPath: "\(keyPath)[\($0.offset)]") }
    }

    /// A list, or a single value taken as a list of one.
    func listOrOne() throws(WorkspaceError) -> [NodeReader] {
        if case .sequence = node { return try list() }
        return [self]
    }

    func string() throws(WorkspaceError) -> String {
        guard case .scalar(let text, _, _) = node, !node.isNull else { throw expected("a string") }
        return text
    }

    func strings() throws(WorkspaceError) -> [String] {
        var values: [String] = []
        for element in try listOrOne() { values.append(try element.string()) }
        return values
    }

    func bool() throws(WorkspaceError) -> Bool {
        if case .scalar(let text, true, _) = node {
            switch text {
            case "true", "True", "TRUE", "yes", "on": return true
            case "false", "False", "FALSE", "no", "off": return false
            default: break
            }
        }
        throw expected("true or false")
    }

    func int(in range: ClosedRange<Int> = Int.min...Int.max) throws(WorkspaceError) -> Int {
        guard case .scalar(let text, true, _) = node else { throw expected("a whole number") }
        let digits = text.replacingOccurrences(of: "_", with: "")
        func outOfRange(_ shown: String) -> WorkspaceError {
            error("\(shown) is out of range: expected \(range.lowerBound) to \(range.upperBound)")
        }
        guard let value = Int(digits) else {
            // A whole number too long for 64 bits is still a whole number, just far out of range.
            let unsigned = digits.first == "-" || digits.first == "+" ? digits.dropFirst() : Substring(digits)
            if !unsigned.isEmpty, unsigned.allSatisfy({ ("0"..."9").contains($0) }) { throw outOfRange(digits) }
            throw expected("a whole number")
        }
        guard range.contains(value) else { throw outOfRange("\(value)") }
        return value
    }

    func double(in range: ClosedRange<Double>) throws(WorkspaceError) -> Double {
        guard case .scalar(let text, true, _) = node, let value = Double(text), value.isFinite else { throw expected("a number") }
        guard range.contains(value) else { throw error("\(text) is out of range: expected \(range.lowerBound) to \(range.upperBound)") }
        return value
    }

    /// A duration: a number of seconds, or a number with `ms`, `s`, `m` or `h` (`250ms`, `1.5s`, `2m`).
    func duration() throws(WorkspaceError) -> Duration {
        guard case .scalar(let raw, _, _) = node, !node.isNull else { throw expected("a duration such as 500ms, 2s or 1m") }
        let text = raw.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [(suffix: String, seconds: Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
        var number = text
        var scale = 1.0
        for unit in units where text.hasSuffix(unit.suffix) {
            number = String(text.dropLast(unit.suffix.count)).trimmingCharacters(in: .whitespaces)
            scale = unit.seconds
            break
        }
        // Digits with at most one point, as the command line's seconds: `0x2s` and `2e0s` are
        // refused, where `Double` would read them (found by a new user's trial).
        guard let value = SecondsInput.decimal(number) else { throw expected("a duration such as 500ms, 2s or 1m") }
        let seconds = value * scale
        guard seconds <= 86_400 * 7 else { throw error("\(raw) is longer than a week") }
        let milliseconds = Int64((seconds * 1000).rounded())
        guard milliseconds > 0 || seconds == 0 else { throw error("\(raw) is shorter than a millisecond, the finest a duration here is") }
        return .milliseconds(milliseconds)
    }

    /// A byte count: a number, or a number with `KiB`, `MiB` or `GiB` (also `KB`, `MB`, `GB`, taken as binary).
    func byteCount() throws(WorkspaceError) -> Int {
        guard case .scalar(let raw, _, _) = node, !node.isNull else { throw expected("a size such as 512KiB or 16MiB") }
        let text = raw.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [(suffix: String, shift: Int)] = [("kib", 10), ("mib", 20), ("gib", 30), ("kb", 10), ("mb", 20), ("gb", 30), ("b", 0)]
        for unit in units where text.hasSuffix(unit.suffix) {
            let number = text.dropLast(unit.suffix.count).trimmingCharacters(in: .whitespaces)
            guard let value = Int(number), value >= 0, value <= (Int(1) << (50 - unit.shift)) else { break }
            return value << unit.shift
        }
        guard let value = Int(text), value >= 0 else { throw expected("a size such as 512KiB or 16MiB") }
        return value
    }

    func oneOf<T>(_ choices: [(String, T)]) throws(WorkspaceError) -> T {
        let text = try string()
        if let match = choices.first(where: { $0.0 == text }) { return match.1 }
        let names = choices.map(\.0)
        throw error("expected one of \(names.joined(separator: ", ")), found \(Self.shownValue(text))" + Suggestion.hint(for: text, among: names))
    }

    /// A JSON value from YAML: plain scalars typed as YAML 1.2's core schema types, quoted ones as
    /// strings; a number no JSON value here holds (a whole number past 64 bits, a float past a
    /// double's range) is its text. With `scalarsAsText`, every scalar but null is its text as
    /// written (a query's `1.10`, `007`). With `refusesInexactNumbers` (a body, which would send
    /// such a number as a string), that number is refused instead.
    func json(scalarsAsText: Bool = false, refusesInexactNumbers: Bool = false) throws(WorkspaceError) -> JSONValue {
        switch node {
        case .scalar(let text, let isPlain, _):
            guard isPlain else { return .string(text) }
            if node.isNull { return .null }
            if scalarsAsText { return .string(text) }
            // YAML 1.2's booleans only: `yes`, `no`, `on` and `off` stay strings in a body.
            if ["true", "True", "TRUE"].contains(text) { return .bool(true) }
            if ["false", "False", "FALSE"].contains(text) { return .bool(false) }
            if let value = Int64(text) { return .int(value) }
            let digits = text.first == "-" || text.first == "+" ? text.dropFirst() : Substring(text)
            if refusesInexactNumbers, !digits.isEmpty, digits.allSatisfy({ ("0"..."9").contains($0) }) {
                throw error("\(text) is a whole number past 64 bits, which would not go out as written: quote it to send it as a string")
            }
            if let value = Double(text), text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) {
                if value.isFinite { return .double(value) }
                if refusesInexactNumbers { throw error("\(text) is past the largest number a body holds: quote it to send it as a string") }
            }
            return .string(text)
        case .sequence:
            var elements: [JSONValue] = []
            for element in try list() { elements.append(try element.json(scalarsAsText: scalarsAsText, refusesInexactNumbers: refusesInexactNumbers)) }
            return .array(elements)
        case .mapping(let pairs, _):
            var members: [JSONMember] = []
            for pair in pairs {
                guard case .scalar(let key, _, _) = pair.key else { throw NodeReader(pair.key, keyPath: keyPath).expected("a plain key") }
                members.append(JSONMember(key, try NodeReader(pair.value, keyPath: "\(keyPath).\(key)").json(scalarsAsText: scalarsAsText, refusesInexactNumbers: refusesInexactNumbers)))
            }
            return .object(members)
        }
    }

    /// A mapping of names to string values (headers, query parameters, variables), in order.
    func stringPairs() throws(WorkspaceError) -> [(name: String, value: String)] {
        var map = try mapping()
        var pairs: [(name: String, value: String)] = []
        for key in map.keys {
            let value = map.entry(key)
            pairs.append((key, try value.scalarText()))
        }
        return pairs
    }

    /// A scalar's text, with numbers and booleans as written (a header value of `1` is "1").
    func scalarText() throws(WorkspaceError) -> String {
        guard case .scalar(let text, _, _) = node else { throw expected("a string") }
        return node.isNull ? "" : text
    }
}

/// The keys of one mapping, read by name. What is not read is an unknown key.
struct MappingReader {
    private var entries: [(key: String, keyNode: YAMLNode, value: YAMLNode)]
    let keyPath: String
    let position: SourcePosition
    private var read: Set<String> = []
    /// Each key's position in `entries`, so reading a mapping of many keys stays linear.
    private let index: [String: Int]

    init(entries: [(key: String, keyNode: YAMLNode, value: YAMLNode)], keyPath: String, position: SourcePosition) {
        self.entries = entries
        self.keyPath = keyPath
        self.position = position
        index = Dictionary(entries.enumerated().map { ($0.element.key, $0.offset) }, uniquingKeysWith: { first, _ in first })
    }

    /// Every key, in the order written.
    var keys: [String] { entries.map(\.key) }

    /// The value of `key`, marking it read; nil when absent or null.
    mutating func take(_ key: String) -> NodeReader? {
        read.insert(key)
        guard let position = index[key], !entries[position].value.isNull else { return nil }
        let entry = entries[position]
        return NodeReader(entry.value, keyPath: keyPath.isEmpty ? key : "\(keyPath).\(key)")
    }

    /// The value of a key from `keys`, null or not, marking it read.
    mutating func entry(_ key: String) -> NodeReader {
        read.insert(key)
        let entry = entries[index[key]!]
        return NodeReader(entry.value, keyPath: keyPath.isEmpty ? key : "\(keyPath).\(key)")
    }

    /// The value of `key`, which must be present.
    mutating func require(_ key: String, _ what: String) throws(WorkspaceError) -> NodeReader {
        guard let value = take(key) else {
            // A key written close to it (`urll:`) is most likely it, mistyped: named as unknown
            // keys are, where it was written.
            if let typo = entries.first(where: { $0.key != key && !read.contains($0.key) && Suggestion.closest(to: $0.key, among: [key]) != nil }) {
                throw WorkspaceError(.unknownKey, at: typo.keyNode.position, keyPath: keyPath,
                                     "unknown key \"\(typo.key)\" (did you mean \"\(key)\"?): \(key) is missing")
            }
            throw WorkspaceError(.invalid, at: position, keyPath: keyPath, "\(key) is missing: expected \(what)")
        }
        return value
    }

    /// Where `key` was written, for messages about its value as a whole.
    func positionOf(_ key: String) -> SourcePosition {
        index[key].map { entries[$0].keyNode.position } ?? position
    }

    /// An unknown key as an error names it: quoted when it reads as a name (a typo of a known
    /// key), else only its length: a file included by mistake (`/etc/shadow`, a `.env`) has
    /// lines that read as keys, and they are not for a CI job's log.
    static func shownKey(_ key: String) -> String {
        let isName = key.count <= 40 && key.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || "_-.$ ".unicodeScalars.contains($0) }
        return isName ? "\"\(key)\"" : "of \(key.count) characters that reads as no workspace key"
    }

    /// Fails on the first key that was never read, suggesting the closest known one.
    func finish(known: [String]) throws(WorkspaceError) {
        for entry in entries where !read.contains(entry.key) {
            throw WorkspaceError(.unknownKey, at: entry.keyNode.position, keyPath: keyPath,
                                 "unknown key \(Self.shownKey(entry.key))" + Suggestion.hint(for: entry.key, among: known))
        }
    }

    /// `finish(known:)` with the keys that were asked for as the known ones.
    func finish() throws(WorkspaceError) {
        try finish(known: Array(read))
    }
}

/// What reading a workspace value needs besides the value: the templates to expand (none while
/// a workspace is only checked) and the directory relative paths start from.
struct ReadContext: Sendable {
    var template: Template?
    /// The directory relative paths are joined to; nil keeps them as written (an editor that
    /// saves the entry back).
    var directory: String?
    /// The config's default `Content-Type` header, which goes on the wire when a request has none.
    var defaultContentType: String?

    /// `path` as written, or joined to the workspace's directory when relative.
    func path(_ path: String) -> String {
        directory.map { LocalFile.path(path, relativeTo: $0) } ?? path
    }

    /// This context for a field a server's answer must not choose (a file to read or write, a
    /// method, a content type, TLS settings): a chain's captured name there is refused, before
    /// the chain has it and after.
    var refusingCaptures: ReadContext {
        var context = self
        context.template?.refusesCaptured = true
        return context
    }

    /// This context with a chain's captured names left as written, as before the chain had
    /// them: what decides the shape of a URL (a path stays a path whatever a server's value holds).
    var capturesAsWritten: ReadContext {
        var context = self
        if let captured = context.template?.captured, !captured.isEmpty {
            context.template?.deferred.formUnion(captured)
            context.template?.captured = []
        }
        return context
    }
}

extension NodeReader {
    /// A string with its templates expanded (when the context has them).
    func text(_ context: ReadContext) throws(WorkspaceError) -> String {
        try expand(try scalarText(), context)
    }

    /// A JSON body's text with its templates filled in by where they stand (`JSONTemplateFill`):
    /// a string's whole value escaped as JSON writes it, elsewhere as the template stands.
    func jsonText(_ context: ReadContext) throws(WorkspaceError) -> String {
        var outside = context
        outside.template?.fillsOutsideJSONString = true
        return try JSONTemplateFill.fill(try scalarText(), string: { (text: String) throws(WorkspaceError) -> String in try expand(text, context) },
                                         elsewhere: { (text: String) throws(WorkspaceError) -> String in try expand(text, outside) },
                                         repeatedName: { error(JSONTemplateFill.repeatedNameProblem($0)) })
    }

    /// A file path: templates expanded, then made absolute from the workspace's directory.
    func filePath(_ context: ReadContext) throws(WorkspaceError) -> String {
        context.path(try expand(try string(), context.refusingCaptures))
    }

    func expand(_ text: String, _ context: ReadContext) throws(WorkspaceError) -> String {
        guard let template = context.template else {
            // Checking only: the braces must still pair up.
            do { _ = try Template().expandingVariablesOnly(text) } catch {
                throw self.error(error.description)
            }
            return text
        }
        do {
            return try template.expand(text)
        } catch {
            switch error {
            case .capturedOutsideJSONString, .capturedWhereRefused: throw self.error(error.description, kind: .invalid)
            default: throw self.error(error.description, kind: .undefined)
            }
        }
    }

    /// Name-value pairs with templated values.
    func textPairs(_ context: ReadContext) throws(WorkspaceError) -> [(name: String, value: String)] {
        var pairs: [(name: String, value: String)] = []
        for pair in try stringPairs() { pairs.append((pair.name, try expand(pair.value, context))) }
        return pairs
    }

    /// A JSON value with templates expanded in every string, members' names included; two
    /// members of one object that come to the same name are refused (JSON parsers disagree on
    /// which of the two counts).
    func templatedJSON(_ context: ReadContext, scalarsAsText: Bool = false, refusesInexactNumbers: Bool = false) throws(WorkspaceError) -> JSONValue {
        let filled = try json(scalarsAsText: scalarsAsText, refusesInexactNumbers: refusesInexactNumbers).mappingStrings { (text: String) throws(WorkspaceError) -> String in try expand(text, context) }
        if let name = filled.repeatedMemberName { throw error(JSONTemplateFill.repeatedNameProblem(name)) }
        return filled
    }
}
