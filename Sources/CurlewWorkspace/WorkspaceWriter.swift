import CurlewAgent
import Foundation
import Yams

/// Adds requests to a workspace file. New entries go at the end of its `requests:` block as text,
/// so the user's order, comments and every other field stay exactly as written; names already
/// taken get a numbered suffix. The result is loaded again before it replaces the file.
public enum WorkspaceWriter {
    /// Adds `requests` to the workspace at `path` (created when missing) and returns the names used.
    @discardableResult
    public static func add(_ requests: [Request], to path: String) throws(WorkspaceError) -> [String] {
        let exists = FileManager.default.fileExists(atPath: path)
        let existing = exists ? try Workspace.load(path: path) : nil
        var taken = Set(existing?.requests.map(\.name) ?? [])
        var names: [String] = []
        var entries: [(Node, Node)] = []
        for request in requests {
            let base = request.name ?? defaultName(request)
            var name = base
            var number = 2
            while taken.contains(name) { name = "\(base) \(number)"; number += 1 }
            taken.insert(name)
            names.append(name)
            entries.append((Node(name), node(for: request)))
        }
        let block: String
        do {
            block = try Yams.serialize(node: .mapping(Node.Mapping(entries)), width: -1)
        } catch {
            throw WorkspaceError(.invalid, at: nil, "cannot write the requests as YAML: \(error)")
        }
        let text = exists ? try YAMLDocument.readText(path: path) : "# Curlew workspace: see the README's Workspaces section.\n"
        let updated = try insert(block, into: text, file: path)
        try replace(path, with: updated)
        return names
    }

    /// A name from the method and the URL's path: "GET /users/1".
    public static func defaultName(_ request: Request) -> String {
        let url = request.customURL ?? request.path
        let path = URLComponents(string: url)?.path ?? url
        return "\(request.method.rawValue) \(path.isEmpty ? "/" : path)"
    }

    /// `text` with `block` (a YAML mapping) added under its top-level `requests:` key.
    static func insert(_ block: String, into text: String, file: String) throws(WorkspaceError) -> String {
        let indented = block.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.isEmpty ? "" : "  " + $0 }.joined(separator: "\n").trimmingCharacters(in: .newlines) + "\n"
        var lines = text.components(separatedBy: "\n")
        guard let keyLine = lines.firstIndex(where: { $0.hasPrefix("requests:") }) else {
            let separator = text.isEmpty || text.hasSuffix("\n") ? "" : "\n"
            return text + separator + "requests:\n" + indented
        }
        let rest = lines[keyLine].dropFirst("requests:".count).trimmingCharacters(in: .whitespaces)
        guard rest.isEmpty || rest.hasPrefix("#") else {
            throw WorkspaceError(.invalid, at: SourcePosition(file: file, line: keyLine + 1, column: 1), keyPath: "requests",
                                 "requests is written on one line (flow style); write it as an indented block to add to it")
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
    static func node(for request: Request) -> Node {
        var pairs: [(Node, Node)] = []
        func add(_ key: String, _ value: Node) { pairs.append((Node(key), value)) }
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
