import CurlewAgent

/// One request in depth: tabs for the request as composed, as sent, the response, the error and
/// a timing waterfall. Only the visible window of a long body is drawn.
enum DetailView {
    /// Below this width the tab row names only the current tab (as it does where all the tabs
    /// would run into the position in a long body).
    static let compactBelow = 72

    /// `hiding`: the secrets to hide (`AppModel.secretsHiding`), nil while they are revealed.
    static func draw(_ state: inout DetailState, hiding: RedactionPolicy?, in area: Rect, into frame: inout FrameBuffer) {
        state.hideSecrets(with: hiding)
        let message = state.message
        let body = Rect(row: area.row + 1, column: area.column + 1, height: area.height - 1, width: area.width - 2)
        state.wrapError(to: body.width)
        let lines = state.tab == .timing ? [] : state.lines()
        state.scroll = min(state.scroll, max(0, lines.count - body.height))
        // Where the window is in a long body, right-aligned; the summary takes what is left.
        let position = lines.count > body.height ? "\(state.scroll + 1)-\(min(lines.count, state.scroll + body.height)) of \(lines.count) lines" : ""
        let positionColumn = area.column + area.width - TextWidth.of(position) - 1
        // All the tabs when they fit beside the position, the current one alone otherwise.
        let titles = DetailState.Tab.allCases.map { " \($0.rawValue) " }
        let tabsEnd = area.column + 1 + titles.reduce(0) { $0 + TextWidth.of($1) + 1 }
        var column = area.column + 1
        if area.width < compactBelow || (!position.isEmpty && tabsEnd + 1 > positionColumn) {
            column += frame.put(" ◂ \(state.tab.rawValue) ▸ ", row: area.row, column: column, style: .selected.union(.bold)) + 1
        } else {
            for (tab, title) in zip(DetailState.Tab.allCases, titles) {
                column += frame.put(title, row: area.row, column: column, style: tab == state.tab ? .selected.union(.bold) : .dim) + 1
            }
        }
        if !position.isEmpty { frame.put(position, row: area.row, column: positionColumn, style: .dim) }
        let entry = LogEntrySource.prefix(state.logEntry, namingFile: false)
        let summary = entry + "#\(message.requestID) \(message.name ?? "") · \(message.state == .inFlight ? "in flight" : message.state.rawValue)"
        let room = (position.isEmpty ? area.column + area.width - 1 : positionColumn - 2) - column - 2
        frame.put(TextWidth.truncate(summary, to: room), row: area.row, column: column + 2, style: .dim, width: room)
        if state.tab == .timing {
            drawTiming(message, in: body, into: &frame)
            return
        }
        let matches = Set(state.matches)
        for (offset, line) in lines.dropFirst(state.scroll).prefix(body.height).enumerated() {
            let style = matches.contains(state.scroll + offset) ? Style.selected : line.style
            frame.put(line.text, row: body.row + offset, column: body.column, style: style, width: body.width)
        }
    }

    static let phaseStyles: [String: Style] = [
        "redirects": Style(foreground: .magenta), "queued": Style(foreground: .white), "dns": Style(foreground: .cyan),
        "connect": Style(foreground: .yellow), "tls": Style(foreground: .magenta), "send": Style(foreground: .blue),
        "wait": Style(foreground: .green), "receive": Style(foreground: .red),
    ]

    static func drawTiming(_ message: DebugMessage, in area: Rect, into frame: inout FrameBuffer) {
        guard let timings = message.timings, let rows = message.waterfall(width: max(10, area.width - 28)) else {
            let reason = switch message.pipeline?.source {
            case .cache?: "No network timing: served from the cache."
            case .fixture?: "No network timing: answered by a mock fixture."
            default: message.pipeline?.duplicate != nil ? "No network timing: shared the answer of an identical request."
                : "No timings: the request never reached the network."
            }
            frame.put(reason, row: area.row + 1, column: area.column, style: .dim)
            return
        }
        let connection = message.connection
        var row = area.row + 1
        frame.put("Timing waterfall (\(message.connectionKind))", row: area.row, column: area.column, style: .title)
        for phase in rows {
            frame.put(TextWidth.fit(phase.phase, to: 10), row: row, column: area.column)
            frame.put(TextWidth.fitRight(phase.duration, to: 11), row: row, column: area.column + 10, style: phase.bar == nil ? .dim : .plain)
            if let bar = phase.bar {
                frame.put("│", row: row, column: area.column + 23, style: .dim)
                frame.put(String(repeating: "█", count: bar.length), row: row, column: area.column + 24 + bar.start,
                          style: phaseStyles[phase.phase] ?? .accent)
            } else {
                frame.put("(\(phase.reason ?? ""))", row: row, column: area.column + 24, style: .dim)
            }
            row += 1
        }
        frame.put(TextWidth.fit("total", to: 10) + TextWidth.fitRight(TimingBreakdown.format(timings.elapsed), to: 11), row: row, column: area.column, style: .bold)
        row += 2
        guard let connection else { return }
        var facts = [
            ("remote", connection.remoteIP.isEmpty ? "-" : "\(connection.remoteIP):\(connection.remotePort)"),
            ("local", connection.localIP.isEmpty ? "-" : "\(connection.localIP):\(connection.localPort)"),
            ("HTTP", connection.httpVersion.isEmpty ? "-" : connection.httpVersion),
            ("connection", connection.reused ? "reused" : connection.newConnections == 0 ? "none made" : "new (\(connection.newConnections) opened)"),
            ("redirects", "\(connection.redirectCount)"),
            ("bytes", "\(connection.bytesSent) B sent, \(message.bytesReceivedText) received"),
        ]
        if let uses = connection.requestsOnConnection { facts.append(("requests", "\(uses) on this connection")) }
        if let tls = connection.tls {
            facts.append(("TLS", "\(tls.version)  \(tls.cipher)  ALPN \(tls.alpn.isEmpty ? "none" : tls.alpn)"))
            for (index, certificate) in tls.certificates.enumerated() {
                facts.append(("cert \(index)", certificate.subject))
                facts.append(("  issuer", certificate.issuer))
                if !certificate.alternativeNames.isEmpty { facts.append(("  names", certificate.alternativeNames.joined(separator: ", "))) }
                facts.append(("  valid", "\(certificate.notBefore) to \(certificate.notAfter)"))
                facts.append(("  pin", certificate.publicKeyPin))
            }
        }
        for (name, value) in facts where row < area.row + area.height {
            frame.put(TextWidth.fit(name, to: 12), row: row, column: area.column, style: .dim)
            frame.put(value, row: row, column: area.column + 12, width: area.width - 12)
            row += 1
        }
    }
}
