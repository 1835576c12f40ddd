import CurlewAgent
import Foundation

/// Where and why a filter expression could not be read. `position` is a 0-based character offset.
public struct FilterSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public var position: Int
    public var message: String

    public var description: String { "at \(position + 1): \(message)" }

    /// The expression with a caret under the offending position, for a one-line UI.
    public func pointer(in expression: String) -> String {
        expression + "\n" + String(repeating: " ", count: min(position, expression.count)) + "^ " + message
    }
}

/// A filter over debug messages in the spirit of mitmproxy's:
///
/// `~m METHOD`, `~u REGEX` (URL), `~c 404` or `~c 4xx` (status), `~h REGEX` (request or response
/// header lines), `~b REGEX` (request or response body), `~d HOST` (host contains), `~e` (failed),
/// `~dur >500ms` (`<`, `<=`, `>`, `>=`, `=`; `us`, `ms`, `s`), `~size >1MB` (response body;
/// `B`, `KB`, `MB`, `GB`, powers of 1024), combined with `!`, `&`, `|` and parentheses. Adjacent
/// terms are joined with `&`; a bare word matches URLs containing it. Matching ignores case.
public indirect enum MessageFilter {
    case method(String)
    case url(TextPattern)
    case status(ClosedRange<Int>)
    case header(TextPattern)
    case body(TextPattern)
    case domain(String)
    case failed
    case duration(Comparison, microseconds: Int64)
    case size(Comparison, bytes: Int64)
    case urlContains(String)
    case not(MessageFilter)
    case and(MessageFilter, MessageFilter)
    case or(MessageFilter, MessageFilter)

    public enum Comparison: String, Sendable {
        case less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">=", equal = "="

        func holds(_ value: Int64, _ limit: Int64) -> Bool {
            switch self {
            case .less: value < limit
            case .lessOrEqual: value <= limit
            case .greater: value > limit
            case .greaterOrEqual: value >= limit
            case .equal: value == limit
            }
        }
    }

    /// Parses an expression; an empty one is an error too (callers treat "" as "no filter").
    public static func parse(_ expression: String) throws(FilterSyntaxError) -> MessageFilter {
        var parser = FilterParser(tokens: try FilterLexer.tokens(of: expression), length: expression.count)
        return try parser.parseExpression()
    }

    /// True when every term can be decided from an index summary (no headers or bodies), so a
    /// log index can filter without decoding entries.
    public var worksOnSummaries: Bool {
        switch self {
        case .header, .body: false
        case .not(let inner): inner.worksOnSummaries
        case .and(let left, let right), .or(let left, let right): left.worksOnSummaries && right.worksOnSummaries
        default: true
        }
    }

    /// What to tell the user when one of the filter's patterns gave up on a text that made it
    /// backtrack too much (it then matched nothing more); nil when none did.
    public var gaveUpMessage: String? { patternThatGaveUp?.gaveUpMessage }

    /// The first of the filter's patterns that gave up, if any.
    private var patternThatGaveUp: TextPattern? {
        switch self {
        case .url(let pattern), .header(let pattern), .body(let pattern): pattern.gaveUp ? pattern : nil
        case .not(let inner): inner.patternThatGaveUp
        case .and(let left, let right), .or(let left, let right): left.patternThatGaveUp ?? right.patternThatGaveUp
        default: nil
        }
    }

    /// The host of a URL as written: after the scheme, past any `user:password@` (which logs keep
    /// as `user:[REDACTED]@`, not a valid URL for a strict parser), before the port or path.
    static func host(of url: String) -> String? {
        guard let schemeEnd = url.range(of: "://") else { return nil }
        let afterScheme = url[schemeEnd.upperBound...]
        var authority = afterScheme.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            return String(authority[authority.index(after: authority.startIndex)..<close])
        }
        return String(authority.prefix { $0 != ":" })
    }

    /// Decides the filter from a summary; only meaningful when `worksOnSummaries`.
    public func matches(_ entry: SessionRecordSummary) -> Bool {
        switch self {
        case .method(let method): return entry.method.caseInsensitiveCompare(method) == .orderedSame
        case .url(let pattern): return pattern.matches(entry.url)
        case .urlContains(let text): return entry.url.localizedCaseInsensitiveContains(text)
        case .status(let range): return entry.statusCode > 0 && range.contains(entry.statusCode)
        case .domain(let host): return Self.host(of: entry.url)?.localizedCaseInsensitiveContains(host) ?? false
        case .failed: return entry.failed
        case .duration(let comparison, let limit): return entry.elapsedMicros.map { comparison.holds($0, limit) } ?? false
        case .size(let comparison, let limit): return entry.responseSize.map { comparison.holds($0, limit) } ?? false
        case .header, .body: return false
        // A term whose pattern gave up decides nothing: its negation must not match everything.
        case .not(let inner): return !inner.matches(entry) && inner.patternThatGaveUp == nil
        case .and(let left, let right): return left.matches(entry) && right.matches(entry)
        case .or(let left, let right): return left.matches(entry) || right.matches(entry)
        }
    }

    /// Decides the filter for a whole message: headers and bodies from the message, everything
    /// else from its summary, so the log index and a decoded log always agree.
    public func matches(_ message: DebugMessage) -> Bool {
        switch self {
        case .header(let pattern):
            let request = message.original?.headers ?? []
            let response = message.response?.headers ?? []
            return (request + response).contains { pattern.matches("\($0.name): \($0.value)") }
        case .body(let pattern):
            let bodies = [message.sent?.body ?? message.original?.body, message.response?.body]
            return bodies.contains { $0?.text.map(pattern.matches) ?? false }
        case .not(let inner):
            return !inner.matches(message) && inner.patternThatGaveUp == nil
        case .and(let left, let right):
            return left.matches(message) && right.matches(message)
        case .or(let left, let right):
            return left.matches(message) || right.matches(message)
        default:
            return matches(SessionRecordSummary(message))
        }
    }
}

struct FilterToken: Equatable {
    enum Kind: Equatable {
        case filter(String)  // "~m"
        case word(String)
        case not, and, or, open, close
    }

    let kind: Kind
    let position: Int
}

enum FilterLexer {
    static func tokens(of expression: String) throws(FilterSyntaxError) -> [FilterToken] {
        let characters = Array(expression)
        var tokens: [FilterToken] = []
        var index = 0
        while index < characters.count {
            let character = characters[index]
            switch character {
            // Any white space separates terms: a filter pasted over two lines reads as one.
            case _ where character.isWhitespace:
                index += 1
            case "!": tokens.append(FilterToken(kind: .not, position: index)); index += 1
            case "&": tokens.append(FilterToken(kind: .and, position: index)); index += 1
            case "|": tokens.append(FilterToken(kind: .or, position: index)); index += 1
            case "(": tokens.append(FilterToken(kind: .open, position: index)); index += 1
            case ")": tokens.append(FilterToken(kind: .close, position: index)); index += 1
            case "~":
                let start = index
                index += 1
                while index < characters.count, characters[index].isLetter { index += 1 }
                tokens.append(FilterToken(kind: .filter(String(characters[start..<index])), position: start))
            case "\"", "'":
                let start = index
                index += 1
                var text = ""
                // Only the quote itself is escaped (`\"`): every other backslash is kept, so a
                // quoted regex keeps its `\d`, `\.` and `\\` (a pair kept whole, so `"a\\"` ends
                // at its quote).
                while index < characters.count, characters[index] != character {
                    if characters[index] == "\\", index + 1 < characters.count {
                        if characters[index + 1] == character {
                            index += 1
                        } else if characters[index + 1] == "\\" {
                            text.append("\\")
                            index += 1
                        }
                    }
                    text.append(characters[index])
                    index += 1
                }
                guard index < characters.count else { throw FilterSyntaxError(position: start, message: "unclosed quote") }
                index += 1
                tokens.append(FilterToken(kind: .word(text), position: start))
            default:
                let start = index
                var text = ""
                // `|` and `&` always separate terms: a regex alternation needs quotes (`~u "a|b"`).
                while index < characters.count, !characters[index].isWhitespace, !"()&|".contains(characters[index]) {
                    text.append(characters[index])
                    index += 1
                }
                tokens.append(FilterToken(kind: .word(text), position: start))
            }
        }
        return tokens
    }
}

struct FilterParser {
    let tokens: [FilterToken]
    let length: Int
    var index = 0
    /// How many `!` and `(` enclose the filter being read.
    private var depth = 0

    /// The most tokens and the deepest nesting a filter may have: far beyond what anyone types,
    /// and short of what parsing, matching and freeing a filter (each recursive) could not take
    /// (a pasted run of 20,000 `!` overflowed the stack).
    static let maximumTokens = 2_000
    static let maximumDepth = 100

    init(tokens: [FilterToken], length: Int) {
        self.tokens = tokens
        self.length = length
    }

    private var current: FilterToken? { index < tokens.count ? tokens[index] : nil }
    private var position: Int { current?.position ?? length }

    mutating func parseExpression() throws(FilterSyntaxError) -> MessageFilter {
        guard !tokens.isEmpty else { throw FilterSyntaxError(position: 0, message: "empty filter") }
        guard tokens.count <= Self.maximumTokens else {
            throw FilterSyntaxError(position: tokens[Self.maximumTokens].position, message: "a filter has at most \(Self.maximumTokens) terms and operators")
        }
        let filter = try parseOr()
        if let token = current {
            throw FilterSyntaxError(position: token.position, message: token.kind == .close ? "unmatched )" : "unexpected \(describe(token))")
        }
        return filter
    }

    private mutating func parseOr() throws(FilterSyntaxError) -> MessageFilter {
        var left = try parseAnd()
        while current?.kind == .or {
            index += 1
            left = .or(left, try parseAnd())
        }
        return left
    }

    private mutating func parseAnd() throws(FilterSyntaxError) -> MessageFilter {
        var left = try parseUnary()
        while let token = current, token.kind != .or, token.kind != .close {
            if token.kind == .and { index += 1 }
            left = .and(left, try parseUnary())
        }
        return left
    }

    private mutating func parseUnary() throws(FilterSyntaxError) -> MessageFilter {
        guard let token = current else { throw FilterSyntaxError(position: position, message: "expected a filter") }
        switch token.kind {
        case .not, .open:
            guard depth < Self.maximumDepth else {
                throw FilterSyntaxError(position: token.position, message: "filters nest at most \(Self.maximumDepth) deep (! and parentheses)")
            }
            index += 1
            depth += 1
            defer { depth -= 1 }
            if token.kind == .not { return .not(try parseUnary()) }
            let inner = try parseOr()
            guard current?.kind == .close else { throw FilterSyntaxError(position: token.position, message: "unclosed (") }
            index += 1
            return inner
        case .filter(let name):
            index += 1
            return try parseFilter(name, at: token.position)
        case .word(let text):
            index += 1
            return .urlContains(text)
        case .and, .or, .close:
            throw FilterSyntaxError(position: token.position, message: "expected a filter before \(describe(token))")
        }
    }

    private mutating func argument(for name: String, at position: Int) throws(FilterSyntaxError) -> (String, Int) {
        guard let token = current, case .word(let text) = token.kind else {
            throw FilterSyntaxError(position: self.position, message: "\(name) needs an argument")
        }
        index += 1
        return (text, token.position)
    }

    private mutating func parseFilter(_ name: String, at position: Int) throws(FilterSyntaxError) -> MessageFilter {
        switch name {
        case "~e": return .failed
        case "~m":
            return .method(try argument(for: name, at: position).0)
        case "~d":
            return .domain(try argument(for: name, at: position).0)
        case "~u", "~h", "~b":
            let (text, at) = try argument(for: name, at: position)
            let pattern: TextPattern
            do {
                pattern = try TextPattern(text, ignoringCase: true)
            } catch {
                throw FilterSyntaxError(position: at, message: "invalid regular expression \(text.debugDescription)")
            }
            return name == "~u" ? .url(pattern) : name == "~h" ? .header(pattern) : .body(pattern)
        case "~c":
            let (text, at) = try argument(for: name, at: position)
            return .status(try Self.statusRange(text, at: at))
        case "~dur":
            let (text, at) = try argument(for: name, at: position)
            let (comparison, number, unit) = try Self.comparison(text, at: at)
            let scale: Double = switch unit {
            case "", "ms": 1000
            case "us", "µs": 1
            case "s": 1_000_000
            default: throw FilterSyntaxError(position: at, message: "unknown duration unit \(unit.debugDescription) (use us, ms or s)")
            }
            guard let microseconds = Int64(exactly: (number * scale).rounded()) else {
                throw FilterSyntaxError(position: at, message: "~dur \(text) is out of range")
            }
            return .duration(comparison, microseconds: microseconds)
        case "~size":
            let (text, at) = try argument(for: name, at: position)
            let (comparison, number, unit) = try Self.comparison(text, at: at)
            let scale: Double = switch unit.uppercased() {
            case "", "B": 1
            case "KB", "K", "KIB": 1024
            case "MB", "M", "MIB": 1024 * 1024
            case "GB", "G", "GIB": 1024 * 1024 * 1024
            default: throw FilterSyntaxError(position: at, message: "unknown size unit \(unit.debugDescription) (use B, KB, MB or GB)")
            }
            guard let bytes = Int64(exactly: (number * scale).rounded()) else {
                throw FilterSyntaxError(position: at, message: "~size \(text) is out of range")
            }
            return .size(comparison, bytes: bytes)
        default:
            throw FilterSyntaxError(position: position, message: "unknown filter \(name) (known: ~m ~u ~c ~h ~b ~d ~e ~dur ~size)")
        }
    }

    private static func statusRange(_ text: String, at position: Int) throws(FilterSyntaxError) -> ClosedRange<Int> {
        if let code = Int(text), (100...599).contains(code) { return code...code }
        let lowered = text.lowercased()
        if lowered.count == 3, lowered.hasSuffix("xx"), let digit = lowered.first?.wholeNumberValue, (1...5).contains(digit) {
            return (digit * 100)...(digit * 100 + 99)
        }
        throw FilterSyntaxError(position: position, message: "status must be a code like 404 or a class like 4xx")
    }

    private static func comparison(_ text: String, at position: Int) throws(FilterSyntaxError) -> (MessageFilter.Comparison, Double, String) {
        var rest = Substring(text)
        let comparison: MessageFilter.Comparison
        if rest.hasPrefix(">=") { comparison = .greaterOrEqual; rest = rest.dropFirst(2) }
        else if rest.hasPrefix("<=") { comparison = .lessOrEqual; rest = rest.dropFirst(2) }
        else if rest.hasPrefix(">") { comparison = .greater; rest = rest.dropFirst() }
        else if rest.hasPrefix("<") { comparison = .less; rest = rest.dropFirst() }
        else if rest.hasPrefix("=") { comparison = .equal; rest = rest.dropFirst() }
        else { comparison = .equal }
        let numberEnd = rest.firstIndex { !($0.isNumber || $0 == ".") } ?? rest.endIndex
        guard let number = Double(rest[..<numberEnd]) else {
            throw FilterSyntaxError(position: position + (text.count - rest.count), message: "expected a number in \(text.debugDescription)")
        }
        return (comparison, number, String(rest[numberEnd...]))
    }

    private func describe(_ token: FilterToken) -> String {
        switch token.kind {
        case .filter(let name): name
        case .word(let text): text.debugDescription
        case .not: "!"
        case .and: "&"
        case .or: "|"
        case .open: "("
        case .close: ")"
        }
    }
}
