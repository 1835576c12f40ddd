import CurlewAgent
import Foundation

/// The log browser: the list of session logs, or the entries of the opened one.
enum LogsView {
    static func draw(_ model: AppModel, in area: Rect, into frame: inout FrameBuffer) {
        guard let opened = model.logs.opened else {
            drawFiles(model, in: area, into: &frame)
            return
        }
        let skipped = opened.index.skippedCount
        var title = "\((opened.source as NSString).lastPathComponent)  \(opened.visible.count) of \(opened.index.entryCount) entries"
            + (opened.index.isComplete ? "" : " (indexing…)")
        if skipped > 0 { title += " · " + Chrome.counted(skipped, "unreadable line", "unreadable lines") + " skipped" }
        if opened.seen < opened.index.entryCount { title += " (searching \(opened.seen) of \(opened.index.entryCount)…)" }
        if !opened.filterText.isEmpty { title += " · filter: \(opened.filterText)" }
        if let ended = opened.index.followingEnded {
            title += " · not followed: \(ended)"
        } else if opened.followsNewest {
            title += " · following newest"
        }
        let waiting = opened.index.waitingLineBytes
        if waiting > 0 { title += " · last line unfinished (\(ByteCountText.of(waiting)) so far)" }
        frame.put(title, row: area.row, column: 1, style: .title, width: area.width - 2)
        frame.put(MessageRows.heading(width: area.width - 1), row: area.row + 1, column: 1, style: .dim)
        let listHeight = area.height - 2
        let scroll = max(0, min(opened.selected - listHeight / 2, opened.visible.count - listHeight))
        for offset in scroll..<min(opened.visible.count, scroll + listHeight) {
            let index = opened.visible[offset]
            guard let message = opened.index.message(at: index) else {
                // A log cut since it was indexed keeps its rows, from the index; a damaged line says so.
                if !opened.index.linesReadable, let summary = opened.index.indexedSummary(at: index) {
                    frame.putLine(" " + MessageRows.row(summary: summary, hiding: model.secretsHiding, width: area.width - 1),
                                  row: area.row + 2 + offset - scroll, column: 0, width: area.width, style: offset == opened.selected ? .selected : .dim)
                } else {
                    frame.putLine(" line of entry \(index + 1) cannot be read", row: area.row + 2 + offset - scroll, column: 0, width: area.width,
                                  style: offset == opened.selected ? .selected : .bad)
                }
                model.registerHit(row: area.row + 2 + offset - scroll, columns: 0..<area.width, .logEntry(offset))
                continue
            }
            let info = RequestInfo(id: message.requestID, name: message.name, method: message.original?.method ?? "?",
                                   url: message.original?.url ?? "", startedAt: message.startedAt)
            let (text, style) = MessageRows.row(info: info, state: message.state, progress: nil, message: message, hiding: model.secretsHiding,
                                                clock: model.clock, width: area.width - 1)
            frame.putLine(" " + text, row: area.row + 2 + offset - scroll, column: 0, width: area.width, style: offset == opened.selected ? .selected : style)
            model.registerHit(row: area.row + 2 + offset - scroll, columns: 0..<area.width, .logEntry(offset))
        }
        if opened.visible.isEmpty {
            let text = opened.filterText.isEmpty
                ? (opened.index.isComplete ? "This log has no entries. Esc closes it." : "Indexing…")
                : "No entry matches. / edits the filter, F clears it, Esc closes the log."
            frame.put(text, row: area.row + 3, column: 2, style: .dim)
        }
    }

    private static func drawFiles(_ model: AppModel, in area: Rect, into frame: inout FrameBuffer) {
        let files = model.logs.files
        let directory = (model.environment.sessionsDirectory as NSString).lastPathComponent
        frame.put("Session logs  \(files.count) in \(directory)/ and on the command line, newest first", row: area.row, column: 1,
                  style: .title, width: area.width - 2)
        frame.put(TextWidth.fit("modified", to: 20) + " " + TextWidth.fitRight("size", to: 9) + "  name", row: area.row + 1, column: 1, style: .dim)
        let listHeight = area.height - 2
        let scroll = max(0, model.logs.selectedFile - listHeight + 1)
        for (offset, file) in files.enumerated().dropFirst(scroll).prefix(listHeight) {
            let text = TextWidth.fit(model.fileTimeFormatter.string(from: file.modified), to: 20) + " " + TextWidth.fitRight(ByteCountText.of(file.size), to: 9) + "  " + file.name
            frame.putLine(" " + text, row: area.row + 2 + offset - scroll, column: 0, width: area.width, style: offset == model.logs.selectedFile ? .selected : .plain)
            model.registerHit(row: area.row + 2 + offset - scroll, columns: 0..<area.width, .logFile(offset))
        }
        if files.isEmpty {
            frame.put("No session logs yet. Requests sent here are logged to \(model.environment.sessionsDirectory)/.", row: area.row + 3, column: 2, style: .dim)
        }
    }
}
