import CurlewAgent

/// The Live pane: one row per request, newest last.
enum LiveView {
    static func draw(_ model: AppModel, in area: Rect, into frame: inout FrameBuffer) {
        let live = model.live
        let count = live.visibleCount
        let title = "Live  " + Chrome.counted(count, "request", "requests") + (live.evicted > 0 ? " (\(live.evicted) older evicted)" : "")
            + (live.follow ? " · following" : "") + (live.pausedAt != nil ? " · PAUSED" : "")
        frame.put(title, row: area.row, column: 1, style: .title, width: area.width - 2)
        frame.put(MessageRows.heading(width: area.width - 1), row: area.row + 1, column: 1, style: .dim)
        let listHeight = area.height - 2
        guard count > 0 else {
            let text = model.canSend ? "Nothing sent yet. Compose (1) sends with s; the demo's groups run from its list."
                : "Nothing is sent from this window: it browses session logs (4)."
            frame.put(text, row: area.row + 3, column: 2, style: .dim)
            return
        }
        var scroll = model.live.scroll
        if live.selected < scroll { scroll = live.selected }
        if live.selected >= scroll + listHeight { scroll = live.selected - listHeight + 1 }
        scroll = max(0, min(scroll, count - listHeight))
        model.live.scroll = scroll
        for (offset, row) in live.rows.prefix(count).enumerated().dropFirst(scroll).prefix(listHeight) {
            let (text, style) = MessageRows.row(info: row.info, state: row.state, progress: row.progress, message: row.message, hiding: model.secretsHiding,
                                                clock: model.clock, width: area.width - 1)
            frame.putLine(" " + text, row: area.row + 2 + offset - scroll, column: 0, width: area.width,
                          style: offset == live.selected ? .selected : style)
            model.registerHit(row: area.row + 2 + offset - scroll, columns: area.column..<(area.column + area.width), .liveRow(offset))
        }
    }
}
