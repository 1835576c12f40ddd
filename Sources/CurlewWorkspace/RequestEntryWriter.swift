import CurlewAgent
import CurlewSessions
import Foundation
import Yams

/// Saves one request entry of a workspace, as the interface's editor does: the entry's lines are
/// replaced (or a new entry added at the end of `requests:`), and everything else in the file stays
/// exactly as written.
extension WorkspaceWriter {
    /// The fields of an entry the editor edits. A save replaces these and keeps every other
    /// field (expectations, cache, retry, tls, description…) as it was.
    static let editedKeys: Set<String> = ["folder", "method", "url", "query", "headers", "json", "form", "body", "contentType", "timeout", "followRedirects"]
    /// Bodies the editor cannot show, kept when the edited request has no body of its own.
    static let bodyKeysKeptWithoutBody: Set<String> = ["multipart", "bodyFile"]

    /// Saves `request` (with `query` under `query:`, in `folder`) as the entry `name` of the workspace at `path`, in place of `previous`
    /// (a rename) or of `name` where that exists, else at the end of `requests:`. Credentials
    /// written in clear go to the secrets file as for an import. A new entry made as a copy of
    /// the entry `copying` (of a file in the same directory) takes that entry's fields the editor does not edit.
    /// `secrets` decides which headers', parameters' and members' literal values are moved
    /// (`isSecretName`): the workspace's own redaction, so the file never holds in clear what its
    /// logs hide.
    @discardableResult
    public static func save(_ request: Request, query: Parameters = Parameters(), folder: String? = nil, named name: String, replacing previous: String? = nil,
                            copying template: String? = nil, in path: String,
                            secrets: RedactionPolicy = RedactionPolicy()) throws(WorkspaceError) -> Summary {
        let workspace = try Workspace.load(path: path)
        let target = workspace.request(named: previous ?? name)
        if previous != nil, previous != name, workspace.request(named: name) != nil {
            throw WorkspaceError(.invalid, at: nil, keyPath: "requests", "a request named \"\(name)\" already exists")
        }
        if let target, target.position.file != path {
            throw WorkspaceError(.invalid, at: target.position, keyPath: "requests.\(target.name)",
                                 "\(target.name) is defined in an included file; edit it there")
        }
        let original = try YAMLDocument.readText(path: path)
        var document = normalizingLineEnds(original)
        let secretsPath = secretsPath(for: path, existing: workspace)
        let stored = try WorkspaceSecrets.load(path: secretsPath)
        var collection = ImportedCollection()
        let taken = definedNames(workspace, stored)
        let moved = movingCredentials(of: request, named: name, into: &collection, avoiding: taken, secrets: secrets)
        let movedQuery = movingCredentials(in: query, named: name, into: &collection, avoiding: taken, secrets: secrets)
        var repeats = SecretRepeats(movedFrom: name, entry: moved, in: &collection, from: 0)
        let query = repeats.replacing(in: movedQuery, into: &collection, avoiding: taken)
        guard case .mapping(let edited) = node(for: moved, folder: folder, query: query) else {
            throw WorkspaceError(.invalid, at: nil, "cannot write the request \(name)")
        }
        let withBody = hasBody(moved)
        // A copy takes an entry of a file in this file's directory only: elsewhere, its relative
        // paths (a body file, a form's file part) would mean something else here.
        let copied = template.flatMap { workspace.request(named: $0) }.flatMap { $0.directory == workspace.directory ? $0 : nil }
        let value = (target ?? copied).map {
            merged(edited, into: $0.node) { editedKeys.contains($0) || (withBody && bodyKeysKeptWithoutBody.contains($0)) }
        } ?? .mapping(edited)
        let entry = try serialize([(text(name), value)])
        if let target {
            document = try replacingEntry(target.name, with: entry, in: document, file: path)
        } else {
            document = try insert(entry, under: ["requests"], into: document, file: path)
        }
        var summary = Summary()
        summary.requests = [name]
        try write(document, original: original, to: path, existing: workspace, secrets: collection.secrets, stored: stored, at: secretsPath,
                  summary: &summary, action: "saving \(name)")
        return summary
    }

    /// Removes the entry `name` from the workspace at `path`; groups that name it make the
    /// result invalid, and then nothing is written.
    public static func delete(requestNamed name: String, in path: String) throws(WorkspaceError) {
        try deleteEntry(name, under: "requests", in: path) { $0.request(named: name)?.position }
    }

    /// Removes the entry `name` under `section`, found in the loaded workspace by `position`;
    /// an entry of an included file is refused, and so is a result that would not load.
    static func deleteEntry(_ name: String, under section: String, in path: String,
                            position: (Workspace) -> SourcePosition?) throws(WorkspaceError) {
        let workspace = try Workspace.load(path: path)
        guard let found = position(workspace) else {
            throw WorkspaceError(.undefined, at: nil, keyPath: section, "no entry \"\(name)\" under \(section)")
        }
        guard found.file == path else {
            throw WorkspaceError(.invalid, at: found, keyPath: "\(section).\(name)", "\(name) is defined in an included file; edit it there")
        }
        let original = try YAMLDocument.readText(path: path)
        let document = try replacingEntry(name, under: section, with: nil, in: normalizingLineEnds(original), file: path)
        var summary = Summary()
        let secretsPath = secretsPath(for: path, existing: workspace)
        try write(document, original: original, to: path, existing: workspace, secrets: [], stored: try WorkspaceSecrets.load(path: secretsPath),
                  at: secretsPath, summary: &summary, action: "deleting \(name)")
    }

    private static func hasBody(_ request: Request) -> Bool {
        if case .raw = request.requestSerializer { return true }
        if request.form != nil { return true }
        return !request.params.isEmpty && !request.method.encodesParametersInQuery
    }

    /// The edited fields in the entry's own order, then new ones; the fields `owns` does not
    /// claim stay as they were (and an owned field the edit dropped goes).
    static func merged(_ edited: Node.Mapping, into existing: YAMLNode, owns: (String) -> Bool) -> Node {
        guard case .mapping(let pairs, _) = existing else { return .mapping(edited) }
        let editedByKey = Dictionary(edited.map { ($0.key.string ?? "", $0.value) }, uniquingKeysWith: { first, _ in first })
        var result: [(Node, Node)] = []
        var used = Set<String>()
        for (key, value) in pairs {
            guard case .scalar(let name, _, _) = key else { continue }
            if !owns(name) {
                result.append((text(name), yamsNode(value)))
            } else if let replacement = editedByKey[name] {
                result.append((text(name), replacement))
                used.insert(name)
            }
        }
        // Fields the entry did not have yet; never a second copy of one it keeps.
        for (key, value) in edited {
            let name = key.string ?? ""
            if owns(name), !used.contains(name) { result.append((key, value)) }
        }
        return .mapping(Node.Mapping(result))
    }

    /// A read node as Yams writes it, scalars quoted where they were.
    static func yamsNode(_ node: YAMLNode) -> Node {
        switch node {
        case .scalar(let string, let isPlain, _): isPlain ? Node(string) : text(string)
        case .mapping(let pairs, _): .mapping(Node.Mapping(pairs.map { (yamsNode($0.key), yamsNode($0.value)) }))
        case .sequence(let elements, _): .sequence(Node.Sequence(elements.map(yamsNode)))
        }
    }

    /// `document` with the lines of the entry `name` under `section:` (`requests` or `groups`)
    /// replaced by `entry` (YAML for a one-key mapping, indented as the entry was), or removed
    /// when it is nil. The entry's trailing blank lines and comments belong to what follows and stay.
    static func replacingEntry(_ name: String, under section: String = "requests", with entry: String?, in document: String,
                               file: String) throws(WorkspaceError) -> String {
        guard case .mapping(let roots, _)? = try YAMLDocument.parse(document, file: file),
              let requestsIndex = roots.firstIndex(where: { if case .scalar(section, _, _) = $0.key { true } else { false } }),
              case .mapping(let entries, let blockPosition) = roots[requestsIndex].value,
              let index = entries.firstIndex(where: { if case .scalar(name, _, _) = $0.key { true } else { false } }) else {
            throw WorkspaceError(.undefined, at: nil, keyPath: section, "no entry \"\(name)\" under \(section) in \(file)")
        }
        let keyPosition = entries[index].key.position
        guard blockPosition.line != roots[requestsIndex].key.position.line,
              !entries.indices.contains(where: { $0 != index && entries[$0].key.position.line == keyPosition.line }) else {
            throw WorkspaceError(.invalid, at: keyPosition, keyPath: section,
                                 "\(section) is written on one line (flow style); write it as an indented block to edit it here")
        }
        var lines = document.components(separatedBy: "\n")
        let start = keyPosition.line - 1
        var end = index + 1 < entries.count ? entries[index + 1].key.position.line - 1
            : requestsIndex + 1 < roots.count ? roots[requestsIndex + 1].key.position.line - 1 : lines.count
        // Trailing blank lines and comments belong to what follows, unless a `#` line is indented
        // deeper than the key (the end of a block scalar).
        while end > start + 1, isBlankOrComment(lines[end - 1]),
              lines[end - 1].allSatisfy({ $0 == " " || $0 == "\t" }) || lines[end - 1].prefix(while: { $0 == " " }).count < keyPosition.column { end -= 1 }
        let replacement = entry.map { indent($0, by: keyPosition.column - 1).components(separatedBy: "\n") } ?? []
        lines.replaceSubrange(start..<end, with: replacement)
        return lines.joined(separator: "\n")
    }
}
