import CurlewAgent
import Foundation

/// A workspace: `curlew.yaml` and the files it includes, checked when loaded. Requests are kept
/// as written (with their templates) and built for an environment by `session(environment:overrides:)`.
public struct Workspace: Sendable {
    /// A named request as written.
    public struct NamedRequest: Sendable {
        public var name: String
        public var folder: String?
        public var description: String?
        public var expectations: [Expectation]
        /// The method and URL as written, for lists (templates not expanded).
        public var method: String
        public var url: String
        public var position: SourcePosition
        /// The config signer the request names, if any.
        public var signerName: String?
        /// The variable names its templates use.
        public var templateNames: Set<String>
        let node: YAMLNode
        /// The directory of the file that defines it: its relative paths start there.
        public let directory: String

        /// Whether its body is written as text (`body:`), where templates are filled in where
        /// they stand, rather than as `json:` members, each filled in as a whole string.
        public var bodyIsText: Bool {
            guard case .mapping(let pairs, _) = node else { return false }
            return pairs.contains { if case .scalar("body", _, _) = $0.key { true } else { false } }
        }
    }

    public static let fileName = "curlew.yaml"
    public static let secretsFileName = "curlew.secrets.yaml"
    static let topLevelKeys = ["include", "config", "environments", "defaultEnvironment", "variables", "secrets", "requests", "groups"]
    static let includedKeys = ["include", "environments", "variables", "secrets", "requests", "groups"]

    /// The main file.
    public var path: String
    /// Every file read: the main file, then its includes in the order met.
    public var files: [String] = []

    /// The secrets file beside the main file, whether it exists or not.
    public var secretsPath: String {
        (directory as NSString).appendingPathComponent(Self.secretsFileName)
    }

    public var environmentNames: [String] = []
    public var defaultEnvironment: String?
    public var requests: [NamedRequest] = []
    public var groups: [WorkspaceGroup] = []
    /// Names declared secret: their values come only from the secrets file.
    public var secretNames: [String] = []
    /// The process environment variables the files name (`{{$env.NAME}}`); their values are
    /// treated as secrets, since that is what they usually hold.
    public var environmentReferences: Set<String> = []
    var variables: [(name: String, value: String)] = []
    var environments: [String: [(name: String, value: String)]] = [:]
    var configNode: YAMLNode?
    var secrets = WorkspaceSecrets()

    public var directory: String { LocalFile.directory(of: path) }

    /// What `path` is to this workspace when writing a report or an export there would destroy
    /// it ("the workspace's secrets file", "a file of the workspace"), through links and
    /// relative paths and whether the secrets file exists yet or not; nil for any other path.
    public func ownFile(at path: String) -> String? {
        if LocalFile.namesSameFile(path, secretsPath) { return "the workspace's secrets file" }
        return files.contains { LocalFile.namesSameFile(path, $0) } ? "a file of the workspace" : nil
    }

    /// `curlew.yaml` in `directory`, or nil when there is none.
    public static func find(in directory: String = FileManager.default.currentDirectoryPath) -> String? {
        let path = (directory as NSString).appendingPathComponent(fileName)
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    /// Reads and checks a workspace, its includes and its secrets file.
    public static func load(path: String) throws(WorkspaceError) -> Workspace {
        try parse(YAMLDocument.readText(path: path), path: path)
    }

    /// Checks a workspace whose main file's text is `text`, as if read from `path` (includes and
    /// the secrets file are read from beside it).
    public static func parse(_ text: String, path: String) throws(WorkspaceError) -> Workspace {
        var workspace = Workspace(path: path)
        // The secrets file read as a workspace would be read as both, and a save into it would
        // write requests where its secrets belong (found by a new user's trial: a secret lost).
        if (path as NSString).lastPathComponent == secretsFileName || LocalFile.isSameFile(path, workspace.secretsPath) {
            throw WorkspaceError(.invalid, at: nil, "\(path) is the secrets file of the workspace in its folder, not a workspace: "
                                 + "give the workspace's file (curlew.yaml)")
        }
        var unresolved: [(group: Int, member: Int, name: String, position: SourcePosition)] = []
        try workspace.read(file: path, text: text, isMain: true, unresolved: &unresolved, including: [])
        try workspace.resolveMembers(unresolved)
        try workspace.checkGroupCycles()
        try workspace.checkSigners()
        workspace.secrets = try WorkspaceSecrets.load(path: workspace.secretsPath)
        try workspace.checkSecretsStayOutOfTheWorkspace()
        // An environment mistyped there would leave its secrets unused, unseen. Only a near miss
        // is refused: the file is the directory's, so it may hold another workspace's.
        for name in workspace.secrets.byEnvironment.keys.sorted() where !workspace.environmentNames.contains(name) {
            guard let meant = Suggestion.closest(to: name, among: workspace.environmentNames) else { continue }
            throw WorkspaceError(.undefined, at: nil, keyPath: "environments.\(name)",
                                 "\(secretsFileName) has secrets for no environment \"\(name)\" of the workspace (did you mean \"\(meant)\"?)")
        }
        if let name = workspace.defaultEnvironment, !workspace.environmentNames.contains(name) {
            throw WorkspaceError(.undefined, at: nil, keyPath: "defaultEnvironment",
                                 "no environment \"\(name)\"" + Suggestion.hint(for: name, among: workspace.environmentNames))
        }
        return workspace
    }

    /// The request of that name, as written.
    public func request(named name: String) -> NamedRequest? { requestIndex[name].map { requests[$0] } }
    /// Every name a chain of the workspace captures: requests that use one are built with it
    /// left as `{{name}}`, for the chain (or the interface, with what it captured) to fill in.
    public var capturedNames: Set<String> {
        Set(groups.flatMap { $0.members.flatMap { $0.captures.map(\.name) } })
    }

    /// The request of that name built with its templates and file paths as written (`{{token}}`
    /// stays `{{token}}`, `./photo.png` stays relative), for an editor that saves it back.
    public func requestAsWritten(named name: String) throws(WorkspaceError) -> Request {
        guard let named = request(named: name) else {
            throw WorkspaceError(.undefined, at: nil, keyPath: "requests", "no request \"\(name)\"" + Suggestion.hint(for: name, among: requests.map(\.name)))
        }
        return try RequestReader.read(NodeReader(named.node, keyPath: "requests.\(name)"), name: name, ReadContext(template: nil, directory: nil)).0
    }

    /// The group of that name, as written.
    public func group(named name: String) -> WorkspaceGroup? { groupIndex[name].map { groups[$0] } }
    private var requestIndex: [String: Int] = [:]
    private var groupIndex: [String: Int] = [:]

    /// The environment used when none is chosen: `defaultEnvironment`, else the first one.
    public var selectedEnvironmentByDefault: String? { defaultEnvironment ?? environmentNames.first }

    private mutating func read(file: String, text: String? = nil, isMain: Bool,
                               unresolved: inout [(group: Int, member: Int, name: String, position: SourcePosition)],
                               including: [String]) throws(WorkspaceError) {
        // Absolute and without links, so `./a.yaml`, `a.yaml` and a link to it are one file.
        let canonical = LocalFile.canonicalPath(file)
        guard !including.contains(canonical) else {
            throw WorkspaceError(.invalid, at: nil, keyPath: "include", "\(file) includes itself (through \(including.joined(separator: " -> ")))")
        }
        guard !files.contains(canonical) else { return }
        files.append(canonical)
        let source: String
        if let text { source = text } else { source = try YAMLDocument.readText(path: file) }
        environmentReferences.formUnion(Self.environmentNames(in: source))
        guard let root = try YAMLDocument.parse(source, file: file) else { return }
        let directory = LocalFile.directory(of: file)
        // Not quoted: an included file that is not a workspace's may be any file on the disk
        // (`.env`, `.netrc`), and a hostile workspace would print it into a CI job's log.
        if !isMain, case .scalar = root {
            throw NodeReader(root, keyPath: "").error("not a workspace file: an included file is a mapping of \(Self.includedKeys.joined(separator: ", "))")
        }
        var map = try NodeReader(root, keyPath: "").mapping()
        if isMain {
            configNode = map.take("config")?.node
            if configNode != nil {
                // Checked now, so a typo fails at load rather than at run time.
                _ = try ConfigReader.read(NodeReader(configNode!, keyPath: "config"), ReadContext(template: nil, directory: directory))
            }
            if let value = map.take("defaultEnvironment") { defaultEnvironment = try value.string() }
        }
        if let value = map.take("variables") { variables += try value.stringPairs() }
        if let value = map.take("secrets") { secretNames += try value.strings() }
        if let value = map.take("environments") {
            var environmentMap = try value.mapping()
            for name in environmentMap.keys {
                let entry = environmentMap.entry(name)
                let pairs = entry.node.isNull ? [] : try entry.stringPairs()
                if environments[name] == nil { environmentNames.append(name) }
                environments[name, default: []] += pairs
            }
        }
        if let value = map.take("requests") {
            var requestMap = try value.mapping()
            for name in requestMap.keys {
                let entry = requestMap.entry(name)
                if requestIndex[name] != nil, let existing = request(named: name) {
                    throw entry.error("request \"\(name)\" is already defined at \(existing.position)")
                }
                requestIndex[name] = requests.count
                let (built, annotations) = try RequestReader.read(entry, name: name, ReadContext(template: nil, directory: directory))
                var fields = try entry.mapping()
                let url = try fields.take("url")?.scalarText()
                requests.append(NamedRequest(name: name, folder: annotations.folder, description: annotations.description,
                                             expectations: annotations.expectations, method: built.method.rawValue, url: url ?? "",
                                             position: entry.node.position, signerName: built.signer,
                                             templateNames: Self.templateNames(in: entry.node), node: entry.node, directory: directory))
            }
        }
        if let value = map.take("groups") {
            var groupMap = try value.mapping()
            for name in groupMap.keys {
                let entry = groupMap.entry(name)
                if groupIndex[name] != nil, let existing = group(named: name) {
                    throw entry.error("group \"\(name)\" is already defined at \(existing.position)")
                }
                groupIndex[name] = groups.count
                let (group, bareNames) = try WorkspaceGroup.read(entry, name: name)
                for index in bareNames {
                    guard case .request(let label) = group.members[index].reference else { continue }
                    unresolved.append((groups.count, index, label, group.members[index].position))
                }
                groups.append(group)
            }
        }
        let includes = try map.take("include")?.strings() ?? []
        try map.finish(known: isMain ? Self.topLevelKeys : Self.includedKeys)
        for include in includes {
            let includePath = ReadContext(template: nil, directory: directory.isEmpty ? "." : directory).path(include)
            // Its values would be read as plain variables, shown and logged (found by a new
            // user's trial); a workspace's secrets come from its own secrets file only.
            // By the name it has and the name of the file it leads to (a link named otherwise).
            if (includePath as NSString).lastPathComponent == Self.secretsFileName || LocalFile.isSameFile(includePath, secretsPath)
                || (LocalFile.canonicalPath(includePath) as NSString).lastPathComponent == Self.secretsFileName {
                throw WorkspaceError(.invalid, at: nil, keyPath: "include", "\(include) is a secrets file, which is never included: "
                                     + "a workspace's secrets are read from the \(Self.secretsFileName) beside it")
            }
            try read(file: includePath, isMain: false, unresolved: &unresolved, including: including + [canonical])
        }
    }

    /// A bare member name is a request, else a group; a name that is both must say which.
    private mutating func resolveMembers(_ unresolved: [(group: Int, member: Int, name: String, position: SourcePosition)]) throws(WorkspaceError) {
        for item in unresolved {
            let isRequest = request(named: item.name) != nil
            let isGroup = group(named: item.name) != nil
            switch (isRequest, isGroup) {
            case (true, false): groups[item.group].members[item.member].reference = .request(item.name)
            case (false, true): groups[item.group].members[item.member].reference = .group(item.name)
            case (true, true):
                throw WorkspaceError(.invalid, at: item.position, keyPath: "groups.\(groups[item.group].name)",
                                     "\"\(item.name)\" is both a request and a group: write request: \(item.name) or group: \(item.name)")
            case (false, false):
                throw WorkspaceError(.undefined, at: item.position, keyPath: "groups.\(groups[item.group].name)",
                                     "no request or group \"\(item.name)\"" + Suggestion.hint(for: item.name, among: requests.map(\.name) + groups.map(\.name)))
            }
        }
        for group in groups {
            for member in group.members {
                switch member.reference {
                case .request(let name) where request(named: name) == nil:
                    throw WorkspaceError(.undefined, at: member.position, keyPath: "groups.\(group.name)",
                                         "no request \"\(name)\"" + Suggestion.hint(for: name, among: requests.map(\.name)))
                case .group(let name) where self.group(named: name) == nil:
                    throw WorkspaceError(.undefined, at: member.position, keyPath: "groups.\(group.name)",
                                         "no group \"\(name)\"" + Suggestion.hint(for: name, among: groups.map(\.name)))
                default: break
                }
            }
        }
    }

    /// Groups may share members but not contain themselves; each group is visited once, so
    /// groups that each hold the next twice do not take exponential time.
    private func checkGroupCycles() throws(WorkspaceError) {
        var done: Set<String> = []
        func visit(_ name: String, _ path: [String]) throws(WorkspaceError) {
            guard let group = group(named: name), !done.contains(name) else { return }
            if path.contains(name) {
                throw WorkspaceError(.invalid, at: group.position, keyPath: "groups.\(name)", "groups contain each other: \((path + [name]).joined(separator: " -> "))")
            }
            for member in group.members {
                if case .group(let child) = member.reference { try visit(child, path + [name]) }
            }
            done.insert(name)
        }
        for group in groups { try visit(group.name, []) }
        // A group's expanded size: refuse one that would run more than a million requests.
        var sizes: [String: Int] = [:]
        func size(_ name: String) -> Int {
            if let known = sizes[name] { return known }
            let total = group(named: name)?.members.reduce(0) { sum, member in
                switch member.reference {
                case .request: min(Int.max / 2, sum + 1)
                case .group(let child): min(Int.max / 2, sum + size(child))
                }
            } ?? 0
            sizes[name] = total
            return total
        }
        for group in groups where size(group.name) > Self.maxGroupRequests {
            throw WorkspaceError(.invalid, at: group.position, keyPath: "groups.\(group.name)",
                                 "the group expands to \(size(group.name)) requests; at most \(Self.maxGroupRequests) are allowed")
        }
    }

    /// The most requests one group may run, counting nested groups' members.
    public static let maxGroupRequests = 100_000

    /// The names in `{{$env.NAME}}` anywhere in `text`.
    static func environmentNames(in text: String) -> Set<String> {
        var names: Set<String> = []
        var rest = Substring(text)
        while let marker = rest.firstRange(ofASCII: "$env.") {
            let name = rest[marker.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "_" }
            if !name.isEmpty { names.insert(String(name)) }
            rest = rest[marker.upperBound...]
        }
        return names
    }

    /// Every variable name the templates in `node` use, at any depth.
    static func templateNames(in node: YAMLNode) -> Set<String> {
        switch node {
        case .scalar(let text, _, _): Set(Template.names(in: text))
        case .sequence(let elements, _): elements.reduce(into: Set()) { $0.formUnion(templateNames(in: $1)) }
        // Keys too, a `json:` member's or a parameter's name being filled in as its value is;
        // but not header names, which are never filled in.
        case .mapping(let pairs, _):
            pairs.reduce(into: Set()) { names, pair in
                if case .scalar("headers", _, _) = pair.key, case .mapping(let fields, _) = pair.value {
                    for field in fields { names.formUnion(templateNames(in: field.value)) }
                } else {
                    names.formUnion(templateNames(in: pair.key))
                    names.formUnion(templateNames(in: pair.value))
                }
            }
        }
    }

    /// A request's `signer` must be one the config declares.
    private func checkSigners() throws(WorkspaceError) {
        guard let configNode else {
            if let named = requests.first(where: { $0.signerName != nil }) {
                throw WorkspaceError(.undefined, at: named.position, keyPath: "requests.\(named.name).signer", "no signer is declared in config.signers")
            }
            return
        }
        let (_, _, signers) = try ConfigReader.read(NodeReader(configNode, keyPath: "config"), ReadContext(template: nil, directory: directory))
        let names = signers.map(\.name)
        for named in requests {
            guard let signer = named.signerName, !names.contains(signer) else { continue }
            throw WorkspaceError(.undefined, at: named.position, keyPath: "requests.\(named.name).signer",
                                 "no signer \"\(signer)\" in config.signers" + Suggestion.hint(for: signer, among: names))
        }
    }

    /// A declared secret must not have a value in a workspace file, which is committed.
    private func checkSecretsStayOutOfTheWorkspace() throws(WorkspaceError) {
        for name in secretNames {
            if variables.contains(where: { $0.name == name }) || environments.values.contains(where: { $0.contains { $0.name == name } }) {
                throw WorkspaceError(.invalid, at: nil, keyPath: "secrets",
                                     "\(name) is declared secret but has a value in the workspace; move the value to \(Self.secretsFileName)")
            }
        }
    }
}
