import CurlewAgent
import CurlewWorkspace

/// One `{{name}}` the edited request uses, with what it resolves to now.
struct VariableRow: Equatable {
    enum Origin: Equatable {
        /// From the workspace: its variables, the chosen environment, `--var`.
        case defined
        /// A secret (or a value holding one): shown masked.
        case secret
        /// Captured by a chain step; `value` is nil until a chain run captured it.
        case captured
        /// Defined nowhere: sending would be refused.
        case unknown(String)
    }

    var name: String
    var value: String?
    var origin: Origin

    var isUnknown: Bool { if case .unknown = origin { true } else { false } }
}

extension RequestDraft {
    /// Every `{{name}}` the draft sends, in the order of the editor's fields, without repeats.
    var templateNames: [String] {
        var texts = [url] + params.filter(\.enabled).flatMap { [$0.name, $0.value] } + headers.filter(\.enabled).flatMap { [$0.name, $0.value] }
        if bodyMode != .none { texts.append(body) }
        switch auth {
        case .none: break
        case .basic(let user, let password): texts += [user, password]
        case .bearer(let token): texts.append(token)
        }
        var seen = Set<String>()
        return texts.flatMap(Template.names).filter { seen.insert($0).inserted }
    }
}

extension AppModel {
    /// What each variable of `draft` resolves to now: the workspace's variables in the chosen
    /// environment and the values chains captured (without a workspace, the process
    /// environment). Secrets are masked.
    func variableRows(for draft: RequestDraft) -> [VariableRow] {
        let captured = groups.capturedVariables
        return draft.templateNames.map { name in
            if let value = captured.last(where: { $0.name == name })?.value { return VariableRow(name: name, value: value, origin: .captured) }
            guard let workspace else {
                if let value = environment.processEnvironment[name] { return VariableRow(name: name, value: value, origin: .defined) }
                return VariableRow(name: name, value: nil, origin: .unknown("not in the environment and not captured"))
            }
            if workspace.session.workspace.capturedNames.contains(name) { return VariableRow(name: name, value: nil, origin: .captured) }
            do {
                let value = try workspace.session.expand("{{\(name)}}")
                let secret = workspace.session.workspace.secretNames.contains(name) || workspace.session.secretValues.contains { !$0.isEmpty && value.contains($0) }
                return VariableRow(name: name, value: secret ? RedactionPolicy.marker : value, origin: secret ? .secret : .defined)
            } catch {
                return VariableRow(name: name, value: nil, origin: .unknown("\(error)"))
            }
        }
    }
}

/// The variables panel (`V`): in the response's place, the resolved value of every variable
/// the edited request uses.
enum VariablesView {
    static func draw(_ model: AppModel, in area: Rect, into frame: inout FrameBuffer) {
        let draft = model.compose.draft
        let environment = model.workspace?.session.environment.map { " · env \($0)" } ?? ""
        frame.put("Variables of \(draft.name)\(environment)", row: area.row, column: area.column + 1, style: .title, width: area.width - 2)
        let rows = model.variableRows(for: draft)
        guard !rows.isEmpty else {
            frame.put("This request uses no {{variables}}. V shows the response again.", row: area.row + 2, column: area.column + 1, style: .dim, width: area.width - 2)
            return
        }
        let nameWidth = min(24, (rows.map { TextWidth.of($0.name) }.max() ?? 4) + 2)
        for (index, variable) in rows.prefix(area.height - 2).enumerated() {
            let row = area.row + 2 + index
            frame.put(variable.name, row: row, column: area.column + 1, style: variable.isUnknown ? .bad : .bold, width: nameWidth)
            let (text, style): (String, Style) = switch variable.origin {
            case .defined: (variable.value ?? "", .plain)
            case .secret: ("\(variable.value ?? "") (secret)", .warning)
            case .captured: (variable.value.map { "\($0) (captured)" } ?? "captured when its chain runs (S steps through it)", .accent)
            case .unknown(let reason): ("✗ undefined: \(reason)", .bad)
            }
            frame.putLine(text, row: row, column: area.column + 1 + nameWidth, width: area.width - 2 - nameWidth, style: style)
        }
        if rows.count > area.height - 2 {
            frame.put("… \(rows.count - (area.height - 2)) more", row: area.row + area.height - 1, column: area.column + 1, style: .dim)
        }
    }
}
