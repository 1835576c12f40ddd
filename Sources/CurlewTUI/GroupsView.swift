import CurlewAgent
import CurlewWorkspace

/// The Groups pane: every batch, chain, window and gate; the selected one with its members,
/// progress, captures, verdict and a waterfall on a shared time axis.
enum GroupsView {
    static func draw(_ model: AppModel, in area: Rect, into frame: inout FrameBuffer) {
        let groups = model.groups.groups
        let listWidth = min(32, area.width / 4)
        frame.put("Groups", row: area.row, column: 1, style: model.groupMembersFocused ? .bold : .title)
        if let starting = model.groups.awaitedID {
            frame.put("starting group #\(starting)…", row: area.row + 2, column: groups.isEmpty ? 2 : listWidth + 1, style: .dim)
        }
        guard !groups.isEmpty else {
            if model.groups.awaitedID == nil {
                let text = model.canSend ? "No groups yet. In Compose (1), select the batch or the chain and press s."
                    : "No groups run from this window: it browses session logs (4)."
                frame.put(text, row: area.row + 2, column: 2, style: .dim)
            }
            return
        }
        // The list scrolls to keep the selected group in view.
        let rows = max(1, area.height - 1)
        let first = min(max(0, model.groups.selected - rows + 1), max(0, groups.count - rows))
        for (offset, group) in groups.enumerated().dropFirst(first).prefix(rows) {
            let row = area.row + 1 + offset - first
            let state = group.verdict?.rawValue ?? (group.waiting ? "waiting" : "\(group.completedCount)/\(group.members.count)")
            let indent = group.info.parentID == nil ? "" : "  ↳ "
            let text = " \(indent)\(group.info.kind.label) \(group.info.name ?? "#\(group.info.id)")"
            let isSelected = offset == model.groups.selected && model.groups.awaitedID == nil
            let style: Style = isSelected ? (model.groupMembersFocused ? .bold : .selected) : verdictStyle(group)
            frame.putLine(TextWidth.cell(text, width: listWidth - 10) + TextWidth.fitRight(state, to: 9), row: row, column: 0, width: listWidth - 1, style: style)
            model.registerHit(row: row, columns: 0..<(listWidth - 1), .group(offset))
        }
        for row in area.row..<(area.row + area.height) { frame.put("│", row: row, column: listWidth - 1, style: .dim) }
        guard model.groups.awaitedID == nil, groups.indices.contains(model.groups.selected) else { return }
        drawGroup(groups[model.groups.selected], model: model, in: Rect(row: area.row, column: listWidth + 1, height: area.height, width: area.width - listWidth - 1), into: &frame)
    }

    /// How a group's verdict is drawn: a failed assertion reads as a failure, whatever the agent's verdict.
    private static func verdictStyle(_ group: GroupRecord) -> Style {
        guard group.failedAssertions == 0 else { return .bad }
        return switch group.verdict {
        case .succeeded: .good
        case .failed: .bad
        case .cancelled: .dim
        case nil: .plain
        }
    }

    /// One group with its progress, members, waterfall and captures (also beside Compose's editor).
    static func drawGroup(_ group: GroupRecord, model: AppModel, in area: Rect, into frame: inout FrameBuffer) {
        let total = max(1, group.members.count)
        let done = group.completedCount
        let percent = Int((Double(done) / Double(total) * 100).rounded(.down))
        let cancelled = (group.cancelledCount > 0 ? ", \(group.cancelledCount) cancelled" : "") + (group.notRunCount > 0 ? ", \(group.notRunCount) not run" : "")
        let verdict = group.verdict.map { "\($0.rawValue) in \(TimingBreakdown.format(group.duration ?? 0))" + ExpectationFailure.countText(group.failedAssertions) }
            ?? (group.waiting ? "waiting (gated)" : "running")
        let gate = group.info.isPriorityGate ? " · priority-first gate" : ""
        frame.put("\(group.info.kind.label) \(group.info.name ?? "#\(group.info.id)") · \(verdict)\(gate)", row: area.row, column: area.column,
                  style: verdictStyle(group).union(.bold), width: area.width)
        let counts = " \(percent) % (\(done)/\(total)\(cancelled))"
        let barWidth = max(10, area.width - TextWidth.of(counts) - 1)
        frame.put(Chrome.progressBar(Double(done) / Double(total), width: barWidth) + counts, row: area.row + 1, column: area.column, style: .accent)

        let now = group.started.map { (ContinuousClock.now - $0).wholeMicroseconds } ?? 0
        let span = max(1, group.duration ?? group.members.compactMap(\.finishedAt).max() ?? now)
        // Narrow terminals drop the byte bars and shorten labels so the waterfall keeps its room.
        let wide = area.width >= 90
        let labelWidth = wide ? 18 : 12
        // Members are numbered from 1, as the workspace and Compose list them.
        let indexWidth = max(3, String(group.members.count).count + 1)
        let fixedWidth = indexWidth + labelWidth + 10 + 7 + 10 + 2 + (wide ? 9 : 0)
        let waterfallWidth = max(6, area.width - fixedWidth - 1)
        frame.put(TextWidth.fit("#", to: indexWidth) + TextWidth.fit("member", to: labelWidth) + TextWidth.fit("state", to: 10) + TextWidth.fit("status", to: 7) + TextWidth.fitRight("time", to: 10)
                  + "  " + (wide ? TextWidth.fit("bytes", to: 9) : "") + "waterfall", row: area.row + 2, column: area.column, style: .dim)
        let captureLines = group.captures.isEmpty ? 0 : min(4, group.captures.count) + 1
        let memberRows = area.height - 3 - captureLines
        let selected = model.groupMembersFocused ? model.groups.selectedMember : nil
        let scroll = max(0, (selected ?? 0) - memberRows + 1)
        for (index, member) in group.members.enumerated().dropFirst(scroll).prefix(memberRows) {
            let row = area.row + 3 + index - scroll
            // A finished request's time is its own elapsed time, as Live shows it; the group's
            // clock (events as they arrived) only stands in while it runs.
            let elapsed = member.requestID.flatMap { model.live.row(id: $0)?.message?.timings?.elapsed }
            let duration = elapsed.map(TimingBreakdown.format) ?? member.startedAt.map { TimingBreakdown.format((member.finishedAt ?? now) - $0) } ?? ""
            // A nested group has no status of its own (its last request's would read as the
            // group's: "cancelled 200"); its state says how it ended.
            // A failed assertion marks the status, as `curlew run` marks the request ✗.
            let status = (member.childGroupID != nil ? "" : member.statusCode.map(String.init) ?? (member.error != nil ? "ERR" : ""))
                + (member.failedAssertions > 0 ? " ✗" : "")
            // A nested group's member stays pending in the agent's events while that group runs.
            let childRuns = member.childGroupID.flatMap { model.groups.group(id: $0) }.map { $0.started != nil && $0.verdict == nil } ?? false
            let stateText = member.waitReason == .gated ? "gated" : childRuns && !member.state.isTerminal ? "running"
                : member.neverRan ? "not run" : member.state.rawValue
            let fraction = member.progress.map { $0.totalBytesToReceive > 0 ? Double($0.bytesReceived) / Double($0.totalBytesToReceive) : 0 }
                // Done: a response arrived whole (or a child group succeeded); a member cancelled
                // or failed without a response got nothing.
                ?? (member.state.isTerminal && (member.statusCode != nil || member.state == .succeeded) ? 1 : 0)
            // A member's label is its name, or its URL with what a log hides hidden where the
            // label was made (`GroupMember.label`); a name is never rewritten by a secret's value.
            let text = TextWidth.cell("\(index + 1)", width: indexWidth) + TextWidth.cell(member.label, width: labelWidth) + TextWidth.cell(stateText, width: 10)
                + TextWidth.cell(status, width: 7) + TextWidth.fitRight(duration, to: 10) + "  " + (wide ? Chrome.progressBar(fraction, width: 8) + " " : "")
            let style: Style = index == selected ? .selected : memberStyle(member)
            let used = frame.put(text, row: row, column: area.column, style: style, width: area.width)
            if let start = member.startedAt {
                let from = Int(Double(start) / Double(span) * Double(waterfallWidth))
                let length = max(1, Int(Double(elapsed ?? ((member.finishedAt ?? now) - start)) / Double(span) * Double(waterfallWidth)))
                frame.put(String(repeating: " ", count: min(from, waterfallWidth - 1)) + String(repeating: "▇", count: min(length, waterfallWidth - min(from, waterfallWidth - 1))),
                          row: row, column: area.column + used, style: memberStyle(member), width: waterfallWidth)
            }
        }
        if captureLines > 0 {
            let top = area.row + area.height - captureLines
            frame.put("Captured variables", row: top, column: area.column, style: .title)
            // Named like a credential (a chain's `token` from its login), a value is hidden as the
            // Variables view hides it.
            for (offset, capture) in group.captures.suffix(4).enumerated() {
                frame.put("{{\(capture.name)}} = \(model.shownCapture(named: capture.name, value: capture.value))", row: top + 1 + offset, column: area.column + 2, width: area.width - 2)
            }
        }
    }

    private static func memberStyle(_ member: GroupRecord.Member) -> Style {
        if member.failedAssertions > 0 { return .bad }
        return switch member.state {
        case .succeeded: .good
        case .failed: .bad
        case .cancelled: .dim
        case .inFlight: .accent
        default: .plain
        }
    }
}
