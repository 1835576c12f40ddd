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

    /// Adds `requests` to the workspace at `path` (created when missing) and returns the names used.
    @discardableResult
    public static func add(_ requests: [Request], to path: String) throws(WorkspaceError) -> [String] {
        var collection = ImportedCollection()
        collection.items = requests.map { .init(name: $0.name ?? defaultName($0), request: $0) }
        return try add(collection, to: path).requests
    }

    /// Adds an imported collection: requests, chains as groups, variables and environments not
    /// already defined, and secret values to the secrets file beside the workspace.
    public static func add(_ collection: ImportedCollection, to path: String) throws(WorkspaceError) -> Summary {
        let exists = FileManager.default.fileExists(atPath: path)
        let existing = exists ? try Workspace.load(path: path) : nil
        var summary = Summary()
        var text = exists ? try YAMLDocument.readText(path: path) : "# Curlew workspace: see the README's Workspaces section.\n"

        var takenRequests = Set(existing?.requests.map(\.name) ?? [])
        var renamed: [String: String] = [:]
        var entries: [(Node, Node)] = []
        for item in collection.items {
            let name = unique(item.name, in: &takenRequests)
            renamed[item.name] = name
            summary.requests.append(name)
            entries.append((Node(name), node(for: item.request, folder: item.folder)))
        }
        if !entries.isEmpty { text = try insert(try serialize(entries), under: "requests", into: text, file: path) }

        var takenGroups = Set(existing?.groups.map(\.name) ?? [])
        var groups: [(Node, Node)] = []
        for chain in collection.chains {
            let name = unique(chain.name, in: &takenGroups)
            summary.groups.append(name)
            let steps = chain.steps.map { step -> Node in
                let request = renamed[step.request] ?? step.request
                guard !step.captures.isEmpty else { return Node(request) }
                return .mapping(Node.Mapping([(Node("request"), Node(request)),
                                              (Node("capture"), .mapping(Node.Mapping(step.captures.map { (Node($0.name), Node(captureSource($0.source))) })))]))
            }
            groups.append((Node(name), .mapping(Node.Mapping([(Node("chain"), .sequence(Node.Sequence(steps)))]))))
        }
        if !groups.isEmpty { text = try insert(try serialize(groups), under: "groups", into: text, file: path) }

        let definedVariables = Set((existing?.variables.map(\.name) ?? []) + (existing?.secretNames ?? []))
        let variables = collection.variables.filter { pair in
            if definedVariables.contains(pair.name) { summary.kept.append("variable \(pair.name)"); return false }
            return true
        }
        if !variables.isEmpty {
            summary.variables = variables.map(\.name)
            text = try insert(try serialize(variables.map { (Node($0.name), Node($0.value)) }), under: "variables", into: text, file: path)
        }
        var environments: [(Node, Node)] = []
        for environment in collection.environments {
            if existing?.environmentNames.contains(environment.name) == true || summary.environments.contains(environment.name) {
                summary.kept.append("environment \(environment.name)")
                continue
            }
            summary.environments.append(environment.name)
            environments.append((Node(environment.name), .mapping(Node.Mapping(environment.variables.map { (Node($0.name), Node($0.value)) }))))
        }
        if !environments.isEmpty { text = try insert(try serialize(environments), under: "environments", into: text, file: path) }

        let newSecrets = collection.secrets.filter { !(existing?.secretNames.contains($0.name) ?? false) }
        if !newSecrets.isEmpty {
            summary.secrets = newSecrets.map(\.name)
            text = try appendSecretNames(newSecrets.map(\.name), to: text, file: path)
            try addSecretValues(newSecrets, besides: path)
        }
        try replace(path, with: text)
        return summary
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

    /// Adds values to `curlew.secrets.yaml` beside the workspace, creating it owner-only.
    private static func addSecretValues(_ values: [(name: String, value: String)], besides path: String) throws(WorkspaceError) {
        let directory = (path as NSString).deletingLastPathComponent
        let secretsPath = ((directory.isEmpty ? "." : directory) as NSString).appendingPathComponent(Workspace.secretsFileName)
        _ = try WorkspaceSecrets.load(path: secretsPath)
        let existing = FileManager.default.fileExists(atPath: secretsPath) ? try YAMLDocument.readText(path: secretsPath) : ""
        let block = try serialize(values.map { (Node($0.name), Node($0.value)) })
        let text = try insert(block, under: "variables", into: existing, file: secretsPath)
        do {
            try OwnerOnlyFile.write(Data(text.utf8), to: secretsPath)
        } catch {
            throw WorkspaceError(.unreadable, at: nil, "\(secretsPath): \(error.reason)")
        }
    }

    /// A name from the method and the URL's path: "GET /users/1".
    public static func defaultName(_ request: Request) -> String {
        let url = request.customURL ?? request.path
        let path = URLComponents(string: url)?.path ?? url
        return "\(request.method.rawValue) \(path.isEmpty ? "/" : path)"
    }

    /// `text` with `block` (YAML) added at the end of the top-level `key:` block, or as a new one.
    static func insert(_ block: String, under key: String, into text: String, file: String) throws(WorkspaceError) -> String {
        let indented = block.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.isEmpty ? "" : "  " + $0 }.joined(separator: "\n").trimmingCharacters(in: .newlines) + "\n"
        var lines = text.components(separatedBy: "\n")
        guard let keyLine = lines.firstIndex(where: { $0.hasPrefix("\(key):") }) else {
            let separator = text.isEmpty || text.hasSuffix("\n") ? "" : "\n"
            return text + separator + "\(key):\n" + indented
        }
        let rest = lines[keyLine].dropFirst(key.count + 1).trimmingCharacters(in: .whitespaces)
        guard rest.isEmpty || rest.hasPrefix("#") else {
            throw WorkspaceError(.invalid, at: SourcePosition(file: file, line: keyLine + 1, column: 1), keyPath: key,
                                 "\(key) is written on one line (flow style); write it as an indented block to add to it")
        }
        // The block ends at the next line that starts at column one with a key.
        var end = keyLine + 1
        while end < lines.count, lines[end].isEmpty || lines[end].hasPrefix(" ") || lines[end].hasPrefix("\t") || lines[end].hasPrefix("#") { end += 1 }
        // Trailing blank lines and comments belong to what follows.
        while end > keyLine + 1, lines[end - 1].trimmingCharacters(in: .whitespaces).isEmpty || lines[end - 1].hasPrefix("#") { end -= 1 }
        lines.insert(contentsOf: indented.trimmingCharacters(in: .newlines).components(separatedBy: "\n"), at: end)
        return lines.joined(separator: "\n")
    }

    private static func replace(_ path: String, with text: String) throws(WorkspaceError) {
        let directory = (path as NSString).deletingLastPathComponent
        let temporary = (directory.isEmpty ? "." : directory) + "/.\((path as NSString).lastPathComponent).\(getpid()).tmp"
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: temporary))
            defer { try? FileManager.default.removeItem(atPath: temporary) }
            _ = try Workspace.load(path: temporary)
            guard rename(temporary, path) == 0 else { throw WorkspaceError(.unreadable, at: nil, "\(path): cannot be replaced (\(String(cString: strerror(errno))))") }
        } catch let error as WorkspaceError {
            throw error
        } catch {
            throw WorkspaceError(.unreadable, at: nil, "\(path): \(error.localizedDescription)")
        }
    }

    /// One request as a workspace entry, with only the fields that differ from the defaults.
    static func node(for request: Request, folder: String? = nil) -> Node {
        var pairs: [(Node, Node)] = []
        func add(_ key: String, _ value: Node) { pairs.append((Node(key), value)) }
        if let folder { add("folder", Node(folder)) }
        let hasBody = request.form != nil || request.uploadFile != nil || { if case .raw = request.requestSerializer { true } else { !request.params.isEmpty } }()
        if request.method != (hasBody ? .post : .get) { add("method", Node(request.method.rawValue)) }
        add("url", Node(request.customURL ?? request.path))
        if !request.headers.isEmpty {
            add("headers", .mapping(Node.Mapping(request.headers.filter { $0.name.lowercased() != "content-type" || !isJSONBody(request) }.map { (Node($0.name), Node($0.value)) })))
        }
        switch request.requestSerializer {
        case .raw(let data, let contentType):
            if contentType.lowercased().hasPrefix("application/json"), let json = try? JSONValue.parse(data) {
                add("json", node(for: json))
            } else {
                add("body", Node(String(decoding: data, as: UTF8.self)))
                add("contentType", Node(contentType))
            }
        case .urlEncodedForm where !request.params.isEmpty && request.form == nil:
            add("form", node(for: request.params.jsonObject))
        default: break
        }
        if let form = request.form {
            add("multipart", .sequence(Node.Sequence(form.parts.map { part in
                var fields: [(Node, Node)] = [(Node("name"), Node(part.name))]
                switch part.content {
                case .data(let data): fields.append((Node("value"), Node(String(decoding: data, as: UTF8.self))))
                case .file(let path): fields.append((Node("file"), Node(path)))
                }
                if let filename = part.filename { fields.append((Node("filename"), Node(filename))) }
                if let type = part.mimeType { fields.append((Node("type"), Node(type))) }
                return .mapping(Node.Mapping(fields))
            })))
        }
        if let file = request.uploadFile { add("bodyFile", Node(file)) }
        if let timeout = request.timeout { add("timeout", Node("\(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)ms")) }
        if let follow = request.followRedirects { add("followRedirects", Node(follow ? "true" : "false", Tag(.bool))) }
        if request.tls?.allowInvalidCertificates == true { add("tls", .mapping(Node.Mapping([(Node("insecure"), Node("true", Tag(.bool)))]))) }
        if let version = request.httpVersion { add("httpVersion", Node(version.rawValue)) }
        return .mapping(Node.Mapping(pairs))
    }

    private static func isJSONBody(_ request: Request) -> Bool {
        if case .raw(let data, let contentType) = request.requestSerializer, contentType.lowercased().hasPrefix("application/json") {
            return (try? JSONValue.parse(data)) != nil
        }
        return false
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
