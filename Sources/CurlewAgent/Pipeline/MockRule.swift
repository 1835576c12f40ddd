import Foundation

/// A canned answer that never touches the network.
public struct MockFixture: Sendable, Equatable {
    public var status: Int
    public var headers: [HeaderField]
    public var body: Data
    /// Read when the fixture answers; a file that cannot be read fails the request with `mockFailed`.
    public var bodyFile: String?
    public var delay: Duration

    public init(status: Int = 200, headers: [HeaderField] = [], body: Data = Data(), bodyFile: String? = nil, delay: Duration = .zero) {
        self.status = status
        self.headers = headers
        self.body = body
        self.bodyFile = bodyFile
        self.delay = delay
    }

    /// A JSON fixture from text.
    public static func json(_ text: String, status: Int = 200, delay: Duration = .zero) -> MockFixture {
        MockFixture(status: status, headers: [HeaderField(name: "Content-Type", value: "application/json")], body: Data(text.utf8), delay: delay)
    }
}

/// What a matching mock rule does.
public enum MockAction: Sendable, Equatable {
    /// Send the request to `MockSettings.mockBaseURL` instead, keeping method, path, query and headers.
    case redirect
    case fixture(MockFixture)
}

/// A mock rule keyed by method and path (JKNetworking's `"GET,/a1"`), as `"GET /users/*"`:
/// `*` matches within one path segment, `**` across segments, and a method of `*` matches any.
public struct MockRule: Sendable, Equatable {
    public var pattern: String
    public var action: MockAction

    public init(_ pattern: String, _ action: MockAction) {
        self.pattern = pattern
        self.action = action
    }

    /// True when the rule covers `method` and the URL's path.
    public func matches(method: String, url: String) -> Bool {
        let parts = pattern.split(separator: " ", maxSplits: 1).map(String.init)
        let (ruleMethod, rulePath) = parts.count == 2 ? (parts[0], parts[1]) : ("*", parts.first ?? "")
        guard ruleMethod == "*" || ruleMethod.caseInsensitiveCompare(method) == .orderedSame else { return false }
        return Self.glob(Array(rulePath.utf8)[...], Array(Self.path(of: url).utf8)[...])
    }

    /// The path of a URL: after the authority, before the query and fragment.
    static func path(of url: String) -> String {
        let target = URLText.afterAuthority(url)
        guard target.hasPrefix("/") else { return "/" }
        return String(target.prefix { $0 != "?" && $0 != "#" })
    }

    private enum Token: Equatable {
        case byte(UInt8)
        /// `*`: any run of bytes without `/`.
        case segmentStar
        /// `**`: any run of bytes.
        case anyStar
    }

    /// Glob matching by dynamic programming over pattern tokens and path bytes: time and memory
    /// proportional to their product, whatever the pattern (no backtracking blow-up).
    private static func glob(_ pattern: ArraySlice<UInt8>, _ text: ArraySlice<UInt8>) -> Bool {
        var tokens: [Token] = []
        var index = pattern.startIndex
        while index < pattern.endIndex {
            if pattern[index] == UInt8(ascii: "*") {
                var end = index
                while end < pattern.endIndex, pattern[end] == UInt8(ascii: "*") { end += 1 }
                tokens.append(end - index >= 2 ? .anyStar : .segmentStar)
                index = end
            } else {
                tokens.append(.byte(pattern[index]))
                index += 1
            }
        }
        let text = Array(text)
        // next[j]: tokens after the current one match text[j...].
        var next = [Bool](repeating: false, count: text.count + 1)
        next[text.count] = true
        for token in tokens.reversed() {
            var current = [Bool](repeating: false, count: text.count + 1)
            for position in stride(from: text.count, through: 0, by: -1) {
                switch token {
                case .byte(let byte):
                    current[position] = position < text.count && text[position] == byte && next[position + 1]
                case .segmentStar:
                    current[position] = next[position] || (position < text.count && text[position] != UInt8(ascii: "/") && current[position + 1])
                case .anyStar:
                    current[position] = next[position] || (position < text.count && current[position + 1])
                }
            }
            next = current
        }
        return next[0]
    }
}

/// Mocking, under one global switch (JKNetworking's `JKMockManager`, Moya's stubs).
public struct MockSettings: Sendable, Equatable {
    public var enabled: Bool
    /// Where `.redirect` rules send requests: scheme, host and port, optionally a path prefix.
    public var mockBaseURL: String?
    /// The first matching rule applies.
    public var rules: [MockRule]

    public init(enabled: Bool = false, mockBaseURL: String? = nil, rules: [MockRule] = []) {
        self.enabled = enabled
        self.mockBaseURL = mockBaseURL
        self.rules = rules
    }

    func action(method: String, url: String) -> (rule: String, action: MockAction)? {
        guard enabled, let rule = rules.first(where: { $0.matches(method: method, url: url) }) else { return nil }
        return (rule.pattern, rule.action)
    }

    /// `url` with its scheme and authority replaced by the mock base URL.
    func redirected(_ url: String) -> String? {
        guard let base = mockBaseURL, !base.isEmpty else { return nil }
        let target = String(URLText.afterAuthority(url))
        let trimmedBase = base.hasSuffix("/") ? String(base.dropLast()) : base
        return trimmedBase + (target.hasPrefix("/") || target.isEmpty ? target : "/" + target)
    }
}
