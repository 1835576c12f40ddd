import CurlewAgent

/// The comparison of two exchanges: a column per exchange, differing rows marked.
enum ComparisonView {
    static func draw(_ state: inout ComparisonState, in area: Rect, into frame: inout FrameBuffer) {
        let count = state.diff.differences.count
        frame.put("Compare  \(count) difference\(count == 1 ? "" : "s") · a \(state.showsAll ? "differences only" : "every row") · j/k scroll · Esc closes",
                  row: area.row, column: area.column + 1, style: .title, width: area.width - 2)
        let labelWidth = min(28, area.width / 4)
        let valueWidth = max(8, (area.width - labelWidth - 4) / 2)
        let rightColumn = area.column + 1 + labelWidth + 1 + valueWidth + 1
        frame.put(TextWidth.fit("", to: labelWidth), row: area.row + 1, column: area.column + 1)
        frame.put(TextWidth.fit(state.titles.left, to: valueWidth), row: area.row + 1, column: area.column + 2 + labelWidth, style: .bold)
        frame.put(TextWidth.fit(state.titles.right, to: valueWidth), row: area.row + 1, column: rightColumn, style: .bold)
        var top = area.row + 2
        let deltas = state.diff.timingDeltas.filter { $0.phase == "total" || $0.delta.magnitude >= 1000 }
        if !deltas.isEmpty {
            let text = deltas.map { "\($0.phase) \($0.delta >= 0 ? "+" : "−")\(TimingBreakdown.format(Int64(clamping: $0.delta.magnitude)))" }.joined(separator: "  ")
            frame.put("timing change: " + text, row: top, column: area.column + 1, style: .accent, width: area.width - 2)
            top += 1
        }
        let rows = state.rows
        let height = area.row + area.height - top
        state.scroll = min(state.scroll, max(0, rows.count - height))
        guard !rows.isEmpty else {
            frame.put("The two exchanges are the same in every field compared (a shows them all).", row: top + 1, column: area.column + 2, style: .dim)
            return
        }
        for (offset, row) in rows.dropFirst(state.scroll).prefix(height).enumerated() {
            let style: Style = row.differs ? .bad : .plain
            let y = top + offset
            frame.put(TextWidth.fit("\(row.section) \(row.field)", to: labelWidth), row: y, column: area.column + 1, style: row.differs ? .bold : .dim)
            frame.put(TextWidth.cell(row.left ?? "(none)", width: valueWidth), row: y, column: area.column + 2 + labelWidth, style: row.left == nil ? .dim : style)
            frame.put(TextWidth.fit(row.right ?? "(none)", to: valueWidth), row: y, column: rightColumn, style: row.right == nil ? .dim : style)
        }
    }
}
