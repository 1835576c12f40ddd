import CurlewAgent

/// An entry of `groups:`: a batch, chain or ordered window of named requests and groups.
public struct WorkspaceGroup: Sendable {
    public enum Kind: String, Sendable {
        case batch, chain, window
    }

    /// One member: a request or group by name, with what a chain step captures.
    public struct Member: Sendable {
        /// What a member names: a request or a group of the workspace.
        public enum Reference: Sendable, Equatable {
            case request(String)
            case group(String)
        }

        public var reference: Reference
        public var captures: [Capture]
        var position: SourcePosition
    }

    public var name: String
    public var kind: Kind
    public var members: [Member]
    public var policy: BatchPolicy
    public var maxConcurrency: Int?
    public var maxInFlight: Int
    public var onFailure: ChainFailurePolicy
    /// Runs ahead of everything else the agent has queued (priority-first).
    public var priorityFirst: Bool
    public var folder: String?
    public var position: SourcePosition

    static let keys = ["batch", "chain", "window", "policy", "maxConcurrency", "maxInFlight", "onFailure", "priorityFirst", "folder", "description"]

    /// Reads a group; member names are resolved once every file is read.
    static func read(_ node: NodeReader, name: String) throws(WorkspaceError) -> (WorkspaceGroup, bareNames: [Int]) {
        var map = try node.mapping()
        let kinds = ["batch", "chain", "window"].filter { map.keys.contains($0) }
        guard kinds.count == 1 else {
            throw node.error(kinds.isEmpty ? "a group needs one of batch, chain or window (a list of members)" : "a group is one of batch, chain or window, not \(kinds.joined(separator: " and "))")
        }
        let kind = Kind(rawValue: kinds[0])!
        var group = WorkspaceGroup(name: name, kind: kind, members: [], policy: .all, maxConcurrency: nil, maxInFlight: 2,
                                   onFailure: .stop, priorityFirst: false, folder: nil, position: node.node.position)
        var bareNames: [Int] = []
        for memberNode in try map.require(kinds[0], "a list of members").list() {
            var captures: [Capture] = []
            let label: String
            var reference: Member.Reference?
            if case .mapping = memberNode.node {
                var memberMap = try memberNode.mapping()
                if let request = memberMap.take("request") { reference = .request(try request.string()) }
                if let nested = memberMap.take("group") {
                    guard reference == nil else { throw memberNode.error("a member is a request or a group, not both") }
                    reference = .group(try nested.string())
                }
                guard reference != nil else { throw memberNode.error("expected request: NAME or group: NAME") }
                if let capture = memberMap.take("capture") {
                    guard kind == .chain else { throw capture.error("only chain steps capture values") }
                    captures = try Self.captures(capture)
                }
                try memberMap.finish(known: WorkspaceKeys.member)
                label = ""
            } else {
                label = try memberNode.string()
                bareNames.append(group.members.count)
            }
            group.members.append(Member(reference: reference ?? .request(label), captures: captures, position: memberNode.node.position))
        }
        if let value = map.take("policy") {
            guard kind == .batch else { throw value.error("policy applies to a batch") }
            group.policy = try policy(value, memberCount: group.members.count)
        }
        if let value = map.take("maxConcurrency") { group.maxConcurrency = try value.int(in: 1...1000) }
        if let value = map.take("maxInFlight") { group.maxInFlight = try value.int(in: 1...1000) }
        if let value = map.take("onFailure") { group.onFailure = try value.oneOf([("stop", .stop), ("continue", .continue)]) }
        if let value = map.take("priorityFirst") { group.priorityFirst = try value.bool() }
        group.folder = try map.take("folder")?.string()
        _ = map.take("description")
        try map.finish(known: keys)
        return (group, bareNames)
    }

    /// `all`, `any`, or `{required: [0, 2]}` (member positions from 0), each position one of
    /// the batch's `memberCount` members: a position past them would make the batch succeed
    /// whatever its members did.
    static func policy(_ node: NodeReader, memberCount: Int) throws(WorkspaceError) -> BatchPolicy {
        if case .scalar = node.node { return try node.oneOf([("all", .all), ("any", .any)]) }
        var map = try node.mapping()
        let required = try map.require("required", "a list of member positions")
        var indices: Set<Int> = []
        for index in try required.listOrOne() {
            guard memberCount > 0 else { throw index.error("the batch has no members to require") }
            let position = try index.int(in: 0...10_000)
            guard position < memberCount else {
                throw index.error("the batch has no member \(position): positions count from 0, so its \(memberCount) member\(memberCount == 1 ? " is" : "s are") 0"
                    + (memberCount == 1 ? "" : " to \(memberCount - 1)"))
            }
            indices.insert(position)
        }
        guard !indices.isEmpty else { throw required.error("name at least one required member position (from 0), or use the policy all or any") }
        try map.finish(known: WorkspaceKeys.requiredPolicy)
        return .required(indices)
    }

    /// `{token: $.token, session: header Set-Cookie, code: status}`.
    static func captures(_ node: NodeReader) throws(WorkspaceError) -> [Capture] {
        var map = try node.mapping()
        var captures: [Capture] = []
        for name in map.keys {
            let entry = map.entry(name)
            switch capture(name, from: try entry.string()) {
            case .success(let capture): captures.append(capture)
            case .failure(let problem): throw entry.error(problem.reason)
            }
        }
        return captures
    }

    /// Why a capture's source cannot be read.
    public struct CaptureProblem: Error, Sendable {
        public var reason: String

        public init(reason: String) {
            self.reason = reason
        }
    }

    /// A capture from how a workspace writes its source: a JSON path (`$.token`), `header NAME`
    /// or `status`.
    public static func capture(_ name: String, from source: String) -> Result<Capture, CaptureProblem> {
        // A name a template can use as `{{name}}`: never a built-in (`$env.HOME` reads the
        // environment), a space or a brace (found by a new user's trial).
        guard ChainVariables.isVariableName(name) else {
            return .failure(CaptureProblem(reason: "\(ClippedText.quoted(name, limit: 80)) cannot name a captured value: use letters, digits, _, - and ."))
        }
        if source == "status" { return .success(Capture(name, from: .status)) }
        if source.hasPrefix("header ") {
            let header = String(source.dropFirst(7)).trimmingCharacters(in: .whitespaces)
            return header.isEmpty ? .failure(CaptureProblem(reason: "header needs a name: header Set-Cookie")) : .success(Capture(name, from: .header(header)))
        }
        do { _ = try JSONPath(source) } catch { return .failure(CaptureProblem(reason: "expected a JSON path ($.token), header NAME or status: \(error.message)")) }
        return .success(.json(name, source))
    }
}
