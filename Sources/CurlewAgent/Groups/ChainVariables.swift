import Foundation

/// Values captured by a chain, substituted into later steps as `{{name}}`.
public struct ChainVariables: Sendable, Equatable {
    public private(set) var values: [(name: String, value: String)] = []

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

    /// Replaces every `{{name}}` in the request's URL parts, header values, string parameters
    /// and text body (a JSON body as `expand(json:)` does). An unknown name fails, naming what is
    /// known, rather than sending `{{name}}`.
    public func expand(_ request: Request) throws(RequestError) -> Request {
        var request = request
        request.path = try expand(request.path)
        if let custom = request.customURL { request.customURL = try expand(custom) }
        if let base = request.baseURL { request.baseURL = try expand(base) }
        var headers = HTTPHeaders()
        for field in request.headers { headers.add(field.name, try expand(field.value)) }
        request.headers = headers
        var params = Parameters()
        for entry in request.params { params[entry.key] = try entry.value.mappingStrings { (text: String) throws(RequestError) -> String in try expand(text) } }
        request.params = params
        if case .raw(let data, let contentType) = request.requestSerializer, let text = String(data: data, encoding: .utf8), text.contains("{{") {
            let expanded = MIMEType.isJSON(contentType) ? try expand(json: text) : try expand(text)
            request.requestSerializer = .raw(Data(expanded.utf8), contentType: contentType)
        }
        return request
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

    /// Replaces every `{{name}}` in a JSON body's text: inside a JSON string with the value
    /// escaped as JSON writes it, so a captured value with a quote or a backslash stays inside
    /// its string and cannot add members to the body; elsewhere (`{"n": {{n}}}`) where it stands.
    /// A body's strings are told apart by their quotes, so text that reads as JSON only once
    /// filled in is filled in all the same.
    public func expand(json text: String) throws(RequestError) -> String {
        guard text.contains("{{") else { return text }
        var output = ""
        var segmentStart = text.startIndex
        var inString = false
        var escaped = false
        let bytes = text.utf8
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            if inString, escaped {
                escaped = false
            } else if inString, byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                // A segment ends at each quote: outside a string before it, inside after it.
                let segment = Substring(bytes[segmentStart..<index])
                output += try expand(segment, filling: inString ? Self.jsonStringContents : { $0 })
                output += "\""
                inString.toggle()
                segmentStart = bytes.index(after: index)
            }
            index = bytes.index(after: index)
        }
        let last = Substring(bytes[segmentStart...])
        return output + (try expand(last, filling: inString ? Self.jsonStringContents : { $0 }))
    }

    /// `value` as a JSON string holds it, without the quotes (dropped as scalars: a value that
    /// starts with a combining mark makes one character of it and the opening quote).
    private static func jsonStringContents(_ value: String) -> String {
        String(String.UnicodeScalarView(JSONValue.string(value).serialized().unicodeScalars.dropFirst().dropLast()))
    }

    /// Replaces every `{{name}}` in `text`; an unknown name fails with `unresolvedVariable`.
    public func expand(_ text: String) throws(RequestError) -> String {
        try expand(Substring(text), filling: { $0 })
    }

    /// Replaces every `{{name}}` in `text` with its value as `fill` writes it.
    private func expand(_ text: Substring, filling fill: (String) -> String) throws(RequestError) -> String {
        guard text.contains("{{") else { return String(text) }
        var output = ""
        var rest = text
        while let open = rest.range(of: "{{") {
            output += rest[..<open.lowerBound]
            guard let close = rest[open.upperBound...].range(of: "}}") else {
                output += rest[open.lowerBound...]
                return output
            }
            let name = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            guard Self.isVariableName(name) else {
                output += rest[open.lowerBound..<close.upperBound]
                rest = rest[close.upperBound...]
                continue
            }
            guard let value = self[name] else {
                throw RequestError(.unresolvedVariable, "chain variable {{\(name)}} is not defined" + suggestion(for: name))
            }
            output += fill(value)
            rest = rest[close.upperBound...]
        }
        return output + rest
    }

    private static func isVariableName(_ text: String) -> Bool {
        !text.isEmpty && text.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == "." }
    }
}
