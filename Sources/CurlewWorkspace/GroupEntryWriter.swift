import CurlewAgent
import Foundation
import Yams

/// A group as the interface edits it: what kind it is, its members by name (with a chain step's
/// captures), how it runs and its folder. A description is not part of it: a save keeps it.
public struct GroupDefinition: Sendable, Equatable {
    /// One member: a request or group of the workspace, and what a chain step captures.
    public struct Member: Sendable, Equatable {
        public var reference: WorkspaceGroup.Member.Reference
        public var captures: [Capture]

        public init(_ reference: WorkspaceGroup.Member.Reference, captures: [Capture] = []) {
            self.reference = reference
            self.captures = captures
        }

        public var name: String {
            switch reference {
            case .request(let name), .group(let name): name
            }
        }
    }

    public var kind: WorkspaceGroup.Kind
    public var members: [Member]
    public var policy: BatchPolicy
    public var maxConcurrency: Int?
    public var maxInFlight: Int
    public var onFailure: ChainFailurePolicy
    public var priorityFirst: Bool
    /// The folder the group is listed under; nil at the top.
    public var folder: String?

    public init(kind: WorkspaceGroup.Kind, members: [Member] = [], policy: BatchPolicy = .all, maxConcurrency: Int? = nil,
                maxInFlight: Int = 2, onFailure: ChainFailurePolicy = .stop, priorityFirst: Bool = false, folder: String? = nil) {
        self.kind = kind
        self.members = members
        self.policy = policy
        self.maxConcurrency = maxConcurrency
        self.maxInFlight = maxInFlight
        self.onFailure = onFailure
        self.priorityFirst = priorityFirst
        self.folder = folder
    }

    /// The definition of a group as the workspace read it.
    public init(_ group: WorkspaceGroup) {
        self.init(kind: group.kind, members: group.members.map { Member($0.reference, captures: $0.captures) }, policy: group.policy,
                  maxConcurrency: group.maxConcurrency, maxInFlight: group.maxInFlight, onFailure: group.onFailure,
                  priorityFirst: group.priorityFirst, folder: group.folder)
    }

    /// The entry's fields as YAML, writing only what differs from the defaults and what applies
    /// to the kind (a policy is a batch's, `onFailure` a chain's).
    var node: Node.Mapping {
        let memberNodes = members.map { member -> Node in
            switch member.reference {
            case .request(let name) where member.captures.isEmpty: return WorkspaceWriter.text(name)
            case .request(let name), .group(let name):
                var pairs: [(Node, Node)] = [(Node(member.reference == .request(name) ? "request" : "group"), WorkspaceWriter.text(name))]
                if kind == .chain, !member.captures.isEmpty {
                    pairs.append((Node("capture"), .mapping(Node.Mapping(member.captures.map {
                        (WorkspaceWriter.text($0.name), WorkspaceWriter.text(WorkspaceWriter.captureSource($0.source)))
                    }))))
                }
                return .mapping(Node.Mapping(pairs))
            }
        }
        var pairs: [(Node, Node)] = folder.map { [(Node("folder"), WorkspaceWriter.text($0))] } ?? []
        pairs.append((Node(kind.rawValue), .sequence(Node.Sequence(memberNodes))))
        switch kind {
        case .batch:
            switch policy {
            case .all: break
            case .any: pairs.append((Node("policy"), Node("any")))
            case .required(let indices):
                pairs.append((Node("policy"), .mapping(Node.Mapping([(Node("required"), .sequence(Node.Sequence(indices.sorted().map { Node(String($0)) })))]))))
            }
            if let maxConcurrency { pairs.append((Node("maxConcurrency"), Node(String(maxConcurrency)))) }
        case .chain:
            if onFailure == .continue { pairs.append((Node("onFailure"), Node("continue"))) }
        case .window:
            pairs.append((Node("maxInFlight"), Node(String(maxInFlight))))
        }
        if priorityFirst { pairs.append((Node("priorityFirst"), Node("true"))) }
        return Node.Mapping(pairs)
    }
}

/// Saves and deletes group entries of a workspace, as the interface's group editor does: the
/// entry's lines are replaced (or a new entry added at the end of `groups:`), the rest of the
/// file stays exactly as written, and a result that would not load is never written.
extension WorkspaceWriter {
    /// The keys a group save writes; the entry's `description` stays.
    static let editedGroupKeys: Set<String> = Set(WorkspaceGroup.keys).subtracting(["description"])

    /// Saves `group` as the entry `name` of the workspace at `path`, in place of `previous` (a
    /// rename) or of `name` where that exists, else at the end of `groups:`.
    @discardableResult
    public static func save(group: GroupDefinition, named name: String, replacing previous: String? = nil,
                            in path: String) throws(WorkspaceError) -> Summary {
        let (document, original, workspace) = try documentSaving(group, named: name, replacing: previous, in: path)
        var summary = Summary()
        summary.groups = [name]
        let secretsPath = secretsPath(for: path, existing: workspace)
        try write(document, original: original, to: path, existing: workspace, secrets: [], stored: try WorkspaceSecrets.load(path: secretsPath),
                  at: secretsPath, summary: &summary, action: "saving \(name)")
        return summary
    }

    /// The workspace file's text as it would be with `group` saved, without writing it: the
    /// interface runs a group being edited from this, so what runs is what a save would write.
    public static func workspaceSaving(_ group: GroupDefinition, named name: String, replacing previous: String? = nil,
                                       in path: String) throws(WorkspaceError) -> Workspace {
        let (document, _, _) = try documentSaving(group, named: name, replacing: previous, in: path)
        return try Workspace.parse(document, path: path)
    }

    /// Removes the group entry `name`; a group that names it makes the result invalid, and then
    /// nothing is written.
    public static func delete(groupNamed name: String, in path: String) throws(WorkspaceError) {
        try deleteEntry(name, under: "groups", in: path) { $0.group(named: name)?.position }
    }

    private static func documentSaving(_ group: GroupDefinition, named name: String, replacing previous: String?,
                                       in path: String) throws(WorkspaceError) -> (document: String, original: String, workspace: Workspace) {
        let workspace = try Workspace.load(path: path)
        guard !name.trimmingCharacters(in: .whitespaces).isEmpty else { throw WorkspaceError(.invalid, at: nil, "a group needs a name") }
        if workspace.request(named: name) != nil {
            throw WorkspaceError(.invalid, at: nil, keyPath: "groups", "\"\(name)\" is the name of a request; give the group another name")
        }
        if let previous, previous != name, workspace.group(named: name) != nil {
            throw WorkspaceError(.invalid, at: nil, keyPath: "groups", "a group named \"\(name)\" already exists")
        }
        let target = workspace.group(named: previous ?? name)
        if let target, target.position.file != path {
            throw WorkspaceError(.invalid, at: target.position, keyPath: "groups.\(target.name)", "\(target.name) is defined in an included file; edit it there")
        }
        let original = try YAMLDocument.readText(path: path)
        var document = normalizingLineEnds(original)
        let value: Node
        if let target, let existing = try existingNode(of: target.name, in: document, file: path) {
            value = merged(group.node, into: existing, owns: editedGroupKeys.contains)
        } else {
            value = .mapping(group.node)
        }
        let entry = try serialize([(text(name), value)])
        if let target {
            document = try replacingEntry(target.name, under: "groups", with: entry, in: document, file: path)
        } else {
            document = try insert(entry, under: ["groups"], into: document, file: path)
        }
        return (document, original, workspace)
    }

    /// The entry's node under `groups:` as the file has it.
    private static func existingNode(of name: String, in document: String, file: String) throws(WorkspaceError) -> YAMLNode? {
        guard case .mapping(let roots, _)? = try YAMLDocument.parse(document, file: file),
              case .mapping(let entries, _)? = roots.first(where: { if case .scalar("groups", _, _) = $0.key { true } else { false } })?.value else { return nil }
        return entries.first { if case .scalar(name, _, _) = $0.key { true } else { false } }?.value
    }
}
