/// A member of a group: a request, or another group (groups nest).
public enum GroupMember: Sendable {
    case request(Request)
    case group(RequestGroup)

    /// A label for logs and the UI: the request's or group's name (as it is: a name is the
    /// user's own word), else the request's path with its passwords and secret query parameters
    /// hidden, as everything shown of a request before a log sees it.
    public var label: String {
        label(sendingAlso: [])
    }

    /// `label`, hiding also the credentials of the `Authorization` fields among `defaults`: the
    /// default headers of the config that sends the request, as a group's events name it.
    func label(sendingAlso defaults: [HeaderField]) -> String {
        switch self {
        case .request(let request):
            request.name ?? RequestKey.hidingSecretParameters(in: request.hidingPasswords(in: request.customURL ?? request.path, sendingAlso: defaults)) { _ in
                RedactionPolicy.marker
            }
        case .group(let group): group.name ?? group.kind.label
        }
    }
}

/// When a batch succeeds or fails.
public enum BatchPolicy: Sendable, Equatable {
    /// Every member must succeed; the first failure cancels the rest and fails the batch
    /// (YTKNetwork, CCNetwork).
    case all
    /// The members at these indices must succeed; a failing one cancels the rest and fails the
    /// batch at once. Others may fail. Succeeds when all have finished and every required one
    /// succeeded (JKNetworking).
    case required(Set<Int>)
    /// Waits for every member; succeeds if at least one succeeded, fails only if all failed.
    case any
}

/// What a chain does when a step fails.
public enum ChainFailurePolicy: Sendable, Equatable {
    /// The remaining steps never start and the chain fails.
    case stop
    /// The remaining steps run; the chain fails at the end if any step failed.
    case `continue`
}

/// One step of a chain: a member, the values to capture from its response, and a callback that
/// runs after it finishes and before the next step starts.
public struct ChainStep: Sendable {
    public var member: GroupMember
    public var captures: [Capture]
    public var onFinish: (@Sendable (ChainStepContext) -> Void)?

    public init(_ member: GroupMember, captures: [Capture] = [], onFinish: (@Sendable (ChainStepContext) -> Void)? = nil) {
        self.member = member
        self.captures = captures
        self.onFinish = onFinish
    }

    public init(_ request: Request, captures: [Capture] = [], onFinish: (@Sendable (ChainStepContext) -> Void)? = nil) {
        self.init(.request(request), captures: captures, onFinish: onFinish)
    }
}

/// A value taken from a step's response into a chain variable, used later as `{{name}}`.
public struct Capture: Sendable, Equatable {
    public enum Source: Sendable, Equatable {
        /// A JSON path into the body: `$.token`, `$.items[0].id`, `$['odd key']`.
        case jsonPath(String)
        /// A response header, by name in any case.
        case header(String)
        /// The status code.
        case status
    }

    public var name: String
    public var source: Source

    public init(_ name: String, from source: Source) {
        self.name = name
        self.source = source
    }

    public static func json(_ name: String, _ path: String) -> Capture {
        Capture(name, from: .jsonPath(path))
    }
}

/// What a capture took from a step's response.
public struct CapturedValue: Sendable {
    public var capture: Capture
    public var value: String
}

/// A group of requests: a batch, a chain or an ordered window. A value: build it, then start it
/// with `Agent.start(_:callbacks:)`, which returns the live `GroupHandle`.
public struct RequestGroup: Sendable {
    public enum Kind: String, Sendable, Codable {
        case batch
        case chain
        case orderedWindow

        /// How the interface, the CLI and a workspace name it: `batch`, `chain`, `window`.
        public var label: String {
            self == .orderedWindow ? "window" : rawValue
        }
    }

    enum Plan: Sendable {
        case batch([GroupMember], policy: BatchPolicy, maxConcurrency: Int?)
        case chain([ChainStep], onFailure: ChainFailurePolicy)
        case orderedWindow([GroupMember], maxInFlight: Int)
    }

    public var name: String?
    let plan: Plan
    /// A chain's names to fill in its steps' `{{name}}` (what its steps capture); any other
    /// `{{name}}` is text and goes out as written. nil: every `{{name}}` is filled, a name no step
    /// captured fails the step, naming the ones known, and a `\{{` is a literal `{{`. A member
    /// whose request has a `captureFilling` is made by it instead. A batch or window fills
    /// nothing (and reads no escape) unless it names what it fills or runs inside a chain that
    /// captured something before it.
    public var fillsOnly: Set<String>?

    public var kind: Kind {
        switch plan {
        case .batch: .batch
        case .chain: .chain
        case .orderedWindow: .orderedWindow
        }
    }

    /// A chain's steps, for running it one step at a time; nil for other groups.
    public var chainSteps: [ChainStep]? {
        if case .chain(let steps, _) = plan { return steps }
        return nil
    }

    /// Every request the group holds, its nested groups' included, in order.
    public var requests: [Request] {
        let members: [GroupMember] = switch plan {
        case .batch(let members, _, _), .orderedWindow(let members, _): members
        case .chain(let steps, _): steps.map(\.member)
        }
        return members.flatMap { member -> [Request] in
            switch member {
            case .request(let request): [request]
            case .group(let group): group.requests
            }
        }
    }

    /// The members' labels in order, as observers see them when the group runs.
    public var memberLabels: [String] {
        switch plan {
        case .batch(let members, _, _), .orderedWindow(let members, _): members.map(\.label)
        case .chain(let steps, _): steps.map(\.member.label)
        }
    }

    /// How the group runs, in words: a batch's policy and concurrency (members counted from 1,
    /// as lists show them), a chain's failure policy, a window's size.
    public var planDescription: String {
        switch plan {
        case .batch(_, let policy, let concurrency):
            let rule = switch policy {
            case .all: "every member must succeed"
            case .required(let indices): "members \(indices.sorted().map { String($0 + 1) }.joined(separator: ", ")) must succeed"
            case .any: "succeeds if any member does"
            }
            return rule + (concurrency.map { ", at most \($0) at a time" } ?? ", all at once")
        case .chain(_, let onFailure): return "one after another, each step may use what the earlier ones captured; on a failure: \(onFailure)"
        case .orderedWindow(_, let size): return "in order, at most \(size) in flight, answers delivered in order"
        }
    }

    /// Members start together, at most `maxConcurrency` at a time (nil: no limit beyond the
    /// agent's connection limits), and the batch ends by `policy`.
    public static func batch(_ members: [GroupMember], policy: BatchPolicy = .all, maxConcurrency: Int? = nil, name: String? = nil) -> RequestGroup {
        RequestGroup(name: name, plan: .batch(members, policy: policy, maxConcurrency: maxConcurrency.map { max(1, $0) }))
    }

    public static func batch(_ requests: [Request], policy: BatchPolicy = .all, maxConcurrency: Int? = nil, name: String? = nil) -> RequestGroup {
        batch(requests.map(GroupMember.request), policy: policy, maxConcurrency: maxConcurrency, name: name)
    }

    /// Steps run one after another; each starts once the previous one finished and its
    /// `onFinish` returned. Captured values fill `{{name}}` in later steps.
    public static func chain(_ steps: [ChainStep], onFailure: ChainFailurePolicy = .stop, name: String? = nil) -> RequestGroup {
        RequestGroup(name: name, plan: .chain(steps, onFailure: onFailure))
    }

    /// An ordered queue with at most `maxInFlight` members running; failures do not stop it
    /// (HLNetworking's chain mode with `maxRequestCount`). Succeeds if every member succeeded.
    public static func orderedWindow(_ members: [GroupMember], maxInFlight: Int, name: String? = nil) -> RequestGroup {
        RequestGroup(name: name, plan: .orderedWindow(members, maxInFlight: max(1, maxInFlight)))
    }

    public static func orderedWindow(_ requests: [Request], maxInFlight: Int, name: String? = nil) -> RequestGroup {
        orderedWindow(requests.map(GroupMember.request), maxInFlight: maxInFlight, name: name)
    }

    /// Members in order (for a chain: its initial steps).
    /// Why running the group would run nothing somewhere: it, or a group nested in it at any
    /// depth, has no members (and would succeed at once); nil when every one has some.
    /// `name` is how the caller names this group.
    public func emptyGroupProblem(named name: String) -> String? {
        if members.isEmpty { return "\(name) has no members: nothing would run" }
        return firstEmptyNestedGroup.map { "\(name) holds \($0.name ?? $0.kind.label), which has no members: nothing would run for it" }
    }

    /// The first group nested in this one, at any depth, that has no members.
    private var firstEmptyNestedGroup: RequestGroup? {
        for case .group(let child) in members {
            if child.members.isEmpty { return child }
            if let empty = child.firstEmptyNestedGroup { return empty }
        }
        return nil
    }

    public var members: [GroupMember] {
        switch plan {
        case .batch(let members, _, _), .orderedWindow(let members, _): members
        case .chain(let steps, _): steps.map(\.member)
        }
    }

    /// The same group with every request in it, at any depth, passed through `transform`; a
    /// request made from captured values (`captureFilling`) is passed through it once made.
    public func mappingRequests(_ transform: @escaping @Sendable (Request) -> Request) -> RequestGroup {
        func map(_ member: GroupMember) -> GroupMember {
            switch member {
            case .request(var request):
                if let filling = request.captureFilling {
                    request.captureFilling = CaptureFilling { variables throws(RequestError) in transform(try filling.request(with: variables)) }
                }
                return .request(transform(request))
            case .group(let group): return .group(group.mappingRequests(transform))
            }
        }
        let mapped: Plan = switch plan {
        case .batch(let members, let policy, let maxConcurrency): .batch(members.map(map), policy: policy, maxConcurrency: maxConcurrency)
        case .chain(let steps, let onFailure):
            .chain(steps.map { ChainStep(map($0.member), captures: $0.captures, onFinish: $0.onFinish) }, onFailure: onFailure)
        case .orderedWindow(let members, let maxInFlight): .orderedWindow(members.map(map), maxInFlight: maxInFlight)
        }
        var group = RequestGroup(name: name, plan: mapped)
        group.fillsOnly = fillsOnly
        return group
    }
}
