import CurlewAgent
import Foundation

/// Reads Postman collection v2.0/v2.1 and environment exports: folders, requests (URL, query,
/// headers, raw / urlencoded / form-data / file bodies), auth (bearer, basic, API key; inherited
/// from folders and the collection), collection variables, and environments, whose secret
/// values go to the secrets file. Scripts are noted, not run.
public enum PostmanImport {
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public var reason: String
        public var description: String { reason }
    }

    /// The deepest folder nesting read.
    static let maxDepth = 32

    /// A collection or an environment export, told apart by its content.
    public static func parse(_ data: Data) throws(Failure) -> ImportedCollection {
        let document: JSONValue
        do { document = try JSONValue.parse(data.withoutByteOrderMark) } catch {
            throw Failure(reason: "not JSON: \(error)")
        }
        var collection = ImportedCollection()
        if document["values"] != nil, document["item"] == nil {
            try readEnvironment(document, into: &collection)
            return collection
        }
        guard case .array(let items)? = document["item"] else {
            throw Failure(reason: "not a Postman collection (no item list) or environment (no values list)")
        }
        if let schema = document["info"]?["schema"]?.stringValue, !schema.contains("v2.") {
            throw Failure(reason: "a Postman collection in format \(schema); export it as v2.1")
        }
        for variable in array(document["variable"]) {
            // A variable Postman has switched off is not one, as an environment's `enabled: false`.
            guard let key = variable["key"]?.stringValue ?? variable["id"]?.stringValue, variable["disabled"] != .bool(true) else { continue }
            collection.variables.append((key, variable["value"]?.textValue ?? ""))
        }
        try read(items, folder: nil, auth: document["auth"], depth: 0, into: &collection)
        if document["event"] != nil { collection.notes.append("collection scripts are not imported") }
        return collection
    }

    private static func readEnvironment(_ document: JSONValue, into collection: inout ImportedCollection) throws(Failure) {
        let name = document["name"]?.stringValue ?? "imported"
        guard case .array(let values)? = document["values"] else {
            throw Failure(reason: "a Postman environment's values must be a list of {key, value} entries")
        }
        var variables: [(name: String, value: String)] = []
        for value in values {
            guard let key = value["key"]?.stringValue, value["enabled"] != .bool(false) else { continue }
            let text = value["value"]?.textValue ?? ""
            if value["type"]?.stringValue == "secret" {
                collection.secrets.append(.init(name: key, value: text, environment: name))
            } else {
                variables.append((key, text))
            }
        }
        collection.environments.append((name, variables))
    }

    private static func read(_ items: [JSONValue], folder: String?, auth: JSONValue?, depth: Int,
                             into collection: inout ImportedCollection) throws(Failure) {
        guard depth < maxDepth else { throw Failure(reason: "folders nested more than \(maxDepth) deep") }
        for item in items {
            let name = item["name"]?.stringValue ?? "untitled"
            let inherited = own(item["auth"]) ?? auth
            if case .array(let children)? = item["item"] {
                let path = folder.map { "\($0)/\(name)" } ?? name
                try read(children, folder: path, auth: inherited, depth: depth + 1, into: &collection)
                continue
            }
            guard let source = item["request"] else {
                collection.notes.append("\(name): neither a request nor a folder; left out")
                continue
            }
            var built = request(source, name: name, notes: &collection.notes)
            guard !(built.customURL ?? "").isEmpty else {
                collection.notes.append("\(name): no URL; left out")
                continue
            }
            if item["event"] != nil { collection.notes.append("\(name): its scripts are not imported") }
            applyAuth(own(source["auth"]) ?? inherited, to: &built, name: name, collection: &collection)
            collection.items.append(.init(name: name, folder: folder, request: built))
        }
    }

    /// `url` with each space outside a `{{template}}` written `%20`, as Postman sends it.
    static func encodingSpaces(in url: String) -> String {
        guard url.contains(" ") else { return url }
        var written = ""
        var rest = Substring(url)
        while let open = rest.firstRange(ofASCII: "{{") {
            written += rest[..<open.lowerBound].replacingOccurrences(of: " ", with: "%20")
            let close = rest[open.upperBound...].firstRange(ofASCII: "}}")?.upperBound ?? rest.endIndex
            written += rest[open.lowerBound..<close]
            rest = rest[close...]
        }
        return written + rest.replacingOccurrences(of: " ", with: "%20")
    }

    private static func request(_ source: JSONValue, name: String, notes: inout [String]) -> Request {
        // A request may be a bare URL string.
        if let url = source.stringValue { return Request.url(ImportedCollection.translatingBuiltins(Self.encodingSpaces(in: url))) }
        var request = Request(HTTPMethod(rawValue: (source["method"]?.stringValue ?? "GET").uppercased()), "")
        var url = source["url"]?.stringValue ?? source["url"]?["raw"]?.stringValue ?? ""
        if url.isEmpty, let host = source["url"]?["host"] {
            let hostText = host.stringValue ?? array(host).map(\.textValue).joined(separator: ".")
            let port = source["url"]?["port"].map { ":" + $0.textValue } ?? ""
            let path = array(source["url"]?["path"]).map(\.textValue).joined(separator: "/")
            url = (source["url"]?["protocol"]?.stringValue.map { "\($0)://" } ?? "") + hostText + port + (path.isEmpty ? "" : "/" + path)
            let query = array(source["url"]?["query"]).filter { $0["disabled"] != .bool(true) }
                .map { "\($0["key"]?.textValue ?? "")=\($0["value"]?.textValue ?? "")" }
            if !query.isEmpty { url += "?" + query.joined(separator: "&") }
        }
        // Path variables (`/users/:id`) take their values from the URL's variable list, the
        // first of a name winning; a value is not read for variables again.
        var pathValues: [String: String] = [:]
        for variable in array(source["url"]?["variable"]) {
            guard let key = variable["key"]?.stringValue, !key.isEmpty, pathValues[key] == nil else { continue }
            pathValues[key] = variable["value"]?.textValue ?? "{{\(key)}}"
        }
        if let filled = PlaceholderFill.filling(url, .colon, from: pathValues) {
            url = filled
        } else {
            notes.append("\(name): its path variables would make the URL longer than a request can carry, so they are left as written")
        }
        // Postman sends a space typed in a URL percent-encoded; a template's spaces stay.
        request.customURL = ImportedCollection.translatingBuiltins(Self.encodingSpaces(in: url))
        for header in array(source["header"]) where header["disabled"] != .bool(true) {
            guard let key = header["key"]?.stringValue else { continue }
            request.headers.add(key, ImportedCollection.translatingBuiltins(header["value"]?.textValue ?? ""))
        }
        if let body = source["body"], body["disabled"] != .bool(true) {
            switch body["mode"]?.stringValue {
            case "raw":
                let text = ImportedCollection.translatingBuiltins(body["raw"]?.textValue ?? "")
                let language = body["options"]?["raw"]?["language"]?.stringValue
                let type = request.headers["Content-Type"] ?? (language == "json" ? "application/json" : language == "xml" ? "application/xml" : "text/plain")
                if !text.isEmpty { request.requestSerializer = .raw(Data(text.utf8), contentType: type) }
            case "urlencoded":
                var params = Parameters()
                for field in array(body["urlencoded"]) where field["disabled"] != .bool(true) {
                    if let key = field["key"]?.stringValue { params[key] = .string(ImportedCollection.translatingBuiltins(field["value"]?.textValue ?? "")) }
                }
                request.params = params
                request.requestSerializer = .urlEncodedForm
            case "formdata":
                var form = MultipartForm()
                for field in array(body["formdata"]) where field["disabled"] != .bool(true) {
                    guard let key = field["key"]?.stringValue else { continue }
                    if field["type"]?.stringValue == "file", let file = field["src"]?.stringValue ?? array(field["src"]).first?.stringValue {
                        form.append(name: key, fileAt: file)
                    } else {
                        form.append(name: key, value: ImportedCollection.translatingBuiltins(field["value"]?.textValue ?? ""))
                    }
                }
                request.form = form
            case "file":
                if let file = body["file"]?["src"]?.stringValue { request.uploadFile = file }
            case "graphql":
                let query = body["graphql"]?["query"]?.textValue ?? ""
                let variables = body["graphql"]?["variables"]?.stringValue.flatMap { try? JSONValue.parse($0) } ?? .object([])
                let payload: JSONValue = ["query": .string(query), "variables": variables]
                request.requestSerializer = .raw(Data(payload.serialized().utf8), contentType: "application/json")
            default: break
            }
        }
        return request
    }

    /// An item's own auth; `inherit`, `null` or none means its parent's.
    private static func own(_ auth: JSONValue?) -> JSONValue? {
        guard let auth, auth != .null, auth["type"]?.stringValue != "inherit" else { return nil }
        return auth
    }

    /// Sets a request's auth header or query parameter. Literal credentials become secrets
    /// (the workspace names them as variables); templated ones stay templates.
    private static func applyAuth(_ auth: JSONValue?, to request: inout Request, name: String, collection: inout ImportedCollection) {
        guard let auth, let type = auth["type"]?.stringValue, type != "noauth", type != "inherit" else { return }
        func field(_ key: String) -> String? {
            let fields = auth[type]
            let value = if case .array = fields { array(fields).first { $0["key"]?.stringValue == key }?["value"]?.textValue } else { fields?[key]?.textValue }
            return value.map(ImportedCollection.translatingBuiltins)
        }
        /// A literal value as a reference to a new secret; a template as it is.
        func secretReference(_ value: String, field: String) -> String {
            guard !value.isEmpty, !value.contains("{{") else { return value }
            return "{{\(collection.keepSecret(value, request: name, field: field))}}"
        }
        switch type {
        case "bearer":
            request.headers.set("Authorization", "Bearer " + secretReference(field("token") ?? "", field: "token"))
        case "basic":
            let username = field("username") ?? "", password = field("password") ?? ""
            if username.contains("{{") || password.contains("{{") {
                request.headers.set("Authorization", "Basic {{$base64 \(username):\(secretReference(password, field: "password"))}}")
            } else {
                let credentials = HTTPHeaders.basicAuthorization("\(username):\(password)")
                request.headers.set("Authorization", secretReference(credentials, field: "Authorization"))
            }
        case "apikey":
            let key = field("key") ?? "X-Api-Key"
            let value = field("value") ?? ""
            if field("in") == "query" {
                // The secret holds the value as it goes in the URL, encoded.
                let encoded = value.contains("{{") ? value : Parameters.percentEncode(value)
                let url = request.customURL ?? ""
                request.customURL = url + (url.contains("?") ? "&" : "?") + Parameters.percentEncode(key) + "=" + secretReference(encoded, field: key)
            } else {
                request.headers.set(key, secretReference(value, field: key))
            }
        default:
            collection.notes.append("\(name): \(type) auth is not imported; set its header by hand")
        }
    }

    private static func array(_ value: JSONValue?) -> [JSONValue] {
        if case .array(let elements)? = value { return elements }
        return []
    }
}
