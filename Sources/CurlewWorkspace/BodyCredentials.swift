import CurlewAgent
import CurlewSessions
import Foundation

/// Credentials in a request's parameters and body: the values of secret parameters
/// (`password`, `token`, `api_key`…, any case) among its parameters, at any depth of a JSON
/// body, in a form body's pairs and in multipart parts. The workspace writer moves them to the
/// secrets file as it does a URL's password; an import's variables they use become secrets.
extension WorkspaceWriter {
    /// `request` with each secret value of its parameters and body that `replace` gives a
    /// replacement for replaced. `replace` gets the field's name and its value as written where
    /// it stands, which is how its secret must be kept for `{{name}}` to put it back: decoded for
    /// a value of its own (a parameter, a `json:` member, a multipart part), with JSON's escapes
    /// inside a JSON text body, percent-encoded in a form body. A body is rewritten only when
    /// something in it was replaced.
    static func replacingSecretBodyValues(of request: Request, secretNames: Set<String>,
                                          _ replace: (_ field: String, _ value: String) -> String?) -> Request {
        var request = request
        func isSecret(_ name: String) -> Bool { secretNames.contains(name.lowercased()) }
        request.params = replacingSecretValues(in: request.params, secretNames: secretNames, replace)
        if case .raw(let data, let contentType) = request.requestSerializer, let text = String(validating: data, as: UTF8.self) {
            let type = contentType.lowercased()
            if let json = try? JSONValue.parse(data), json.isContainer {
                // A JSON body is written as `json:` members, decoded; JSON under another type as text.
                let replaced = replacingSecretValues(in: json, under: nil, inText: !type.hasPrefix("application/json"), isSecret: isSecret, replace)
                if replaced != json { request.requestSerializer = .raw(Data(replaced.serialized().utf8), contentType: contentType) }
            } else if type.hasPrefix("application/x-www-form-urlencoded") {
                var changed = false
                let pairs = text.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
                    guard let equals = pair.firstIndex(of: "="),
                          let key = String(pair[..<equals]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding, isSecret(key),
                          let replacement = replace(key, String(pair[pair.index(after: equals)...])) else { return String(pair) }
                    changed = true
                    return pair[...equals] + replacement
                }
                if changed { request.requestSerializer = .raw(Data(pairs.joined(separator: "&").utf8), contentType: contentType) }
            }
        }
        request.form = request.form?.replacingValues { name, value in isSecret(name) ? replace(name, value) : nil }
        return request
    }

    /// `parameters` with the secret values `replace` gives a replacement for replaced, at any depth.
    static func replacingSecretValues(in parameters: Parameters, secretNames: Set<String>,
                                      _ replace: (_ field: String, _ value: String) -> String?) -> Parameters {
        Parameters(parameters.entries.map { member in
            JSONMember(member.key, replacingSecretValues(in: member.value, under: member.key, inText: false,
                                                         isSecret: { secretNames.contains($0.lowercased()) }, replace))
        })
    }

    /// `value` (the value of the member `key`) with its secret strings replaced; with `inText`,
    /// strings are given to `replace` with JSON's escapes, as a JSON text body holds them.
    private static func replacingSecretValues(in value: JSONValue, under key: String?, inText: Bool, isSecret: (String) -> Bool,
                                              _ replace: (_ field: String, _ value: String) -> String?) -> JSONValue {
        switch value {
        case .string(let text):
            guard let key, isSecret(key) else { return value }
            let written = inText ? String(JSONValue.string(text).serialized().dropFirst().dropLast()) : text
            return replace(key, written).map { .string($0) } ?? value
        case .array(let elements):
            return .array(elements.map { replacingSecretValues(in: $0, under: key, inText: inText, isSecret: isSecret, replace) })
        case .object(let members):
            return .object(members.map { JSONMember($0.key, replacingSecretValues(in: $0.value, under: $0.key, inText: inText, isSecret: isSecret, replace)) })
        default:
            return value
        }
    }

    /// `request` with the credentials of its parameters and body moved to `collection`'s secrets
    /// as `{{name}}`. Values holding a `{{template}}` stay; an escaped `\{{` is literal text (a
    /// literal collection's body is escaped before it comes here).
    static func movingBodyCredentials(of request: Request, named name: String, into collection: inout ImportedCollection,
                                      avoiding taken: Set<String>, secretParameters: Set<String>) -> Request {
        replacingSecretBodyValues(of: request, secretNames: Set(secretParameters.map { $0.lowercased() })) { field, value in
            secretReference(value, literal: false, field: field, named: name, into: &collection, avoiding: taken)
        }
    }

    /// `parameters` (a request's query kept apart from it) with their credentials moved the same way.
    static func movingCredentials(in parameters: Parameters, named name: String, into collection: inout ImportedCollection,
                                  avoiding taken: Set<String>, secretParameters: Set<String> = RedactionPolicy().parameterNames) -> Parameters {
        replacingSecretValues(in: parameters, secretNames: Set(secretParameters.map { $0.lowercased() })) { field, value in
            secretReference(value, literal: false, field: field, named: name, into: &collection, avoiding: taken)
        }
    }

    /// The variables the secret values of `request`'s parameters and body use (`{"password": "{{pw}}"}`).
    static func variablesInSecretBodyValues(of request: Request, secretParameters: Set<String>) -> Set<String> {
        var names = Set<String>()
        _ = replacingSecretBodyValues(of: request, secretNames: Set(secretParameters.map { $0.lowercased() })) { _, value in
            names.formUnion(Template.names(in: value))
            return nil
        }
        return names
    }
}

extension JSONValue {
    /// Whether this is an object or an array: a body that reads as JSON structure, not a bare
    /// scalar such as `123` or `"x"`.
    var isContainer: Bool {
        switch self {
        case .object, .array: true
        default: false
        }
    }
}
