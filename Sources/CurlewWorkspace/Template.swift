import CurlewAgent
import Foundation

/// Expands `{{name}}` in workspace strings: environment and workspace variables, `--var`
/// overrides, `{{$env.NAME}}` from the process environment (only what is named), and built-ins.
/// A chain's captured values (`captured`) are filled in here too, when the step that uses them
/// starts (`WorkspaceSession.request(named:captured:)`); before, they are left as written
/// (`deferred`), for showing the request.
public struct Template: Sendable {
    /// Why a template could not be expanded.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        case undefined(String, suggestion: String?)
        case unsetEnvironmentVariable(String)
        case badBuiltin(String)
        /// `$randomInt` with arguments that are not two whole numbers, the first at most the second.
        case badRandomBounds(String)
        case unclosed
        case tooDeep(String)
        case tooLong
        /// A captured value outside a JSON body's strings that is not one JSON value.
        case capturedOutsideJSONString(String)
        /// A captured name in a field a server's answer must not choose (a file, a method).
        case capturedWhereRefused(String)

        public var description: String {
            switch self {
            case .undefined(let name, let suggestion):
                "variable {{\(ClippedText.plain(name, limit: 80))}} is not defined" + (suggestion.map { " (did you mean {{\($0)}}?)" } ?? "")
            case .unsetEnvironmentVariable(let name):
                "{{$env.\(ClippedText.plain(name, limit: 80))}}: the environment variable \(ClippedText.plain(name, limit: 80)) is not set"
            case .badBuiltin(let text): "{{\(ClippedText.plain(text, limit: 80))}}: unknown built-in; the built-ins are $uuid, $timestamp, $isoTimestamp, $randomInt [min max], $base64 TEXT and $env.NAME"
            case .badRandomBounds(let text): "{{\(ClippedText.plain(text, limit: 80))}}: $randomInt takes two whole numbers, the smaller first ($randomInt 1 100), or none"
            case .unclosed: "a {{ without its closing }}"
            case .tooDeep(let name): "variable {{\(ClippedText.plain(name, limit: 80))}} refers to itself (or nests more than 8 deep)"
            case .tooLong: "the text expands to more than \(Template.maxExpandedLength >> 20) MiB"
            case .capturedOutsideJSONString(let message): message
            case .capturedWhereRefused(let name):
                "{{\(ClippedText.plain(name, limit: 80))}} is a value a chain captures from a server's answer, which does not choose a file, a method, a content type, a base URL or TLS settings"
            }
        }
    }

    /// Variables by name; their values may hold templates too.
    public var variables: [String: String]
    /// Names left as `{{name}}` (a chain's captures, shown before the chain has them).
    public var deferred: Set<String>
    /// Names whose values a chain took from a server's answer: used as they are, never expanded
    /// again, and, outside a JSON body's strings, only when the value is one JSON value (a
    /// hostile `1,"admin":true` adds no member to the body).
    public var captured: Set<String> = []
    /// The text is a JSON body's, outside its strings (`NodeReader.jsonText`).
    var fillsOutsideJSONString = false
    /// The text is a field a server's answer must not choose: a captured name (deferred or
    /// filled) there is refused.
    var refusesCaptured = false
    /// Names whose values are used as they are, never expanded again (secrets and `--var`
    /// values, which may hold `{{` of their own).
    public var literal: Set<String> = []
    /// The process environment, read only for `{{$env.NAME}}`.
    public var environment: @Sendable (String) -> String?
    public var now: @Sendable () -> Date
    public var random: @Sendable (ClosedRange<Int>) -> Int
    /// Unknown names expand to nothing instead of failing (checking a file without an environment).
    private var acceptsAnyName = false

    public init(variables: [String: String] = [:], deferred: Set<String> = [],
                environment: @escaping @Sendable (String) -> String? = { ProcessInfo.processInfo.environment[$0] },
                now: @escaping @Sendable () -> Date = Date.init,
                random: @escaping @Sendable (ClosedRange<Int>) -> Int = { Int.random(in: $0) }) {
        self.variables = variables
        self.deferred = deferred
        self.environment = environment
        self.now = now
        self.random = random
    }

    /// `text` with every template expanded.
    public func expand(_ text: String) throws(Failure) -> String {
        guard text.contains("{{") else { return text }
        var output = ""
        try expand(text, depth: 0, into: &output)
        return output
    }

    /// `text` with every template expanded and each expression's value passed through
    /// `filledValue` (escaping it for where it stands); the literal text stays as written.
    public func expand(_ text: String, filledValue: (String) -> String) throws(Failure) -> String {
        guard text.contains("{{") else { return text }
        var output = ""
        let unclosed = try Self.walk(Substring(text), literal: { (part: Substring) throws(Failure) in output += part },
                                     expression: { (inner: Substring) throws(Failure) in
            var value = ""
            try self.value(of: String(inner), depth: 0, into: &value)
            output += filledValue(value)
            guard output.utf8.count <= Self.maxExpandedLength else { throw .tooLong }
        })
        guard unclosed == nil else { throw .unclosed }
        return output
    }

    /// `text` read as `expand` reads it with each `{{…}}` expression standing as `standIn`:
    /// what a check of the text's own syntax (a regular expression's) reads before values are
    /// known; nil when a `{{` is never closed.
    static func replacingExpressions(in text: String, with standIn: String) -> String? {
        guard text.contains("{{") else { return text }
        var output = ""
        let unclosed = walk(Substring(text), literal: { (part: Substring) throws(Never) in output += part },
                            expression: { (_: Substring) throws(Never) in output += standIn })
        return unclosed == nil ? output : nil
    }

    /// Whether `text` is one `{{…}}` expression and nothing else.
    public static func isOneExpression(_ text: String) -> Bool {
        guard text.hasPrefix("{{"), text.hasSuffix("}}") else { return false }
        return templatedRanges(in: text) == [0..<text.utf8.count]
    }

    /// Checks that every `{{` in `text` is closed and every built-in is well-formed, leaving
    /// variables (which need an environment) alone.
    func expandingVariablesOnly(_ text: String) throws(Failure) -> String {
        var checker = self
        checker.environment = { _ in "" }
        checker.acceptsAnyName = true
        return try checker.expand(text)
    }

    /// Every `{{name}}` in `text` that names a variable, in order, without repeats: those inside
    /// a built-in's argument too (`{{$base64 {{user}}:{{password}}}}`), not an escaped `\{{name}}`.
    /// Built-ins are read as deep as `expand` reads them (`maxDepth`), no deeper: a hostile text
    /// of built-ins nested by the thousand costs a few passes, not one per level.
    public static func names(in text: String) -> [String] {
        var names: [String] = []
        var seen = Set<String>()
        func collect(_ text: Substring, depth: Int) {
            _ = walk(text, literal: { (_: Substring) throws(Never) in }, expression: { (inner: Substring) throws(Never) in
                let name = inner.trimmingCharacters(in: .whitespaces)
                if name.hasPrefix("$") {
                    if depth + 1 < maxDepth, let space = name.firstIndex(of: " ") { collect(name[space...], depth: depth + 1) }
                } else if !name.isEmpty, seen.insert(name).inserted {
                    names.append(name)
                }
            })
        }
        collect(Substring(text), depth: 0)
        return names
    }

    /// How deep `expand` follows variables and built-ins' arguments before it refuses.
    static let maxDepth = 8

    /// The longest text a template may expand to: variables that repeat each other can
    /// otherwise describe an exponentially long string.
    public static let maxExpandedLength = 16 << 20

    /// `text` without its `{{…}}` expressions (nested ones included), read as `expand` reads
    /// it: what stays as written whatever the variables hold. A `\{{` is its `{{`; an unclosed
    /// `{{` and what follows it stay.
    public static func literalText(in text: String) -> String {
        guard text.contains("{{") else { return text }
        var output = ""
        let unclosed = walk(Substring(text), literal: { (part: Substring) throws(Never) in output += part },
                            expression: { (_: Substring) throws(Never) in })
        return output + (unclosed ?? "")
    }

    /// The text `text` stands for when it holds no `{{…}}` expression and no unclosed `{{` (a
    /// `\{{` read as its `{{`), as a secret keeps it; nil when it holds either.
    public static func textWithoutTemplates(in text: String) -> String? {
        guard text.contains("{{") else { return text }
        var output = ""
        var hasExpression = false
        let unclosed = walk(Substring(text), literal: { (part: Substring) throws(Never) in output += part },
                            expression: { (_: Substring) throws(Never) in hasExpression = true })
        return hasExpression || unclosed != nil ? nil : output
    }

    /// Appends `text` expanded to `output`.
    private func expand(_ text: String, depth: Int, into output: inout String) throws(Failure) {
        guard text.contains("{{") else {
            output += text
            return
        }
        let unclosed = try Self.walk(Substring(text), literal: { (part: Substring) throws(Failure) in output += part },
                                     expression: { (inner: Substring) throws(Failure) in
            try value(of: String(inner), depth: depth, into: &output)
            guard output.utf8.count <= Self.maxExpandedLength else { throw .tooLong }
        })
        guard unclosed == nil else { throw .unclosed }
    }

    /// `text` with `transform` applied to its literal runs only: each `{{…}}` expression (nested
    /// ones whole), each escaped `\{{` and a `{{` never closed, with what follows it, stay as
    /// written.
    static func mappingLiteralRuns(in text: String, _ transform: (Substring) -> String) -> String {
        var output = ""
        let unclosed = walk(Substring(text), literal: { output += transform($0) }, expression: { output += "{{" + $0 + "}}" },
                            escapedOpen: { output += $0 })
        return output + (unclosed ?? "")
    }

    /// `text` with each space, tab and control character inside its `{{…}}` expressions (and
    /// after a `{{` never closed) written `_`: a check of what a URL can hold then finds only
    /// those of its literal text, at their places, and quotes the rest as typed. What an
    /// expression fills in is checked when it is.
    public static func literalCheckText(of text: String) -> String {
        let ranges = templatedRanges(in: text)
        guard !ranges.isEmpty else { return text }
        var bytes = Array(text.utf8)
        for range in ranges {
            for index in range where bytes[index] <= 0x20 || bytes[index] == 0x7F { bytes[index] = UInt8(ascii: "_") }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Where `text`'s `{{…}}` expressions stand (with their braces, nested ones whole), and a
    /// `{{` never closed with what follows it, as UTF-8 offsets: what is not literal text. An
    /// escaped `\{{` is literal.
    static func templatedRanges(in text: String) -> [Range<Int>] {
        let utf8 = text.utf8
        func offset(_ index: Substring.Index) -> Int { utf8.distance(from: utf8.startIndex, to: index) }
        var ranges: [Range<Int>] = []
        let unclosed = walk(Substring(text), literal: { (_: Substring) throws(Never) in },
                            expression: { (inner: Substring) throws(Never) in ranges.append((offset(inner.startIndex) - 2)..<(offset(inner.endIndex) + 2)) },
                            escapedOpen: { (_: Substring) throws(Never) in })
        if let unclosed { ranges.append(offset(unclosed.startIndex)..<utf8.count) }
        return ranges
    }

    /// Reads `text` in order: its literal runs (a `\{{` is a literal `{{`, for a body that holds
    /// another template language's braces) and the inside of each `{{…}}` expression, nested
    /// ones included. Returns the text from a `{{` that is never closed, nil when all are.
    /// `escapedOpen` gets each `\{{` as written; without it, `literal` gets the `{{` it stands for.
    private static func walk<E: Error>(_ text: Substring, literal: (Substring) throws(E) -> Void,
                                       expression: (Substring) throws(E) -> Void,
                                       escapedOpen: ((Substring) throws(E) -> Void)? = nil) throws(E) -> Substring? {
        var rest = text
        while let open = rest.firstRange(ofASCII: "{{") {
            if TemplateEscape.isEscaped(rest, openingAt: open.lowerBound) {
                let backslash = rest.index(before: open.lowerBound)
                try literal(rest[..<backslash])
                if let escapedOpen { try escapedOpen(rest[backslash..<open.upperBound]) } else { try literal("{{") }
                rest = rest[open.upperBound...]
                continue
            }
            try literal(rest[..<open.lowerBound])
            guard let close = matchingClose(in: rest[open.upperBound...]) else { return rest[open.lowerBound...] }
            try expression(rest[open.upperBound..<close.lowerBound])
            rest = rest[close.upperBound...]
        }
        try literal(rest)
        return nil
    }

    /// The `}}` that closes a `{{`, skipping nested pairs (`{{$base64 {{user}}:{{password}}}}`).
    /// Read on the bytes, as the `{{` was found: a brace is a brace whatever mark follows it.
    private static func matchingClose(in text: Substring) -> Range<Substring.Index>? {
        let bytes = text.utf8
        var depth = 0
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let next = bytes.index(after: index)
            guard next < bytes.endIndex else { return nil }
            switch (bytes[index], bytes[next]) {
            case (UInt8(ascii: "{"), UInt8(ascii: "{")):
                // An escaped `\{{` inside an expression is text, as `walk` reads it outside one.
                if !TemplateEscape.isEscaped(text, openingAt: index) { depth += 1 }
                index = bytes.index(after: next)
            case (UInt8(ascii: "}"), UInt8(ascii: "}")):
                if depth == 0 { return index..<bytes.index(after: next) }
                depth -= 1
                index = bytes.index(after: next)
            default:
                index = next
            }
        }
        return nil
    }

    private func value(of inner: String, depth: Int, into output: inout String) throws(Failure) {
        let name = inner.trimmingCharacters(in: .whitespaces)
        guard depth < Self.maxDepth else { throw .tooDeep(name) }
        if name.hasPrefix("$") {
            output += try builtin(name, depth: depth)
            return
        }
        if refusesCaptured, deferred.contains(name) || captured.contains(name) { throw .capturedWhereRefused(name) }
        if deferred.contains(name) {
            output += "{{\(name)}}"
            return
        }
        guard let value = variables[name] else {
            if acceptsAnyName { return }
            throw .undefined(name, suggestion: Suggestion.closest(to: name, among: variables.keys.sorted() + deferred.sorted()))
        }
        if captured.contains(name), fillsOutsideJSONString {
            do {
                output += try ChainVariables.standingOutsideJSONString(name: name, value: value)
            } catch {
                throw .capturedOutsideJSONString(error.message)
            }
        } else if literal.contains(name) || captured.contains(name) {
            output += value
        } else {
            try expand(value, depth: depth + 1, into: &output)
        }
    }

    private func builtin(_ text: String, depth: Int) throws(Failure) -> String {
        let (head, argument) = text.firstIndex(of: " ").map {
            (String(text[..<$0]), String(text[text.index(after: $0)...]).trimmingCharacters(in: .whitespaces))
        } ?? (text, "")
        if head.hasPrefix("$env."), argument.isEmpty {
            let name = String(head.dropFirst(5))
            guard !name.isEmpty else { throw .badBuiltin(text) }
            guard let value = environment(name) else { throw .unsetEnvironmentVariable(name) }
            return value
        }
        switch head {
        case "$uuid" where argument.isEmpty:
            return UUID().uuidString.lowercased()
        case "$timestamp" where argument.isEmpty:
            return String(Int(now().timeIntervalSince1970))
        case "$isoTimestamp" where argument.isEmpty:
            return now().formatted(.iso8601)
        case "$randomInt":
            let bounds = argument.split(separator: " ").compactMap { Int($0) }
            if argument.isEmpty { return String(random(0...999)) }
            guard bounds.count == 2, bounds[0] <= bounds[1] else { throw .badRandomBounds(text) }
            return String(random(bounds[0]...bounds[1]))
        case "$base64" where !argument.isEmpty:
            // The argument is text to encode, wherever the built-in stands.
            var encoding = self
            encoding.fillsOutsideJSONString = false
            var encoded = ""
            try encoding.expand(argument, depth: depth + 1, into: &encoded)
            return Data(encoded.utf8).base64EncodedString()
        default:
            throw .badBuiltin(text)
        }
    }
}
