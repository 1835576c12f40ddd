/// The command palette, drawn over the pane.
enum PaletteView {
    static func draw(_ palette: Palette, into frame: inout FrameBuffer) {
        let width = min(90, frame.columns - 8)
        let height = min(18, frame.rows - 6)
        let area = Rect(row: 2, column: (frame.columns - width) / 2, height: height, width: width)
        for row in area.row..<(area.row + area.height) { frame.fill(row: row, column: area.column, width: area.width, style: .plain) }
        frame.put("┌─ Commands and requests " + String(repeating: "─", count: max(0, width - 26)) + "┐", row: area.row, column: area.column, style: .title)
        frame.put("│ > " + palette.query.display(width: width - 6), row: area.row + 1, column: area.column, style: .bold, width: width - 1)
        let matches = palette.matches
        let listRows = area.height - 3
        let scroll = max(0, palette.selected - listRows + 1)
        for (offset, entry) in matches.dropFirst(scroll).prefix(listRows).enumerated() {
            let index = offset + scroll
            let text = TextWidth.cell(entry.title, width: width / 2) + entry.detail
            frame.putLine("│ " + TextWidth.fit(text, to: width - 4), row: area.row + 2 + offset, column: area.column, width: width - 1,
                          style: index == palette.selected ? .selected : .plain)
        }
        if matches.isEmpty { frame.put("│ nothing matches", row: area.row + 2, column: area.column, style: .dim) }
        for row in (area.row + 1)..<(area.row + area.height - 1) {
            frame.put("│", row: row, column: area.column, style: .title)
            frame.put("│", row: row, column: area.column + width - 1, style: .title)
        }
        frame.put("└─ type to find · ↑↓ choose · Enter runs · Esc closes " + String(repeating: "─", count: max(0, width - 56)) + "┘",
                  row: area.row + area.height - 1, column: area.column, style: .title)
    }
}
