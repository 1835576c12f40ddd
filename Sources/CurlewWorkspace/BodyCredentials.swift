import CurlewAgent
import CurlewSessions
import Foundation

/// Credentials in a request's parameters and body: the values of secret parameters
/// (`password`, `token`, `api_key`…, any case), and everything under one, among its parameters,
/// in a JSON body, in a form body's pairs and in multipart parts. The workspace writer moves them
/// to the secrets file as it does a URL's password; an import's variables they use become
/// secrets.
extension WorkspaceWriter {
    /// `request` with each secret value of its parameters and body that `replace` gives a
    /// replacement for replaced. `replace` gets the field's name and the value as written where it
    /// stands, which is how its secret must be kept for `{{name}}` to put the same bytes back:
    /// decoded for a value of its own (a parameter, a member of a body the writer writes as
    /// `json:`, a multipart part); as the text has it in a text body (inside a JSON string, with
    /// its escapes; a JSON number or word whole; a form pair's value percent-encoded; a part's
    /// content in multipart text). A text body changes only where a value is replaced. A secret
    /// number among parameters a JSON body carries stays (it cannot become a `{{name}}` string
    /// there); in a form or a query it is sent as its text, and moves as that.
    /// With `keepingTemplated`, a text body's value inside a `{{…}}` expression, or partly, is
    /// not offered: moved, its text would end or reopen the expression (`a={{$base64 b&token=c}}`).
    static func replacingSecretBodyValues(of request: Request, secrets: RedactionPolicy, keepingTemplated: Bool = false,
                                          _ replace: (_ field: String, _ value: String) -> String?) -> Request {
        var request = request
        let isSecret = { (name: String) in secrets.isSecretName(name) }
        // A JSON member by its path too (`{"api": {"key": …}}` as `api[key]`), as the log reads it.
        let isSecretMember = { (name: String, parents: [String]) in secrets.isSecretMember(name, under: parents[...]) }
        let parametersAreJSON = request.requestSerializer == .json && !request.method.encodesParametersInQuery
        request.params = replacingSecretValues(in: request.params, secrets: secrets, numbersAsText: !parametersAreJSON, replace)
        if case .raw(let data, let contentType) = request.requestSerializer {
            // A body that is not UTF-8 is written as the text it decodes to, so its credentials
            // are looked for there.
            let text = String(decoding: data, as: UTF8.self)
            let type = contentType.lowercased()
            let templated = keepingTemplated && text.contains("{{") ? Template.templatedRanges(in: text) : []
            var replaced: String?
            if let json = jsonMembers(of: data, contentType: contentType), json.isContainer,
               let members = replacingSecretValues(in: json, secret: false, key: "", path: [], isSecret: isSecretMember, numbersAsText: false, replace) {
                // Written as `json:` members, decoded (see `node(for:)`).
                replaced = members == json ? nil : members.serialized()
            } else if let spans = JSONSecretSpans(text, isSecret: isSecretMember),
                      !spans.spans.isEmpty || !(type.hasPrefix("multipart/") || type.hasPrefix("application/x-www-form-urlencoded")) {
                // A body kept as text only for what its secrets hold (`"abc\/def"`) is written as
                // `json:` members once they are `{{name}}`, which fills each in as a whole string:
                // its secrets are then kept decoded, as for members.
                let sketch = replacing(spans.spans, in: Array(text.utf8), outside: templated) { _, _ in "{{x}}" }
                if let sketch, jsonMembers(of: Data(sketch.utf8), contentType: contentType) != nil, let json = try? JSONValue.parse(data),
                   let members = replacingSecretValues(in: json, secret: false, key: "", path: [], isSecret: isSecretMember, numbersAsText: false, replace) {
                    replaced = members == json ? nil : members.serialized()
                } else {
                    // Under a JSON type a string is filled in decoded and escaped again
                    // (`JSONTemplateFill`), so its secret is kept decoded; elsewhere as written.
                    let decoded = MIMEType.isJSON(body: contentType, header: request.headers["Content-Type"]) ? spans.stringStarts : []
                    replaced = replacing(spans.spans, in: Array(text.utf8), outside: templated, decodingStringsAt: decoded, replace)
                }
            } else if type.hasPrefix("multipart/") {
                replaced = replacing(MultipartSecretSpans.spans(in: Array(text.utf8), contentType: contentType, isSecret: isSecret), in: Array(text.utf8),
                                     outside: templated, replace)
            } else if type.hasPrefix("application/x-www-form-urlencoded") {
                let pairs = mappingPairs(Substring(text), in: .form, kept: String.init, isSecret: isSecret) { key, value, secret in
                    let start = text.utf8.distance(from: text.startIndex, to: value.startIndex)
                    let range = start..<(start + value.utf8.count)
                    return secret && !templated.contains { $0.overlaps(range) } ? replace(key, String(value)) : nil
                }
                replaced = pairs == text ? nil : pairs
            }
            if let replaced { request.requestSerializer = .raw(Data(replaced.utf8), contentType: contentType) }
        }
        request.form = request.form?.replacingValues { name, value in isSecret(name) ? replace(name, value) : nil }
        return request
    }

    /// `parameters` with their secret values replaced, and every string under a secret one;
    /// with `numbersAsText`, numbers and booleans too, as the text a form or a query sends.
    static func replacingSecretValues(in parameters: Parameters, secrets: RedactionPolicy, numbersAsText: Bool,
                                      _ replace: (_ field: String, _ value: String) -> String?) -> Parameters {
        let isSecret = { (name: String, parents: [String]) in secrets.isSecretMember(name, under: parents[...]) }
        return Parameters(parameters.entries.map { member in
            let value = replacingSecretValues(in: member.value, secret: isSecret(member.key, []), key: member.key, path: [member.key], isSecret: isSecret,
                                              numbersAsText: numbersAsText, replace)
            return JSONMember(member.key, value ?? member.value)
        })
    }

    /// `value` (under `key`, secret or under a secret member when `secret`; `path` the names of
    /// the members it is under, `key` last) with its secret strings replaced. Nil when a secret number or boolean cannot become a string
    /// (`numbersAsText` false): the value must then be kept as text to be moved.
    private static func replacingSecretValues(in value: JSONValue, secret: Bool, key: String, path: [String],
                                              isSecret: (_ name: String, _ parents: [String]) -> Bool, numbersAsText: Bool,
                                              _ replace: (_ field: String, _ value: String) -> String?) -> JSONValue? {
        switch value {
        case .string(let text):
            return secret ? replace(key, text).map { .string($0) } ?? value : value
        case .bool:
            // `true` is no secret, and a secret of it would hide every "true" in the logs
            // (found by a new user's trial).
            return value
        case .int, .double:
            guard secret else { return value }
            guard numbersAsText else { return nil }
            return replace(key, value.textValue).map { .string($0) } ?? value
        case .null:
            return value
        case .array(let elements):
            var replaced: [JSONValue] = []
            for element in elements {
                guard let one = replacingSecretValues(in: element, secret: secret, key: key, path: path, isSecret: isSecret, numbersAsText: numbersAsText,
                                                      replace) else { return nil }
                replaced.append(one)
            }
            return .array(replaced)
        case .object(let members):
            var replaced: [JSONMember] = []
            for member in members {
                // The names nearest it are the ones that can spell a secret with it (a path of
                // hundreds of levels is not copied whole at each).
                guard let one = replacingSecretValues(in: member.value, secret: secret || isSecret(member.key, path), key: member.key,
                                                      path: path.suffix(255) + [member.key], isSecret: isSecret,
                                                      numbersAsText: numbersAsText, replace) else { return nil }
                replaced.append(JSONMember(member.key, one))
            }
            return .object(replaced)
        }
    }

    /// `bytes` as text with each span `replace` gives a replacement for (called with the field's
    /// name and the span's text) replaced; nil when none was. A span ending in the backslash of
    /// an escaped `\{{` that runs past it (the word `x\` in `{"token": x\{{…}}}`) leaves that
    /// backslash in the text, so the escape still reads as one.
    /// A span overlapping one of `templated` (`Template.templatedRanges`) stays. A span that
    /// starts at one of `decodingStringsAt` is a JSON string's content, given decoded (`a\"b` as
    /// `a"b`); one that does not read as a JSON string's content, or that JSON would write with
    /// other escapes (`\b`, `\u00e9`), stays, since filled in it would be sent otherwise than written.
    private static func replacing(_ spans: [(key: String, range: Range<Int>)], in bytes: [UInt8], outside templated: [Range<Int>],
                                  decodingStringsAt decoded: Set<Int> = [], _ replace: (_ field: String, _ value: String) -> String?) -> String? {
        var output = bytes
        var changed = false
        for span in spans.sorted(by: { $0.range.lowerBound > $1.range.lowerBound }) {
            var range = span.range
            if let last = range.last, bytes[last] == UInt8(ascii: "\\"), bytes[range.upperBound...].starts(with: "{{".utf8) {
                range = range.lowerBound..<last
            }
            var value = String(decoding: bytes[range], as: UTF8.self)
            if decoded.contains(span.range.lowerBound) {
                let quoted = "\"" + value + "\""
                guard case .string(let content)? = try? JSONValue.parse(quoted), JSONValue.string(content).serialized() == quoted else { continue }
                value = content
            }
            guard !range.isEmpty, !templated.contains(where: { $0.overlaps(range) }), let replacement = replace(span.key, value) else { continue }
            output.replaceSubrange(range, with: replacement.utf8)
            changed = true
        }
        return changed ? String(decoding: output, as: UTF8.self) : nil
    }

    /// `name=value&…` pairs (of a URL's query or fragment, or of a form body: `place`) with the
    /// values `value` gives a replacement for replaced, and the rest as `kept` writes it.
    /// `isSecret` is asked of each name decoded (`+` and percent escapes; as written when it does
    /// not decode); `value` gets that name, the value as written and the answer. Pairs are read as
    /// redaction reads them (`QueryPairs`), so what a log hides a workspace file does not hold.
    static func mappingPairs(_ pairs: Substring, in place: QueryPairs.Place, kept: (Substring) -> String, isSecret: (String) -> Bool,
                             _ value: (_ key: String, _ value: Substring, _ isSecret: Bool) -> String?) -> String {
        func decoded(_ name: Substring) -> String {
            let spaced = String(name).replacingOccurrences(of: "+", with: " ")
            return spaced.removingPercentEncoding ?? spaced
        }
        return QueryPairs.mapping(pairs, in: place, kept: kept, isSecret: { isSecret(decoded($0)) }) { name, written, secret in
            value(decoded(name), written, secret)
        }
    }

    /// `request` with the credentials of its parameters and body moved to `collection`'s secrets
    /// as `{{name}}`. Values holding a `{{template}}` stay; an escaped `\{{` is literal text (a
    /// literal collection's body is escaped before it comes here).
    /// A string of the parameters or of a body written as `json:` members that is a URL
    /// (`{"cb": "http://u:PASS@h/"}`, a link `/cb?token=…`) has its password and secret
    /// parameters moved as the request's own URL has (found by a new user's trial).
    static func movingBodyCredentials(of request: Request, named name: String, into collection: inout ImportedCollection,
                                      avoiding taken: Set<String>, secrets: RedactionPolicy) -> Request {
        var request = replacingSecretBodyValues(of: request, secrets: secrets, keepingTemplated: true) { field, value in
            secretReference(value, literal: false, field: field, named: name, into: &collection, avoiding: taken)
        }
        func movingURLs(_ value: JSONValue) -> JSONValue {
            value.mappingStrings(namesToo: false) { text in
                let lowered = text.prefix(8).lowercased()
                guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") || text.hasPrefix("/") && text.contains("?") else { return text }
                return movingCredentials(inURL: text, named: name, into: &collection, avoiding: taken, secrets: secrets)
            }
        }
        request.params = Parameters(request.params.entries.map { JSONMember($0.key, movingURLs($0.value)) })
        if case .raw(let data, let contentType) = request.requestSerializer, let json = jsonMembers(of: data, contentType: contentType), json.isContainer {
            let moved = movingURLs(json)
            if moved != json { request.requestSerializer = .raw(Data(moved.serialized().utf8), contentType: contentType) }
        }
        return request
    }

    /// `parameters` (a request's query kept apart from it) with their credentials moved the same way.
    static func movingCredentials(in parameters: Parameters, named name: String, into collection: inout ImportedCollection,
                                  avoiding taken: Set<String>, secrets: RedactionPolicy = RedactionPolicy()) -> Parameters {
        replacingSecretValues(in: parameters, secrets: secrets, numbersAsText: true) { field, value in
            secretReference(value, literal: false, field: field, named: name, into: &collection, avoiding: taken)
        }
    }

    /// The variables the secret values of `request`'s parameters and body use (`{"password": "{{pw}}"}`).
    static func variablesInSecretBodyValues(of request: Request, secrets: RedactionPolicy) -> Set<String> {
        var names = Set<String>()
        _ = replacingSecretBodyValues(of: request, secrets: secrets) { _, value in
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
