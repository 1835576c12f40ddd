import CurlewAgent
import CurlewSessions
import CurlewWorkspace
import Foundation
import OpenAPIKit
import OpenAPIKit30
import OpenAPIKitCompat
import Yams

/// Reads an OpenAPI 3.0 or 3.1 document (JSON or YAML) with OpenAPIKit: one request per
/// operation, named by its operationId; path, required query and header parameters become
/// variables;
/// JSON request bodies come from the examples; servers become environments (`baseURL`); an
/// operation's first tag is its folder.
public enum OpenAPIImport {
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var reason: String
        public var description: String { reason }
    }

    private struct VersionProbe: Decodable {
        var openapi: String?
        var swagger: String?
    }

    /// The document's operations as a collection; a Swagger 2 document, or one OpenAPIKit cannot
    /// read, is refused with the reason.
    public static func parse(_ data: Data) throws(Failure) -> ImportedCollection {
        guard data.count <= 32 << 20 else { throw Failure(reason: "larger than 32 MiB") }
        // Read first as workspace files are, which refuses alias keys and documents whose
        // aliases expand past a bound; the decoder below would walk such a tree for ever.
        do { _ = try YAMLDocument.parse(String(decoding: data, as: UTF8.self), file: "the document") } catch {
            throw Failure(reason: error.description)
        }
        // A local tag (`!name`) is refused before OpenAPIKit sees it: no OpenAPI document has
        // one, and one on a parameter made OpenAPIKit's decoding error trap (found by fuzzing).
        if let tag = (try? Yams.compose(yaml: String(decoding: data, as: UTF8.self))).flatMap({ $0.flatMap(localTag(in:)) }) {
            throw Failure(reason: "a YAML tag (\(tag)): an OpenAPI document uses none")
        }
        let document: OpenAPIKit.OpenAPI.Document
        do { document = try decodeDocument(data) } catch { throw Failure(reason: reason(for: error)) }
        return collection(document)
    }

    /// The first local tag (`!name`, not YAML's own `tag:yaml.org,2002:…`) in `node`, if any.
    private static func localTag(in node: Node) -> String? {
        let name = node.tag.description
        if name.hasPrefix("!"), name != "!" { return name }
        switch node {
        case .mapping(let mapping):
            for (key, value) in mapping {
                if let found = localTag(in: key) ?? localTag(in: value) { return found }
            }
        case .sequence(let sequence):
            for element in sequence {
                if let found = localTag(in: element) { return found }
            }
        default:
            break
        }
        return nil
    }

    /// The document, 3.0 converted to 3.1; a Swagger 2 or versionless document is refused.
    private static func decodeDocument(_ data: Data) throws -> OpenAPIKit.OpenAPI.Document {
        let decoder = YAMLDecoder()
        let probe = try decoder.decode(VersionProbe.self, from: data)
        if probe.swagger != nil { throw Failure(reason: "a Swagger 2.0 document; convert it to OpenAPI 3 first") }
        guard let version = probe.openapi else { throw Failure(reason: "not an OpenAPI document: no openapi version field") }
        if version.hasPrefix("3.0") {
            return try decoder.decode(OpenAPIKit30.OpenAPI.Document.self, from: data).convert(to: .v3_1_1)
        }
        return try decoder.decode(OpenAPIKit.OpenAPI.Document.self, from: data)
    }

    /// Why a document was refused: this reader's reason, or OpenAPIKit's with the place in the
    /// document it names.
    private static func reason(for error: any Error) -> String {
        if let failure = error as? Failure { return failure.reason }
        let described = OpenAPIKit.OpenAPI.Error(from: error)
        let place = described.codingPathString.isEmpty ? "" : " (at \(described.codingPathString.prefix(200)))"
        // The library writes Markdown (`name`, **GET**) and can end on "..": a terminal shows
        // them as typed.
        var text = described.localizedDescription.prefix(400).replacingOccurrences(of: "`", with: "").replacingOccurrences(of: "**", with: "")
        while text.hasSuffix("..") { text.removeLast() }
        return "not a valid OpenAPI document\(place): \(text)"
    }

    static let methods: [OpenAPIKit.OpenAPI.HttpMethod] = [.get, .post, .put, .patch, .delete, .head, .options, .trace]

    /// References are resolved one level at a time where they are used (a path item, a
    /// parameter, a body, an example), never the whole document: a recursive schema, common in
    /// real APIs, cannot be dereferenced whole.
    private static func collection(_ document: OpenAPIKit.OpenAPI.Document) -> ImportedCollection {
        let components = document.components
        var collection = ImportedCollection()
        var variables: [String: String] = [:]
        var order: [String] = []
        func declare(_ name: String, _ value: String) {
            if variables[name] == nil { order.append(name) }
            if variables[name]?.isEmpty ?? true { variables[name] = value }
        }
        for (index, server) in document.servers.enumerated() {
            let written = server.urlTemplate.absoluteString
            var defaults: [String: String] = [:]
            for (name, variable) in server.variables where defaults[name] == nil { defaults[name] = variable.default }
            guard var url = PlaceholderFill.filling(written, .braced, from: defaults) else {
                collection.notes.append("server \(URLPassword.masking(in: written).debugDescription): left out: its variables' defaults would make the URL longer than a request can carry")
                continue
            }
            if !url.contains("://") {
                collection.notes.append("server \(url) is relative to where the document is served: its baseURL starts with http://localhost until you set it")
                url = "http://localhost" + (url.hasPrefix("/") ? url : "/" + url)
            }
            // A server no request could be sent to (a port past 65535 a variable's default
            // gives, a space) makes no environment, as an entry with such a URL makes no request.
            do throws(RequestError) {
                try URLText.checkAddress(url)
                try URLText.checkCharacters(url)
            } catch {
                collection.notes.append("server \(URLPassword.masking(in: url).debugDescription): left out: \(error.message)")
                continue
            }
            let name = server.description.map(slug) ?? (index == 0 ? "default" : "server\(index + 1)")
            collection.environments.append((name.isEmpty ? "server\(index + 1)" : name, [("baseURL", url.hasSuffix("/") ? String(url.dropLast()) : url)]))
        }
        // Also a plain variable (the first server), so the requests run in a workspace whose
        // environments already exist and were kept as they were.
        declare("baseURL", collection.environments.first?.variables.first?.value ?? "http://localhost")
        if collection.environments.isEmpty {
            collection.notes.append("the document names no server" + (document.servers.isEmpty ? "" : " that can be used") + ": baseURL is http://localhost until you set it")
        }
        var names: Set<String> = []
        for (path, maybePathItem) in document.paths {
            guard let pathItem = components[maybePathItem] else {
                collection.notes.append("\(path.rawValue): a path item reference that cannot be resolved is skipped")
                continue
            }
            for case .a(let reference) in pathItem.parameters where components[reference] == nil {
                collection.notes.append("\(path.rawValue): the parameter \(reference.absoluteString) cannot be resolved and is left out")
            }
            for method in methods {
                guard let operation = pathItem.for(method) else { continue }
                var url = "/" + path.components.joined(separator: "/")
                var request = Request(HTTPMethod(rawValue: method.rawValue.uppercased()), "")
                var query = Parameters()
                var pathTemplates: [String: String] = [:]
                let label = operation.operationId ?? "\(method.rawValue.uppercased()) \(path.rawValue)"
                for case .a(let reference) in operation.parameters where components[reference] == nil {
                    collection.notes.append("\(label): the parameter \(reference.absoluteString) cannot be resolved and is left out")
                }
                for maybeParameter in pathItem.parameters + operation.parameters {
                    guard let parameter = components[maybeParameter] else { continue }
                    let name = parameter.name
                    switch parameter.location {
                    case .path:
                        // Filled once all are known: the path item's and the operation's own
                        // declaration of one parameter make one template.
                        pathTemplates[name] = "{{\(name)}}"
                        declare(name, example(of: parameter, components))
                    case .query where parameter.required:
                        // Written as `query:`, which goes in the URL encoded whatever the method.
                        query[name] = .string("{{\(name)}}")
                        declare(name, example(of: parameter, components))
                    case .header:
                        request.headers.set(name, "{{\(name)}}")
                        declare(name, example(of: parameter, components))
                    default: break
                    }
                }
                url = PlaceholderFill.filling(url, .braced, from: pathTemplates) ?? url
                request.customURL = "{{baseURL}}" + url
                if case .a(let reference)? = operation.requestBody, components[reference] == nil {
                    collection.notes.append("\(label): the request body \(reference.absoluteString) cannot be resolved and is left out")
                }
                if let body = operation.requestBody.flatMap({ components[$0] }) {
                    let json = body.content.first { $0.key.rawValue.lowercased().contains("json") }
                    if let (type, maybeContent) = json {
                        let content = components[maybeContent]
                        let example = content?.examples?.first.flatMap { components[$0.value] }
                        let value = content?.example ?? example?.dataValue ?? example?.legacyValue
                        let text = value.flatMap { try? JSONEncoder().encode($0) }.flatMap { try? JSONValue.parse($0) }?.serialized() ?? "{}"
                        request.requestSerializer = .raw(Data(text.utf8), contentType: type.rawValue)
                    } else if let type = body.content.keys.first {
                        request.headers.set("Content-Type", type.rawValue)
                    }
                }
                var name = operation.operationId ?? operation.summary ?? "\(method.rawValue.uppercased()) \(path.rawValue)"
                if names.contains(name) { name += " (\(method.rawValue.uppercased()))" }
                names.insert(name)
                collection.items.append(.init(name: name, folder: operation.tags?.first, request: request, query: query))
            }
        }
        collection.variables = order.map { ($0, variables[$0] ?? "") }
        return collection
    }

    /// A parameter's example, else its schema's first example or default, else nothing.
    private static func example(of parameter: OpenAPIKit.OpenAPI.Parameter, _ components: OpenAPIKit.OpenAPI.Components) -> String {
        let context = parameter.schemaOrContent.a
        let schema = context.flatMap { components[$0.schema] }
        let value = context?.example ?? schema?.examples.first ?? schema?.defaultValue
        guard let value, let data = try? JSONEncoder().encode(value), let json = try? JSONValue.parse(data) else { return "" }
        return json.textValue
    }

    private static func slug(_ text: String) -> String {
        text.lowercased().split { !$0.isLetter && !$0.isNumber }.joined(separator: "-")
    }
}
