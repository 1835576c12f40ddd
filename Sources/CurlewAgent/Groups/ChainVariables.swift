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
    /// and text body. An unknown name fails, naming what is known, rather than sending `{{name}}`.
    func expand(_ request: Request) throws(RequestError) -> Request {
        var request = request
        request.path = try expand(request.path)
        if let custom = request.customURL { request.customURL = try expand(custom) }
        if let base = request.baseURL { request.baseURL = try expand(base) }
        var headers = HTTPHeaders()
        for field in request.headers { headers.add(field.name, try expand(field.value)) }
        request.headers = headers
        var params = Parameters()
        for entry in request.params { params[entry.key] = try expand(entry.value) }
        request.params = params
        if case .raw(let data, let contentType) = request.requestSerializer, let text = String(data: data, encoding: .utf8), text.contains("{{") {
            request.requestSerializer = .raw(Data(try expand(text).utf8), contentType: contentType)
        }
        return request
    }

    private func expand(_ value: JSONValue) throws(RequestError) -> JSONValue {
        switch value {
        case .string(let text): return .string(try expand(text))
        case .array(let elements):
            var expanded: [JSONValue] = []
            for element in elements { expanded.append(try expand(element)) }
            return .array(expanded)
        case .object(let members):
            var expanded: [JSONMember] = []
            for member in members { expanded.append(JSONMember(member.key, try expand(member.value))) }
            return .object(expanded)
        default: return value
        }
    }

    /// Replaces every `{{name}}` in `text`; an unknown name fails with `unresolvedVariable`.
    public func expand(_ text: String) throws(RequestError) -> String {
        guard text.contains("{{") else { return text }
        var output = ""
        var rest = Substring(text)
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
                let known = values.isEmpty ? "none captured yet" : "known: " + values.map(\.name).joined(separator: ", ")
                throw RequestError(.unresolvedVariable, "chain variable {{\(name)}} is not defined (\(known))")
            }
            output += value
            rest = rest[close.upperBound...]
        }
        return output + rest
    }

    private static func isVariableName(_ text: String) -> Bool {
        !text.isEmpty && text.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == "." }
    }
}
