import Foundation
import CurlewAgent
import CurlewWorkspace

/// The rows of the group editor, top to bottom.
public enum GroupField: Sendable, Equatable {
    case name, folder, kind, policy, required, maxConcurrency, maxInFlight, onFailure, priorityFirst, membersHeading
    case member(Int), captures(Int)

    /// Chosen with ←/→ rather than typed.
    var isChoice: Bool {
        switch self {
        case .kind, .policy, .onFailure, .priorityFirst, .member: true
        default: false
        }
    }
}

/// A group being defined or edited in Compose: its name, its definition as a save would write it,
/// and the form's cursor.
public struct GroupEditor: Sendable {
    public var name: String
    /// The entry it was read from; nil for a group not saved yet.
    public var entryName: String?
    public var definition: GroupDefinition
    /// The definition as the file has it (nil for a new group): anything else is unsaved.
    public var saved: GroupDefinition?
    /// The list item it edits; nil for a new group.
    public var item: Int?
    /// What a member may name: the workspace's requests, then its other groups.
    public var choices: [WorkspaceGroup.Member.Reference]
    public var fieldIndex = 0
    /// The text field being edited, with the field it edits.
    public var editing: (field: GroupField, editor: LineEditor)?
    /// Esc was pressed once on a new group that is not saved: a second Esc drops it.
    public var confirmingDiscard = false

    public init(name: String, entryName: String?, definition: GroupDefinition, item: Int?, choices: [WorkspaceGroup.Member.Reference]) {
        self.name = name
        self.entryName = entryName
        self.definition = definition
        saved = entryName == nil ? nil : definition
        self.item = item
        self.choices = choices
    }

    /// The group differs from its entry, or has none yet.
    public var isUnsaved: Bool { saved == nil || definition != saved || name != entryName }

    public var fields: [GroupField] {
        var fields: [GroupField] = [.name, .folder, .kind]
        switch definition.kind {
        case .batch:
            fields.append(.policy)
            if case .required = definition.policy { fields.append(.required) }
            fields.append(.maxConcurrency)
        case .chain: fields.append(.onFailure)
        case .window: fields.append(.maxInFlight)
        }
        fields += [.priorityFirst, .membersHeading]
        for index in definition.members.indices {
            fields.append(.member(index))
            if definition.kind == .chain { fields.append(.captures(index)) }
        }
        return fields
    }

    public var field: GroupField {
        let all = fields
        return all[min(fieldIndex, all.count - 1)]
    }

    /// The member the cursor is on (its row or its captures' row).
    var memberIndex: Int? {
        switch field {
        case .member(let index), .captures(let index): index
        default: nil
        }
    }

    /// Cycles a choice field by `delta`: the kind, the policy, what a chain does on failure,
    /// priority-first, and which request or group a member names.
    mutating func cycle(by delta: Int) {
        func next<T: Equatable>(_ values: [T], _ current: T) -> T {
            let index = values.firstIndex(of: current) ?? 0
            return values[(index + delta % values.count + values.count) % values.count]
        }
        switch field {
        case .kind: definition.kind = next([.batch, .chain, .window], definition.kind)
        case .policy:
            let current: Int = switch definition.policy {
            case .all: 0
            case .any: 1
            case .required: 2
            }
            // Required members need members to name.
            let choices = definition.members.isEmpty ? [0, 1] : [0, 1, 2]
            definition.policy = [BatchPolicy.all, .any, .required([0])][next(choices, min(current, choices.count - 1))]
        case .onFailure: definition.onFailure = definition.onFailure == .stop ? .continue : .stop
        case .priorityFirst: definition.priorityFirst.toggle()
        case .member(let index):
            guard !choices.isEmpty else { return }
            definition.members[index].reference = next(choices, definition.members[index].reference)
            if case .group = definition.members[index].reference { definition.members[index].captures = [] }
        default: break
        }
    }

    /// Text of a field for the line editor; nil for a field that is chosen, not typed.
    func text(of field: GroupField) -> String? {
        switch field {
        case .name: name
        case .folder: definition.folder ?? ""
        case .required:
            if case .required(let indices) = definition.policy { indices.sorted().map { String($0 + 1) }.joined(separator: ", ") } else { "" }
        case .maxConcurrency: definition.maxConcurrency.map(String.init) ?? ""
        case .maxInFlight: String(definition.maxInFlight)
        case .captures(let index): Self.capturesText(definition.members[index].captures)
        case .kind, .policy, .onFailure, .priorityFirst, .membersHeading, .member: nil
        }
    }

    /// Stores edited text into a field; returns a message when the text does not fit it.
    mutating func commit(_ text: String, to field: GroupField) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch field {
        case .name:
            guard !trimmed.isEmpty else { return "a group needs a name" }
            name = trimmed
        case .folder: definition.folder = RequestDraft.folder(typed: trimmed)
        case .required:
            guard !definition.members.isEmpty else { return "the group has no members to require: a adds one" }
            var indices = Set<Int>()
            for part in trimmed.split(whereSeparator: { $0 == "," || $0 == " " }) {
                guard let position = Int(part), (1...definition.members.count).contains(position) else {
                    return "required members are positions from 1 to \(definition.members.count), as in 1, 3"
                }
                indices.insert(position - 1)
            }
            guard !indices.isEmpty else { return "name at least one required member (1, 3), or choose the policy all or any" }
            definition.policy = .required(indices)
        case .maxConcurrency:
            if trimmed.isEmpty { definition.maxConcurrency = nil; return nil }
            guard let value = Int(trimmed), (1...1000).contains(value) else { return "at most 1 to 1000 members at once (empty: no limit)" }
            definition.maxConcurrency = value
        case .maxInFlight:
            guard let value = Int(trimmed), (1...1000).contains(value) else { return "1 to 1000 members in flight" }
            definition.maxInFlight = value
        case .captures(let index):
            switch Self.captures(parsing: trimmed) {
            case .success(let captures): definition.members[index].captures = captures
            case .failure(let problem): return problem.reason
            }
        case .kind, .policy, .onFailure, .priorityFirst, .membersHeading, .member: break
        }
        return nil
    }

    /// Adds a member after the one under the cursor (else at the end), naming the first choice.
    mutating func addMember() -> Bool {
        guard let first = choices.first else { return false }
        let position = memberIndex.map { $0 + 1 } ?? definition.members.count
        definition.members.insert(GroupDefinition.Member(first), at: position)
        remapRequired { $0 >= position ? $0 + 1 : $0 }
        fieldIndex = fields.firstIndex(of: .member(position)) ?? fieldIndex
        return true
    }

    /// Removes the member under the cursor; required positions follow.
    mutating func removeMember() {
        guard let index = memberIndex else { return }
        definition.members.remove(at: index)
        remapRequired { $0 == index ? nil : ($0 > index ? $0 - 1 : $0) }
        fieldIndex = min(fieldIndex, fields.count - 1)
    }

    /// Moves the member under the cursor up or down one place; required positions follow.
    mutating func moveMember(by delta: Int) {
        guard let index = memberIndex, definition.members.indices.contains(index + delta) else { return }
        definition.members.swapAt(index, index + delta)
        remapRequired { $0 == index ? index + delta : ($0 == index + delta ? index : $0) }
        fieldIndex = fields.firstIndex(of: .member(index + delta)) ?? fieldIndex
    }

    private mutating func remapRequired(_ transform: (Int) -> Int?) {
        guard case .required(let indices) = definition.policy else { return }
        let moved = Set(indices.compactMap(transform))
        definition.policy = moved.isEmpty ? .all : .required(moved)
    }

    /// Captures as the editor shows them: `token=$.token, session=header Set-Cookie, code=status`.
    static func capturesText(_ captures: [Capture]) -> String {
        captures.map { "\($0.name)=\(WorkspaceWriter.captureSource($0.source))" }.joined(separator: ", ")
    }

    /// Captures from that text. Commas inside brackets or quotes belong to a JSON path.
    static func captures(parsing text: String) -> Result<[Capture], WorkspaceGroup.CaptureProblem> {
        var parts: [String] = []
        var current = ""
        var depth = 0
        var quote: Character?
        for character in text {
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
            } else if character == "[" {
                depth += 1
            } else if character == "]" {
                depth = max(0, depth - 1)
            } else if character == ",", depth == 0 {
                parts.append(current)
                current = ""
                continue
            }
            current.append(character)
        }
        parts.append(current)
        var captures: [Capture] = []
        for part in parts where !part.trimmingCharacters(in: .whitespaces).isEmpty {
            guard let equals = part.firstIndex(of: "=") else {
                return .failure(.init(reason: "a capture is name=source, as in token=$.token, session=header Set-Cookie, code=status"))
            }
            let name = part[..<equals].trimmingCharacters(in: .whitespaces)
            guard !captures.contains(where: { $0.name == name }) else { return .failure(.init(reason: "\(name) is captured twice")) }
            switch WorkspaceGroup.capture(name, from: part[part.index(after: equals)...].trimmingCharacters(in: .whitespaces)) {
            case .success(let capture): captures.append(capture)
            case .failure(let problem): return .failure(problem)
            }
        }
        return .success(captures)
    }
}
