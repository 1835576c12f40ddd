import Foundation

/// Values captured by a chain, substituted into later steps as `{{name}}`.
public struct ChainVariables: Sendable, Equatable {
    public private(set) var values: [(name: String, value: String)] = []
    /// When set, only these names are filled in (and fail when they have no value); any other
    /// `{{name}}` is text and stays as written.
    public var fillsOnly: Set<String>?

    public init() {}

    /// Variables from name-value pairs; a later pair wins over an earlier one of the same name.
    public init(_ pairs: [(name: String, value: String)]) {
        for pair in pairs { set(pair.name, pair.value) }
    }

    public subscript(name: String) -> String? {
        values.last { $0.name == name }?.value
    }

    mutating func set(_ name: String, _ value: String) {
        values.removeAll { $0.name == name }
        values.append((name, value))
    }

    public static func == (lhs: ChainVariables, rhs: ChainVariables) -> Bool {
        lhs.values.map { [$0.name, $0.value] } == rhs.values.map { [$0.name, $0.value] }
    }

    /// Replaces every `{{name}}` in the request's URL parts, header values, string parameters,
    /// text body (a JSON body as `expand(json:)` does) and multipart parts' text. An unknown name
    /// fails, naming what is known, rather than sending `{{name}}`.
    /// `defaultHeaders`: the agent's, whose `Content-Type` goes on the wire when the request has none
    /// and a raw body's type is only a guess.
    public func expand(_ request: Request, defaultHeaders: HTTPHeaders = [:]) throws(RequestError) -> Request {
        var request = request
        request.path = try expand(request.path)
        if let custom = request.customURL { request.customURL = try expand(custom) }
        if let base = request.baseURL { request.baseURL = try expand(base) }
        var headers = HTTPHeaders()
        for field in request.headers { headers.add(field.name, try expand(field.value)) }
        request.headers = headers
        // Names are filled as values are (a workspace's `query:` fills both); two that come to
        // one name are refused rather than merged.
        var members: [JSONMember] = []
        for entry in request.params {
            members.append(JSONMember(try expand(entry.key), try entry.value.mappingStrings { (text: String) throws(RequestError) -> String in try expand(text) }))
        }
        try Self.refuseRepeatedNames(in: .object(members))
        request.params = Parameters(members)
        if case .raw(let data, let contentType) = request.requestSerializer, let text = String(data: data, encoding: .utf8), text.contains("{{") {
            let isJSON = MIMEType.isJSON(body: contentType, header: request.contentTypeOverridingRawBody(configDefault: defaultHeaders["Content-Type"]))
            let expanded = isJSON ? try expand(json: text) : try expand(text)
            request.requestSerializer = .raw(Data(expanded.utf8), contentType: contentType)
        }
        if let form = request.form {
            request.form = try form.mappingText { (text: String) throws(RequestError) -> String in try expand(text) }
        }
        return request
    }

    /// A group member's request with these values: made by its `captureFilling` when it has
    /// one, else its `{{name}}` text filled in (`expand(_:defaultHeaders:)`).
    public func request(for member: Request, defaultHeaders: HTTPHeaders = [:]) throws(RequestError) -> Request {
        if let filling = member.captureFilling { return try filling.request(with: self) }
        return try expand(member, defaultHeaders: defaultHeaders)
    }

    /// The names closest to a misspelt one, at most three, and how many are defined: the full
    /// list may be a whole process environment, too long to read and not to be shown.
    private func suggestion(for name: String) -> String {
        guard !values.isEmpty else { return " (none defined yet)" }
        let wanted = Array(name.lowercased())
        let close = values.map(\.name)
            .map { ($0, Self.editDistance(wanted, Array($0.lowercased()))) }
            .filter { $0.1 <= max(2, wanted.count / 3) }
            .sorted { $0.1 < $1.1 }
            .prefix(3)
            .map { "{{\($0.0)}}" }
        let count = "\(values.count) defined"
        return close.isEmpty ? " (\(count))" : "; did you mean \(close.joined(separator: ", "))? (\(count))"
    }

    private static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, y) in b.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }

    /// Replaces every `{{name}}` in a JSON body's text (`JSONTemplateFill`): inside a JSON
    /// string as part of that string, escaped as JSON writes it, so a captured value with a quote
    /// or a backslash stays inside its string and cannot add members to the body. Outside a
    /// string (`{"n": {{n}}}`) a value stands as written only when it is one JSON value (`42`,
    /// `true`, `{"a":1}`); any other fails the step (`invalidBody`), so a hostile server's
    /// `1,"admin":true` is never sent.
    public func expand(json text: String) throws(RequestError) -> String {
        try JSONTemplateFill.fill(text, string: { (content: String) throws(RequestError) -> String in try expand(content) },
                                  elsewhere: { (segment: String) throws(RequestError) -> String in try expand(outsideJSONStrings: segment) },
                                  repeatedName: Self.repeatedNameError)
    }

    /// The failure of a body whose templates gave two members of one object the same name.
    public static func repeatedNameError(_ name: String) -> RequestError {
        RequestError(.invalidBody, JSONTemplateFill.repeatedNameProblem(name))
    }

    /// Fails with `invalidBody` when two members of one object have the same name once filled
    /// in (a captured `role` beside a member `role`): JSON parsers disagree on which one counts.
    public static func refuseRepeatedNames(in value: JSONValue) throws(RequestError) {
        guard let name = value.repeatedMemberName else { return }
        throw repeatedNameError(name)
    }

    /// Replaces every `{{name}}` in a part of a JSON body outside its strings, each value only
    /// when it is one JSON value (`expand(json:)`).
    public func expand(outsideJSONStrings segment: String) throws(RequestError) -> String {
        try expand(Substring(segment)) { (name: String, value: String) throws(RequestError) -> String in
            try Self.standingOutsideJSONString(name: name, value: value)
        }
    }

    /// `value` when it may stand outside a JSON body's strings (one JSON value); else the step
    /// fails with `invalidBody`. The one rule for a chain's run and for Compose's editor.
    public static func standingOutsideJSONString(name: String, value: String) throws(RequestError) -> String {
        guard (try? JSONValue.parse(value)) != nil else {
            throw RequestError(.invalidBody, "chain variable {{\(ClippedText.plain(name, limit: 80))}} stands outside a string in a JSON body, and its value is not one JSON value: put the template in quotes to send it as a string")
        }
        return value
    }

    /// Replaces every `{{name}}` in `text`; an unknown name fails with `unresolvedVariable`.
    public func expand(_ text: String) throws(RequestError) -> String {
        try expand(Substring(text)) { (_: String, value: String) throws(RequestError) -> String in value }
    }

    /// Replaces every `{{name}}` in `text` with what `fill` makes of its name and value. When
    /// every name is filled (`fillsOnly` nil), a `\{{` is a literal `{{`, as a workspace reads it
    /// (a body holding another template language's braces, a pasted curl command). When only
    /// the names of `fillsOnly` are filled, the rest is text as written, a backslash included:
    /// a workspace's groups come with their own templates read already.
    private func expand(_ text: Substring, filling fill: (String, String) throws(RequestError) -> String) throws(RequestError) -> String {
        guard text.contains("{{") else { return String(text) }
        var output = ""
        var rest = text
        while let open = rest.firstRange(ofASCII: "{{") {
            if fillsOnly == nil, TemplateEscape.isEscaped(rest, openingAt: open.lowerBound) {
                output += rest[..<rest.index(before: open.lowerBound)] + "{{"
                rest = rest[open.upperBound...]
                continue
            }
            output += rest[..<open.lowerBound]
            guard let close = rest[open.upperBound...].firstRange(ofASCII: "}}") else { return output + rest[open.lowerBound...] }
            let name = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            let template = rest[open.lowerBound..<close.upperBound]
            rest = rest[close.upperBound...]
            guard Self.isVariableName(name), fillsOnly?.contains(name) ?? true else {
                output += template
                continue
            }
            guard let value = self[name] else {
                throw RequestError(.unresolvedVariable, "chain variable {{\(ClippedText.plain(name, limit: 80))}} is not defined" + suggestion(for: name))
            }
            output += try fill(name, value)
        }
        return output + rest
    }

    /// Whether `text` can name a chain variable: letters, digits, `_`, `-` and `.` (never a
    /// built-in's `$`, a space or a brace).
    public static func isVariableName(_ text: String) -> Bool {
        !text.isEmpty && text.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == "." }
    }
}
