import CurlewAgent
import CurlewWorkspace

/// The group editor, drawn in the editor's place: the group's kind and how it runs, then its
/// members, each a choice of the workspace's requests and groups.
enum GroupEditorView {
    static func label(_ field: GroupField) -> String {
        switch field {
        case .name: "Name"
        case .folder: "Folder"
        case .kind: "Kind"
        case .policy: "Policy"
        case .required: "Required"
        case .maxConcurrency: "At once"
        case .maxInFlight: "In flight"
        case .onFailure: "On failure"
        case .priorityFirst: "Priority"
        case .membersHeading: "Members"
        case .member, .captures: ""
        }
    }

    static func value(_ field: GroupField, of editor: GroupEditor) -> String {
        let definition = editor.definition
        func choice(_ values: [String], _ current: String) -> String { values.map { $0 == current ? "[\($0)]" : $0 }.joined(separator: " ") }
        switch field {
        case .name: return editor.name
        case .folder: return definition.folder ?? "(top level: Enter types one, as api/users)"
        case .kind: return choice(["batch", "chain", "window"], definition.kind.rawValue)
        case .policy:
            let current = switch definition.policy {
            case .all: "all"
            case .any: "any"
            case .required: "required"
            }
            return choice(["all", "any", "required"], current) + "  " + policyNote(definition.policy)
        case .required: return editor.text(of: .required).map { "members \($0) must succeed (Enter edits)" } ?? ""
        case .maxConcurrency: return definition.maxConcurrency.map { "\($0) members at a time" } ?? "no limit (Enter sets one)"
        case .maxInFlight: return "\(definition.maxInFlight) members in flight, started in order"
        case .onFailure: return choice(["stop", "continue"], definition.onFailure == .stop ? "stop" : "continue")
        case .priorityFirst: return choice(["normal", "first"], definition.priorityFirst ? "first" : "normal") + "  (first: runs ahead of other queued requests)"
        case .membersHeading:
            return definition.members.isEmpty ? "none yet · + add (a)" : "\(definition.members.count) · + add (a) · < > move · d removes"
        case .member(let index):
            let member = definition.members[index]
            let kind = if case .group = member.reference { "group" } else { "request" }
            return "\(index + 1). ◂ \(kind) \(member.name) ▸"
        case .captures(let index):
            let captures = definition.members[index].captures
            return "   captures " + (captures.isEmpty ? "nothing (Enter: token=$.token, sid=header Set-Cookie)" : GroupEditor.capturesText(captures))
        }
    }

    private static func policyNote(_ policy: BatchPolicy) -> String {
        switch policy {
        case .all: "every member must succeed"
        case .any: "one success is enough"
        case .required: "the members named below must succeed"
        }
    }

    static func draw(_ model: AppModel, in area: Rect, into frame: inout FrameBuffer) {
        guard let editor = model.compose.groupEditor else { return }
        let title = (editor.isUnsaved ? "● " : "") + (editor.entryName == nil ? "New group" : "Group")
        frame.put(title, row: area.row, column: area.column, style: .title)
        frame.put(model.groupKeysHint, row: area.row, column: area.column + TextWidth.of(title) + 2, style: .dim, width: area.width - TextWidth.of(title) - 2)
        let fields = editor.fields
        let visible = area.height - 1
        let focused = min(editor.fieldIndex, fields.count - 1)
        let scroll = max(0, focused - visible + 1)
        let valueColumn = area.column + 11
        let valueWidth = area.width - 11
        for (index, field) in fields.enumerated().dropFirst(scroll).prefix(visible) {
            let row = area.row + 1 + index - scroll
            let isFocused = model.compose.focus == .editor && index == focused
            frame.put(label(field), row: row, column: area.column, style: isFocused ? .title : .dim, width: 11)
            model.registerHit(row: row, columns: area.column..<(area.column + area.width), .groupField(index))
            if let editing = editor.editing, editing.field == field {
                frame.putLine(editing.editor.display(width: valueWidth), row: row, column: valueColumn, width: valueWidth, style: .selected)
            } else {
                frame.putLine(value(field, of: editor), row: row, column: valueColumn, width: valueWidth, style: isFocused ? .selected : .plain)
            }
        }
    }
}
