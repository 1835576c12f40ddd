import CurlewAgent
import Foundation

/// The detail view of one debug message: tabs over its parts, a scroll position and a body search.
public struct DetailState: Sendable {
    public enum Tab: String, CaseIterable, Sendable {
        case request = "Request"
        case wire = "Wire"
        case response = "Response"
        case error = "Error"
        case timing = "Timing"
        /// What the agent's middle layer did: cache, mock, attempts, signer, filters, checks.
        case pipeline = "Pipeline"
        /// A streamed response's events, live while the request runs.
        case stream = "Stream"
    }

    public let message: DebugMessage
    public var tab: Tab = .response
    public var scroll = 0
    public var search = ""
    /// Lines of the current tab that match the search.
    public private(set) var matches: [Int] = []
    private var cache: [Tab: [StyledLine]] = [:]
    /// The width the Error tab's text is wrapped to (its end often says what went wrong): set by
    /// the view that draws it, so search and scrolling count the lines it shows.
    public private(set) var errorWidth: Int?

    /// The request has not finished: the detail shows what is known so far and follows it.
    public let isRunning: Bool
    /// The log and entry it was opened from (numbered from 1, as `curlew log show` and
    /// `log diff LOG#N` number entries); nil for an exchange of this session.
    public var logEntry: LogEntrySource?
    /// The policy whose secrets the tabs hide, or nil while the user has them revealed.
    public private(set) var hiding: RedactionPolicy?
    /// `message` as the tabs show it, made once while secrets are hidden.
    private var shown: DebugMessage?

    public init(message: DebugMessage, running: Bool = false) {
        self.message = message
        isRunning = running
        tab = running ? .stream : message.error != nil && message.response == nil ? .error : .response
    }

    /// This detail showing `message` instead, on the same tab, scrolled to follow a growing stream.
    func following(_ message: DebugMessage, running: Bool) -> DetailState {
        var current = self
        var next = DetailState(message: message, running: running)
        next.hiding = hiding
        next.logEntry = logEntry
        next.tab = tab
        next.search = search
        let atEnd = scroll >= max(0, current.lines().count - 5)
        next.scroll = tab == .stream && atEnd ? max(0, next.lines().count - 5) : scroll
        next.updateMatches()
        return next
    }

    public mutating func switchTab(by delta: Int) {
        let all = Tab.allCases
        let index = all.firstIndex(of: tab)!
        tab = all[(index + delta + all.count) % all.count]
        scroll = 0
        updateMatches()
    }

    /// Hides the secrets `policy` names from the tabs, or with nil shows them; only a change
    /// (shown or hidden, or a policy that gained secrets) rebuilds the tabs.
    public mutating func hideSecrets(with policy: RedactionPolicy?) {
        guard policy != hiding else { return }
        hiding = policy
        shown = nil
        cache = [:]
        updateMatches()
    }

    /// The message as the tabs show it: with its secrets hidden unless they are revealed.
    private mutating func shownMessage() -> DebugMessage {
        guard let hiding else { return message }
        if let shown { return shown }
        let made = hiding.redact(message)
        shown = made
        return made
    }

    /// The lines of the current tab (text tabs only; Timing is drawn as a chart).
    public mutating func lines() -> [StyledLine] {
        if let cached = cache[tab] { return cached }
        var built = DetailContent.lines(for: tab, of: shownMessage())
        if tab == .error, let errorWidth {
            built = built.flatMap { line in TextWidth.wrap(line.text, to: errorWidth).map { StyledLine($0, line.style) } }
        }
        cache[tab] = built
        return built
    }

    /// Wraps the Error tab's text to `width` cells from now on.
    public mutating func wrapError(to width: Int) {
        guard width != errorWidth else { return }
        errorWidth = width
        cache[.error] = nil
        if tab == .error { updateMatches() }
    }

    public mutating func setSearch(_ text: String) {
        search = text
        updateMatches()
        if let first = matches.first { scroll = first }
    }

    public mutating func nextMatch() {
        guard !matches.isEmpty else { return }
        scroll = matches.first { $0 > scroll } ?? matches[0]
    }

    private mutating func updateMatches() {
        guard !search.isEmpty else { matches = []; return }
        let needle = search
        matches = lines().enumerated().filter { $0.element.text.localizedCaseInsensitiveContains(needle) }.map(\.offset)
    }
}

/// A line of text with one style.
public struct StyledLine: Sendable, Equatable {
    public var text: String
    public var style: Style

    public init(_ text: String, _ style: Style = .plain) {
        self.text = text
        self.style = style
    }
}

/// What each detail tab shows, as lines.
enum DetailContent {
    static func lines(for tab: DetailState.Tab, of message: DebugMessage) -> [StyledLine] {
        switch tab {
        case .request:
            guard let original = message.original else {
                if message.state.isTerminal { return [StyledLine("The request was refused before it was composed.", .dim)] }
                return [StyledLine("Running: the request shows here when it finishes.", .dim)]
            }
            var lines = [StyledLine("\(original.method) \(original.url)", .bold)]
            // A request known only as typed (no parameters, no timeout) says so, rather than
            // showing as if composed.
            if original.isAsTyped {
                // Sent, if it has a response or was measured: only its description was missed.
                let wentOut = message.response != nil || message.timings != nil
                let why = switch message.error?.kind {
                case _ where wentOut, nil: "Shown as typed: nothing was listening when it was composed."
                case .cancelled?: "Cancelled before it was composed: shown as typed."
                case _?: "Refused before it was composed: shown as typed. The Error tab says why."
                }
                lines.append(StyledLine(why, .dim))
            }
            lines += original.headers.map { StyledLine("\($0.name): \($0.value)") }
            if !original.isAsTyped, original.params != .null, original.params != .object([]) { lines += [StyledLine(""), StyledLine("Parameters", .title)] + json(original.params) }
            if let body = original.body { lines += [StyledLine(""), StyledLine("Body", .title)] + bodyLines(body) }
            if let parts = message.transfer?.requestLines, !parts.isEmpty {
                lines += [StyledLine(""), StyledLine("Body from files and parts", .title)] + parts.map { StyledLine($0) }
            }
            if original.timeoutMilliseconds > 0 {
                lines.append(StyledLine(""))
                lines.append(StyledLine("timeout \(original.timeoutMilliseconds) ms", .dim))
            }
            return lines
        case .wire:
            guard let sent = message.sent else { return [StyledLine("Nothing was written to the wire.", .dim)] }
            var lines = sent.head.components(separatedBy: "\r\n").dropLast().map { StyledLine($0) }
            if let body = sent.body { lines += bodyLines(body) }
            return lines
        case .response:
            guard let response = message.response else { return [StyledLine("No response arrived.", .dim)] }
            var lines = [StyledLine(response.statusLine, Style.status(response.statusCode).union(.bold))]
            lines += response.headers.map { StyledLine("\($0.name): \($0.value)") }
            lines.append(StyledLine(""))
            if let facts = message.transfer?.responseLines, !facts.isEmpty {
                lines += facts.map { StyledLine($0, .dim) } + [StyledLine("")]
            }
            if message.hasUnkeptEventStreamBody, let stream = message.stream {
                let events = stream.eventCount == 1 ? "1 event" : "\(stream.eventCount) events"
                return lines + [StyledLine("An event stream of \(response.body.size) bytes, read as \(events): the Stream tab shows them.", .dim)]
            }
            return lines + bodyLines(response.body)
        case .error:
            guard let error = message.error else { return [StyledLine("No error.", .good)] }
            var lines = [StyledLine(error.kind.rawValue, .bad), StyledLine(error.message)]
            if let code = error.code { lines.append(StyledLine("code \(code)", .dim)) }
            return lines
        case .timing:
            return []
        case .stream:
            return streamLines(message)
        case .pipeline:
            guard let record = message.pipeline else {
                return [StyledLine("Nothing from the middle layer: no cache, mock, retry, signer, filter or plugin was in play.", .dim)]
            }
            let rows = record.lines
            guard !rows.isEmpty else { return [StyledLine("The middle layer ran and changed nothing.", .dim)] }
            return rows.map { StyledLine($0) }
        }
    }

    /// A streamed response: a summary line, then each kept event with its arrival time.
    static func streamLines(_ message: DebugMessage) -> [StyledLine] {
        guard let stream = message.stream else {
            return [StyledLine(message.state.isTerminal ? "Not a streamed response." : "Running; nothing streamed yet.", .dim)]
        }
        var summary = "\(stream.eventCount) event(s), \(stream.chunks) chunk(s), \(stream.bytes) B"
        if let id = stream.lastEventID { summary += ", last ID \(id)" }
        if let retry = stream.retryMilliseconds { summary += ", retry \(retry) ms" }
        if stream.reconnectAttempt > 0 { summary += ", reconnection \(stream.reconnectAttempt)" }
        if !message.state.isTerminal { summary += "  (live)" }
        var lines = [StyledLine(summary, .title)]
        if stream.eventsNotKept > 0 { lines.append(StyledLine("[\(stream.eventsNotKept) earlier event(s) not kept]", .dim)) }
        for event in stream.events {
            let time: String = event.receivedAt.clockText
            let id: String = event.id.map { "  id=\($0)" } ?? ""
            lines.append(StyledLine(time + "  " + event.event + id, .bold))
            lines += event.data.split(separator: "\n", omittingEmptySubsequences: false).map { StyledLine("  " + $0) }
        }
        return lines
    }

    /// A body: pretty JSON, text, or a hex dump for binary, with a note when only a preview was kept.
    static func bodyLines(_ body: BodySnapshot) -> [StyledLine] {
        var lines: [StyledLine]
        let type = body.contentType?.lowercased() ?? ""
        if let text = body.text, !text.contains("\u{0}") {
            // Indented with every token as received: a number a double cannot hold is shown as
            // the server sent it. Any type naming JSON (`text/json` too) is shown so when it
            // parses: a way of showing, looser on purpose than what the writer saves as `json:`.
            if type.contains("json"), let indented = JSONLayout.indented(text) {
                lines = indented.split(separator: "\n").map { StyledLine(String($0)) }
            } else {
                // "\r\n" is one Character, so line ends are matched as characters of their own.
                lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }.map { StyledLine(String($0)) }
            }
        } else {
            lines = hexDump(body.data)
        }
        if body.isTruncated {
            lines.append(StyledLine("[preview: the first part of a body of \(body.size) bytes]", .dim))
        }
        return lines
    }

    static func json(_ value: JSONValue) -> [StyledLine] {
        value.serialized(pretty: true).split(separator: "\n").map { StyledLine(String($0)) }
    }

    /// Sixteen bytes a line: the offset in eight hex digits (more past 4 GiB), the bytes in hex,
    /// and the printable ones as text (`.` for the rest). Each line is written as bytes from a
    /// table: formatting each byte with `String(format:)` took seconds for a megabyte, during
    /// which the interface answered no key.
    static func hexDump(_ data: Data) -> [StyledLine] {
        let digits: StaticString = "0123456789abcdef"
        let hex = digits.utf8Start
        var lines: [StyledLine] = []
        lines.reserveCapacity((data.count + 15) / 16)
        data.withUnsafeBytes { bytes in
            var line = [UInt8](repeating: 0x20, count: 60 + 16)
            var offset = 0
            while offset < bytes.count {
                let count = min(16, bytes.count - offset)
                let address = offset < 1 << 32 ? nil : String(offset, radix: 16)
                for place in 0..<8 { line[place] = hex[(offset >> ((7 - place) * 4)) & 0xF] }
                for index in 0..<16 {
                    let at = 10 + index * 3
                    if index < count {
                        let byte = bytes[offset + index]
                        line[at] = hex[Int(byte >> 4)]
                        line[at + 1] = hex[Int(byte & 0xF)]
                        line[60 + index] = (0x20..<0x7F).contains(byte) ? byte : UInt8(ascii: ".")
                    } else {
                        line[at] = 0x20
                        line[at + 1] = 0x20
                    }
                }
                let text = String(decoding: line[0..<(60 + count)], as: UTF8.self)
                lines.append(StyledLine(address.map { $0 + text.dropFirst(8) } ?? text))
                offset += 16
            }
        }
        return lines
    }
}

extension Style {
    func union(_ other: Style) -> Style {
        var style = self
        style.bold = bold || other.bold
        style.reverse = reverse || other.reverse
        style.underline = underline || other.underline
        style.dim = dim || other.dim
        return style
    }
}
