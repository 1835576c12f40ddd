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
        // A chain stepped through fills in what its own steps captured so far, and only that,
        // as its step is built.
        let captured = compose.stepping?.captured ?? groups.capturedVariables
        // A captured or environment value named like a credential (token, password, api_key…)
        // is masked too: it is not declared a secret, but it reads as one.
        let policy = redactionPolicy
        func shown(_ name: String, _ value: String) -> String { policy.shown(variable: name, value: value) }
        return draft.templateNames.map { name in
            if let value = captured.last(where: { $0.name == name })?.value {
                return VariableRow(name: name, value: shownCapture(named: name, value: value), origin: .captured)
            }
            guard let workspace else {
                if let value = environment.processEnvironment[name] { return VariableRow(name: name, value: shown(name, value), origin: .defined) }
                return VariableRow(name: name, value: nil, origin: .unknown("not in the environment and not captured"))
            }
            if workspace.session.workspace.capturedNames.contains(name) { return VariableRow(name: name, value: nil, origin: .captured) }
            do {
                let value = try workspace.session.expand("{{\(name)}}")
                let secret = workspace.session.workspace.secretNames.contains(name) || workspace.session.secretValues.contains { !$0.isEmpty && value.contains($0) }
                return VariableRow(name: name, value: secret ? RedactionPolicy.marker : shown(name, value), origin: secret ? .secret : .defined)
            } catch {
                return VariableRow(name: name, value: nil, origin: .unknown("\(error)"))
            }
        }
    }
}

extension AppModel {
    /// The method and URL the editor's request goes to now, secrets hidden; or why it cannot go.
    func resolvedTarget(of draft: RequestDraft) -> (text: String, style: Style) {
        do {
            let composed: DebugMessage
            if let stepper = compose.stepping, let workspace, draft.entryName != nil {
                // A chain's step goes with what the steps before it captured, as its send builds it.
                composed = try unsentMessage(try workspace.request(for: draft, captured: stepper.captured, withholding: stepper.namesCapturedBefore),
                                             named: draft.name)
            } else {
                composed = try composedDraft(draft)
            }
            // The workspace's secrets, and what the panes hide besides (values chains captured
            // under secret names or paths: found by a new user's trial, shown in clear here).
            let shown = exchangeRedaction.redact(redactionPolicy.redact(composed)).original
            return ("\(shown?.method ?? "?") \(shown?.url ?? "")", .accent)
        } catch {
            return ("nothing yet: \(error.message)", .bad)
        }
    }
}

/// The variables panel (`V`): in the response's place, where the request goes and the resolved
/// value of every variable it uses.
enum VariablesView {
    static func draw(_ model: AppModel, in area: Rect, into frame: inout FrameBuffer) {
        let item = model.compose.responseItem
        // A chain stepped through shows its step's request in the editor: its variables are
        // that request's (found by a new user's trial: the chain's group was named instead).
        if model.compose.stepping == nil, model.compose.items.indices.contains(item), case .group(let name, _) = model.compose.items[item] {
            // Not the variables of the request edited before: a group has none of its own.
            frame.put("Variables", row: area.row, column: area.column + 1, style: .title, width: area.width - 2)
            frame.putLine("\(name) is a group: select one of its requests to see what its variables resolve to.",
                          row: area.row + 2, column: area.column + 1, width: area.width - 2, style: .dim)
            return
        }
        let draft = model.compose.stepping == nil ? model.compose.currentDraft(at: item) ?? model.compose.draft : model.compose.draft
        let environment = model.workspace?.session.environment.map { " · env \($0)" } ?? ""
        frame.put("Variables of \(draft.name)\(environment)", row: area.row, column: area.column + 1, style: .title, width: area.width - 2)
        // Where it goes now, in the chosen environment, secrets hidden.
        let (target, style) = model.resolvedTarget(of: draft)
        frame.putLine("sends " + target, row: area.row + 1, column: area.column + 1, width: area.width - 2, style: style)
        let rows = model.variableRows(for: draft)
        guard !rows.isEmpty else {
            frame.put("This request uses no {{variables}}. V shows the response again.", row: area.row + 3, column: area.column + 1, style: .dim, width: area.width - 2)
            return
        }
        let nameWidth = min(24, (rows.map { TextWidth.of($0.name) }.max() ?? 4) + 2)
        for (index, variable) in rows.prefix(area.height - 3).enumerated() {
            let row = area.row + 3 + index
            // A name longer than the column is cut with a space kept before its value.
            frame.put(TextWidth.cell(variable.name, width: nameWidth), row: row, column: area.column + 1, style: variable.isUnknown ? .bad : .bold, width: nameWidth)
            let (text, style): (String, Style) = switch variable.origin {
            case .defined: (variable.value ?? "", .plain)
            case .secret: ("\(variable.value ?? "") (secret)", .warning)
            case .captured: (variable.value.map { "\($0) (captured)" } ?? "captured when its chain runs (S steps through it)", .accent)
            case .unknown(let reason): ("✗ undefined: \(reason)", .bad)
            }
            frame.putLine(text, row: row, column: area.column + 1 + nameWidth, width: area.width - 2 - nameWidth, style: style)
        }
        if rows.count > area.height - 3 {
            frame.put("… \(rows.count - (area.height - 3)) more", row: area.row + area.height - 1, column: area.column + 1, style: .dim)
        }
    }
}
