import CurlewAgent

/// One group as the Groups pane shows it, built from group events alone.
public struct GroupRecord: Sendable {
    public struct Member: Sendable {
        public var label: String
        public var state: RequestState
        public var waitReason: WaitReason?
        public var progress: RequestProgress?
        public var statusCode: Int?
        public var error: RequestError?
        public var childGroupID: UInt64?
        /// The member's request, whose debug message has its real timings.
        public var requestID: UInt64?
        /// Microseconds since the group started, by the agent's clock.
        public var startedAt: Int64?
        public var finishedAt: Int64?
        /// How many of its request's `expect:` assertions failed, once judged.
        public var failedAssertions = 0

        /// Cancelled before it started (its group stopped first): it never ran.
        public var neverRan: Bool { state == .cancelled && startedAt == nil && requestID == nil && statusCode == nil && childGroupID == nil }
    }

    public var info: GroupInfo
    public var members: [Member]
    public var waiting = false
    public var started: ContinuousClock.Instant?
    public var verdict: GroupVerdict?
    public var duration: Int64?
    public var captures: [(name: String, value: String)] = []
    /// How many of its requests' `expect:` assertions failed, nested groups' included, once it
    /// finished in a workspace (the agent's verdict does not know them; `curlew run` counts the same).
    public var failedAssertions = 0

    /// Members that ran to an end (succeeded or failed); cancelled ones are counted apart, so a
    /// cancelled group never shows as complete.
    public var completedCount: Int { members.filter { $0.state == .succeeded || $0.state == .failed }.count }
    public var cancelledCount: Int { members.filter { $0.state == .cancelled && !$0.neverRan }.count }
    /// Members the group stopped before they started, as `curlew run` lists them: not run.
    public var notRunCount: Int { members.filter(\.neverRan).count }
}

/// Every running and finished group, oldest first, bounded.
public struct GroupsState: Sendable {
    public private(set) var groups: [GroupRecord] = []
    public let capacity: Int
    public var selected = 0
    /// Member selection inside the selected group, when focused on members.
    public var selectedMember: Int?
    /// A group the user just ran whose first event has not arrived yet: until it does, the pane
    /// shows it as starting and keys that act on a group wait for it, instead of acting on the
    /// group selected before.
    public private(set) var awaitedID: UInt64?

    public init(capacity: Int = 200) {
        self.capacity = capacity
    }

    public func group(id: UInt64) -> GroupRecord? {
        groups.first { $0.info.id == id }
    }

    /// Records how many assertions of the member at `index` of group `id` failed.
    mutating func setFailedAssertions(_ count: Int, group id: UInt64, member index: Int) {
        guard let position = groups.firstIndex(where: { $0.info.id == id }), groups[position].members.indices.contains(index) else { return }
        groups[position].members[index].failedAssertions = count
    }

    /// Every captured variable, newest last, for `{{name}}` in Compose.
    public var capturedVariables: [(name: String, value: String)] {
        groups.flatMap(\.captures)
    }

    /// What group `id` and the groups holding it captured so far, outermost first: the values
    /// a member of it starting now is filled with (a nested group starts with its parent's).
    public func capturedValues(inGroup id: UInt64) -> [(name: String, value: String)] {
        var lineage: [GroupRecord] = []
        var next: UInt64? = id
        while let current = next, lineage.count < groups.count, let record = groups.first(where: { $0.info.id == current }) {
            lineage.append(record)
            next = record.info.parentID
        }
        return lineage.reversed().flatMap(\.captures)
    }

    /// The user ran group `id`: it is selected as soon as it is heard of.
    public mutating func awaitRun(id: UInt64) {
        awaitedID = groups.contains { $0.info.id == id } ? nil : id
    }

    /// Drops the oldest finished group no kept group is nested in, so a long run (latency mode's
    /// batch of thousands of chains) keeps its own row while its oldest runs go; the oldest of
    /// all only when every group still runs.
    private mutating func evictOne() {
        let parents = Set(groups.compactMap(\.info.parentID))
        let index = groups.firstIndex { $0.verdict != nil && !parents.contains($0.info.id) } ?? 0
        groups.remove(at: index)
        if index < selected {
            selected -= 1
        } else if index == selected {
            selected = min(selected, max(0, groups.count - 1))
            selectedMember = nil
        }
    }

    /// Records how many assertions failed in the finished group `id`.
    mutating func noteFailedAssertions(_ count: Int, inGroup id: UInt64) {
        guard let index = groups.firstIndex(where: { $0.info.id == id }) else { return }
        groups[index].failedAssertions = count
    }

    public mutating func apply(_ event: GroupEvent) {
        let id = event.group.id
        if id == awaitedID { awaitedID = nil }
        if case .created(let info, let labels) = event {
            groups.append(GroupRecord(info: info, members: labels.map { GroupRecord.Member(label: $0, state: .created) }))
            while groups.count > capacity { evictOne() }
            // A new top-level group is what the user just ran: show it.
            if info.parentID == nil {
                selected = groups.count - 1
                selectedMember = nil
            }
            return
        }
        guard let index = groups.lastIndex(where: { $0.info.id == id }) else { return }
        switch event {
        case .created:
            break
        case .waiting:
            groups[index].waiting = true
        case .started(_, let at):
            groups[index].waiting = false
            groups[index].started = at
        case .memberChanged(_, let update):
            while groups[index].members.count <= update.index {
                groups[index].members.append(GroupRecord.Member(label: update.label, state: .created))
            }
            var member = groups[index].members[update.index]
            member.label = update.label
            member.state = update.state
            member.waitReason = update.waitReason
            if let progress = update.progress { member.progress = progress }
            if let status = update.statusCode { member.statusCode = status }
            if let error = update.error { member.error = error }
            if let child = update.childGroupID { member.childGroupID = child }
            if let requestID = update.requestID { member.requestID = requestID }
            let elapsed = groups[index].started.map { (update.at - $0).wholeMicroseconds }
            if update.state == .inFlight, member.startedAt == nil { member.startedAt = elapsed }
            if update.state == .pending, update.waitReason == nil { member.startedAt = elapsed }
            if update.state.isTerminal { member.finishedAt = elapsed }
            groups[index].members[update.index] = member
        case .captured(_, _, let name, let value, _):
            groups[index].captures.append((name, value))
        case .stepAdded(_, let memberIndex, let label):
            while groups[index].members.count <= memberIndex {
                groups[index].members.append(GroupRecord.Member(label: label, state: .pending, waitReason: .queued))
            }
        case .finished(_, let verdict, let duration, _):
            groups[index].verdict = verdict
            groups[index].duration = duration
        }
    }
}
