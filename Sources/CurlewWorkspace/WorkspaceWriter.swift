import CurlewAgent
import CurlewSessions
import Foundation
import Yams

/// Adds requests to a workspace file. New entries go at the end of its `requests:` block as text,
/// so the user's order, comments and every other field stay exactly as written; names already
/// taken get a numbered suffix. The result is loaded again before it replaces the file.
public enum WorkspaceWriter {
    /// What an addition did: the names given to new requests and groups, and what was left out.
    public struct Summary: Sendable {
        public var requests: [String] = []
        public var groups: [String] = []
        public var variables: [String] = []
        public var environments: [String] = []
        public var secrets: [String] = []
        /// Names already in the workspace, left as they were.
        public var kept: [String] = []
    }

    /// Adds an imported collection: requests, chains as groups, variables and environments not
    /// already defined, and secret values to the secrets file beside the workspace.
    public static func add(_ collection: ImportedCollection, to path: String) throws(WorkspaceError) -> Summary {
        let exists = FileManager.default.fileExists(atPath: path)
        let existing = exists ? try Workspace.load(path: path) : nil
        var summary = Summary()
        var document = exists ? try YAMLDocument.readText(path: path) : "# Curlew workspace: see the README's Workspaces section.\n"

        var takenRequests = Set(existing?.requests.map(\.name) ?? [])
        var renamed: [String: String] = [:]
        var entries: [(Node, Node)] = []
        var secrets = collection.secrets
        for item in collection.items {
            let name = unique(item.name, in: &takenRequests)
            renamed[item.name] = name
            summary.requests.append(name)
            var request = item.request
            // Credentials an import carries in clear (curl -u, a browser's cookies, a token) go
            // to the secrets file; the workspace, which is committed, names them as variables.
            var headers = HTTPHeaders()
            for field in request.headers {
                guard RedactionPolicy.defaultHeaderNames.contains(field.name.lowercased()), collection.isLiteral || !field.value.contains("{{") else {
                    headers.add(field.name, collection.isLiteral ? escapingTemplates(field.value) : field.value)
                    continue
                }
                let variable = secretVariableName(request: name, header: field.name)
                secrets.append((variable, field.value))
                headers.add(field.name, "{{\(variable)}}")
            }
            request.headers = headers
            if collection.isLiteral { request = escapingTemplates(in: request) }
            entries.append((text(name), node(for: request, folder: item.folder)))
        }
        if !entries.isEmpty { document = try insert(try serialize(entries), under: "requests", into: document, file: path) }

        var takenGroups = Set(existing?.groups.map(\.name) ?? [])
        var groups: [(Node, Node)] = []
        for chain in collection.chains {
            let name = unique(chain.name, in: &takenGroups)
            summary.groups.append(name)
            let steps = chain.steps.map { step -> Node in
                let request = renamed[step.request] ?? step.request
                guard !step.captures.isEmpty else { return text(request) }
                return .mapping(Node.Mapping([(Node("request"), text(request)),
                                              (Node("capture"), .mapping(Node.Mapping(step.captures.map { (text($0.name), text(captureSource($0.source))) })))]))
            }
            groups.append((text(name), .mapping(Node.Mapping([(Node("chain"), .sequence(Node.Sequence(steps)))]))))
        }
        if !groups.isEmpty { document = try insert(try serialize(groups), under: "groups", into: document, file: path) }

        let definedVariables = Set((existing?.variables.map(\.name) ?? []) + (existing?.secretNames ?? []))
        let variables = collection.variables.filter { pair in
            if definedVariables.contains(pair.name) { summary.kept.append("variable \(pair.name)"); return false }
            return true
        }
        if !variables.isEmpty {
            summary.variables = variables.map(\.name)
            document = try insert(try serialize(variables.map { (text($0.name), text($0.value)) }), under: "variables", into: document, file: path)
        }
        var environments: [(Node, Node)] = []
        for environment in collection.environments {
            if existing?.environmentNames.contains(environment.name) == true || summary.environments.contains(environment.name) {
                summary.kept.append("environment \(environment.name)")
                continue
            }
            summary.environments.append(environment.name)
            environments.append((Node(environment.name), .mapping(Node.Mapping(environment.variables.map { (text($0.name), text($0.value)) }))))
        }
        if !environments.isEmpty { document = try insert(try serialize(environments), under: "environments", into: document, file: path) }

        let secretsPath = ((existing?.directory ?? ((path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent))
            as NSString).appendingPathComponent(Workspace.secretsFileName)
        let storedSecrets = try WorkspaceSecrets.load(path: secretsPath)
        let storedNames = Set(storedSecrets.shared.map(\.name))
        var newSecrets: [(name: String, value: String)] = []
        for secret in secrets {
            if storedNames.contains(secret.name) || newSecrets.contains(where: { $0.name == secret.name }) {
                summary.kept.append("secret \(secret.name)")
            } else {
                newSecrets.append(secret)
            }
        }
        let undeclared = newSecrets.map(\.name).filter { !(existing?.secretNames.contains($0) ?? false) }
        if !undeclared.isEmpty { document = try appendSecretNames(undeclared, to: document, file: path) }
        summary.secrets = newSecrets.map(\.name)
        // Both files are checked before either is written; the workspace goes first, so a
        // failure leaves at worst a secret no workspace names yet.
        let secretsText = newSecrets.isEmpty ? nil : try secretsFileText(adding: newSecrets, at: secretsPath)
        do { _ = try Workspace.parse(document, path: path) } catch {
            // The lines are those of the workspace as the import would have written it.
            throw WorkspaceError(error.kind, at: nil, keyPath: error.keyPath,
                                 "nothing was written: the import would make an invalid workspace (at line \(error.position?.line ?? 0) of the result): \(error.message)")
        }
        try replace(path, with: document)
        if let secretsText {
            do { try OwnerOnlyFile.write(Data(secretsText.utf8), to: secretsPath) } catch {
                throw WorkspaceError(.unreadable, at: nil, "\(secretsPath): \(error.reason)")
            }
        }
        return summary
    }

    /// `{{` as `\{{`, so literal text reads back as itself.
    static func escapingTemplates(_ text: String) -> String {
        text.replacingOccurrences(of: "{{", with: "\\{{")
    }

    /// A literal request's URL, parameters and text body with their `{{` escaped (headers are
    /// escaped as they are moved).
    private static func escapingTemplates(in request: Request) -> Request {
        var request = request
        request.customURL = request.customURL.map(escapingTemplates)
        request.path = escapingTemplates(request.path)
        var params = Parameters()
        for entry in request.params { params[escapingTemplates(entry.key)] = escapingStrings(entry.value) }
        request.params = params
        if case .raw(let data, let type) = request.requestSerializer, let text = String(data: data, encoding: .utf8), text.contains("{{") {
            if type.lowercased().contains("json"), let json = try? JSONValue.parse(data) {
                request.requestSerializer = .raw(Data(escapingStrings(json).serialized().utf8), contentType: type)
            } else {
                request.requestSerializer = .raw(Data(escapingTemplates(text).utf8), contentType: type)
            }
        }
        return request
    }

    private static func escapingStrings(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string(let text): .string(escapingTemplates(text))
        case .array(let elements): .array(elements.map(escapingStrings))
        case .object(let members): .object(members.map { JSONMember(escapingTemplates($0.key), escapingStrings($0.value)) })
        default: value
        }
    }

    private static func unique(_ base: String, in taken: inout Set<String>) -> String {
        var name = base
        var number = 2
        while taken.contains(name) { name = "\(base) \(number)"; number += 1 }
        taken.insert(name)
        return name
    }

    private static func captureSource(_ source: Capture.Source) -> String {
        switch source {
        case .jsonPath(let path): path
        case .header(let name): "header \(name)"
        case .status: "status"
        }
    }

    private static func serialize(_ entries: [(Node, Node)]) throws(WorkspaceError) -> String {
        do {
            return try Yams.serialize(node: .mapping(Node.Mapping(entries)), width: -1)
        } catch {
            throw WorkspaceError(.invalid, at: nil, "cannot write YAML: \(error)")
        }
    }

    /// Declares names secret: `secrets: [a, b]` gains them, or a `secrets:` line is added.
    private static func appendSecretNames(_ names: [String], to text: String, file: String) throws(WorkspaceError) -> String {
        var lines = text.components(separatedBy: "\n")
        guard let index = lines.firstIndex(where: { $0.hasPrefix("secrets:") }) else {
            return text + (text.hasSuffix("\n") || text.isEmpty ? "" : "\n") + "secrets: [\(names.joined(separator: ", "))]\n"
        }
        let rest = lines[index].dropFirst("secrets:".count).trimmingCharacters(in: .whitespaces)
        if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
            let inside = rest[rest.index(after: rest.startIndex)..<close].trimmingCharacters(in: .whitespaces)
            lines[index] = "secrets: [" + (inside.isEmpty ? "" : inside + ", ") + names.joined(separator: ", ") + "]" + rest[rest.index(after: close)...]
            return lines.joined(separator: "\n")
        }
        return try insert(names.map { "- \($0)" }.joined(separator: "\n") + "\n", under: "secrets", into: text, file: file)
    }

    /// The secrets file's text with `values` added under `variables:`, checked.
    private static func secretsFileText(adding values: [(name: String, value: String)], at secretsPath: String) throws(WorkspaceError) -> String {
        let existing = FileManager.default.fileExists(atPath: secretsPath) ? try YAMLDocument.readText(path: secretsPath) : ""
        let block = try serialize(values.map { (Node($0.name), text($0.value)) })
        let updated = try insert(block, under: "variables", into: existing, file: secretsPath)
        _ = try YAMLDocument.parse(updated, file: secretsPath)
        return updated
    }

    /// `get_users_authorization` for a request "GET /users" and its Authorization header.
    static func secretVariableName(request: String, header: String) -> String {
        let words = (request + " " + header).lowercased().split { !($0.isLetter && $0.isASCII) && !($0.isNumber && $0.isASCII) }
        return words.joined(separator: "_")
    }

    /// `text` with `block` (YAML) added at the end of the top-level `key:` block, or as a new one.
    static func insert(_ block: String, under key: String, into text: String, file: String) throws(WorkspaceError) -> String {
        var lines = text.components(separatedBy: "\n")
        guard let keyLine = lines.firstIndex(where: { $0.hasPrefix("\(key):") }) else {
            let separator = text.isEmpty || text.hasSuffix("\n") ? "" : "\n"
            return text + separator + "\(key):\n" + indent(block, by: 2) + "\n"
        }
        let rest = lines[keyLine].dropFirst(key.count + 1).trimmingCharacters(in: .whitespaces)
        if !(rest.isEmpty || rest.hasPrefix("#")) {
            // A one-line (flow) value, `variables: {a: 1}`, is rewritten as a block first.
            guard (rest.hasPrefix("{") || rest.hasPrefix("[")), let node = try? Yams.compose(yaml: "\(key): \(rest)"),
                  let expanded = try? Yams.serialize(node: node, width: -1) else {
                throw WorkspaceError(.invalid, at: SourcePosition(file: file, line: keyLine + 1, column: 1), keyPath: key,
                                     "\(key) is written on one line in a way that cannot be extended; write it as an indented block")
            }
            let blockLines = expanded.trimmingCharacters(in: .newlines).components(separatedBy: "\n")
            lines.replaceSubrange(keyLine...keyLine, with: blockLines)
            if blockLines.count == 1, blockLines[0].hasSuffix("{}") || blockLines[0].hasSuffix("[]") { lines[keyLine] = "\(key):" }
        }
        // The block ends at the next line that starts at column one with a key.
        var end = keyLine + 1
        while end < lines.count, lines[end].isEmpty || lines[end].hasPrefix(" ") || lines[end].hasPrefix("\t") || lines[end].hasPrefix("#") { end += 1 }
        // Trailing blank lines and comments belong to what follows.
        while end > keyLine + 1, lines[end - 1].trimmingCharacters(in: .whitespaces).isEmpty || lines[end - 1].hasPrefix("#") { end -= 1 }
        // New entries take the indentation of the block's first entry (two spaces in a new block).
        let firstEntry = lines[(keyLine + 1)..<end].first { !$0.trimmingCharacters(in: .whitespaces).isEmpty && !$0.trimmingCharacters(in: .whitespaces).hasPrefix("#") }
        let width = firstEntry.map { $0.prefix { $0 == " " }.count } ?? 2
        lines.insert(contentsOf: indent(block, by: max(1, width)).components(separatedBy: "\n"), at: end)
        return lines.joined(separator: "\n")
    }

    private static func indent(_ block: String, by width: Int) -> String {
        let padding = String(repeating: " ", count: width)
        return block.trimmingCharacters(in: .newlines).split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.isEmpty ? "" : padding + $0 }.joined(separator: "\n")
    }

    /// Writes the workspace atomically (a fresh temporary file renamed over it), into the file a
    /// symbolic link points to, keeping the file's permissions (0644 for a new one).
    private static func replace(_ path: String, with text: String) throws(WorkspaceError) {
        let target = (path as NSString).resolvingSymlinksInPath
        var status = stat()
        let mode = stat(target, &status) == 0 ? status.st_mode & 0o777 : 0o644
        do {
            try OwnerOnlyFile.write(Data(text.utf8), to: target)
        } catch {
            throw WorkspaceError(.unreadable, at: nil, "\(path): \(error.reason)")
        }
        chmod(target, mode)
    }

    /// One request as a workspace entry, with only the fields that differ from the defaults.
    static func node(for request: Request, folder: String? = nil) -> Node {
        var pairs: [(Node, Node)] = []
        func add(_ key: String, _ value: Node) { pairs.append((Node(key), value)) }
        if let folder { add("folder", text(folder)) }
        add("url", text(request.customURL ?? request.path))
        if let base = request.baseURL { add("baseURL", text(base)) }
        if !request.headers.isEmpty {
            add("headers", .mapping(Node.Mapping(request.headers.filter { $0.name.lowercased() != "content-type" || !isJSONBody(request) }.map { (text($0.name), text($0.value)) })))
        }
        // Parameters go where the agent sends them: the query, a form body or a JSON body.
        switch request.requestSerializer {
        case .raw(let data, let contentType):
            if !request.params.isEmpty { add("query", node(for: request.params.jsonObject)) }
            if contentType.lowercased().hasPrefix("application/json"), let json = try? JSONValue.parse(data) {
                add("json", node(for: json))
            } else {
                add("body", text(String(decoding: data, as: UTF8.self)))
                add("contentType", text(contentType))
            }
        case _ where request.params.isEmpty: break
        case _ where request.method.encodesParametersInQuery || request.form != nil || request.uploadFile != nil:
            add("query", node(for: request.params.jsonObject))
        case .urlEncodedForm:
            add("form", node(for: request.params.jsonObject))
        case .json:
            add("json", node(for: request.params.jsonObject))
        }
        if let form = request.form {
            add("multipart", .sequence(Node.Sequence(form.parts.map { part in
                var fields: [(Node, Node)] = [(Node("name"), text(part.name))]
                switch part.content {
                case .data(let data): fields.append((Node("value"), text(String(decoding: data, as: UTF8.self))))
                case .file(let path): fields.append((Node("file"), text(path)))
                }
                if let filename = part.filename { fields.append((Node("filename"), text(filename))) }
                if let type = part.mimeType { fields.append((Node("type"), text(type))) }
                if !part.headers.isEmpty {
                    fields.append((Node("headers"), .mapping(Node.Mapping(part.headers.map { (text($0.name), text($0.value)) }))))
                }
                return .mapping(Node.Mapping(fields))
            })))
        }
        if let file = request.uploadFile { add("bodyFile", text(file)) }
        if let timeout = request.timeout { add("timeout", Node("\(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)ms")) }
        if let follow = request.followRedirects { add("followRedirects", Node(follow ? "true" : "false", Tag(.bool))) }
        if request.tls?.allowInvalidCertificates == true { add("tls", .mapping(Node.Mapping([(Node("insecure"), Node("true", Tag(.bool)))]))) }
        if let version = request.httpVersion { add("httpVersion", Node(version.rawValue)) }
        // The method is written when it is not what the reader infers (POST with a body, else GET).
        let hasBody = pairs.contains { ["json", "form", "body", "multipart", "bodyFile"].contains($0.0.string ?? "") }
        if request.method != (hasBody ? .post : .get) { pairs.insert((Node("method"), text(request.method.rawValue)), at: folder == nil ? 0 : 1) }
        return .mapping(Node.Mapping(pairs))
    }

    private static func isJSONBody(_ request: Request) -> Bool {
        if case .raw(let data, let contentType) = request.requestSerializer, contentType.lowercased().hasPrefix("application/json") {
            return (try? JSONValue.parse(data)) != nil
        }
        return false
    }

    /// A string as a scalar that reads back as that string: plain when YAML would not take it
    /// for something else (`null`, `~`, `true`, `yes`, a number…), double-quoted otherwise.
    static func text(_ string: String) -> Node {
        let typed = ["", "~", "null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE", "yes", "no", "on", "off", "y", "n"]
        let plainSafe = !typed.contains(string) && Double(string) == nil && Int(string) == nil
            && string.unicodeScalars.allSatisfy { ($0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil)) || " /-_.,()".unicodeScalars.contains($0) }
            && !string.hasPrefix(" ") && !string.hasSuffix(" ") && !string.hasPrefix("-")
        return plainSafe ? Node(string) : Node(string, Tag(.str), .doubleQuoted)
    }

    static func node(for value: JSONValue) -> Node {
        switch value {
        case .null: Node("null", Tag(.null))
        case .bool(let flag): Node(flag ? "true" : "false", Tag(.bool))
        case .int(let number): Node(String(number), Tag(.int))
        case .double(let number): Node(String(number), Tag(.float))
        case .string(let text): Node(text, Tag(.str), .doubleQuoted)
        case .array(let elements): .sequence(Node.Sequence(elements.map(node(for:))))
        case .object(let members): .mapping(Node.Mapping(members.map { (Node($0.key), node(for: $0.value)) }))
        }
    }
}
