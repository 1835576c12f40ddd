import CNCurses
import Foundation

/// The real terminal through ncursesw. Only the curses thread may use it. Rows that did not change
/// since the last frame are not redrawn.
public final class CursesScreen: Screen {
    private var previous: FrameBuffer?
    private let usesColor: Bool
    private var colorPairs: [Int: Int32] = [:]
    /// Keys read while looking for a paste that turned out to be something else.
    private var pending: [Key] = []
    /// The terminal hung up (its window was closed, its connection dropped): nothing will come
    /// from it any more, and the interface ends as on SIGHUP. A process in a group of its own
    /// (`timeout curlew tui`) gets no SIGHUP when that happens; it reads end-of-file instead.
    public private(set) var terminalLost = false
    /// Inside a bracketed paste whose end marker has not arrived yet.
    private var pasting = false
    /// The first bytes of a character, or of the end marker, a paste's last piece ended inside
    /// of, for the next piece; for a moment, a second paste's bytes from `nextPaste`.
    private var pasteCarry: [UInt8] = []
    /// A second paste that began right behind the one read last (in the same read, or within
    /// `afterEndWait`): its bytes so far, to be read as a paste before curses is asked for anything.
    private var nextPaste: [UInt8]?
    /// Where a paste's bytes are read into, a block at a time.
    private var readBuffer = [UInt8](repeating: 0, count: 64 << 10)
    /// When the paste's last piece ended (its last character, or the short wait after it). A
    /// paste whose end marker never comes (a terminal that drops it) ends after `pasteGiveUp` of
    /// silence, so the keyboard is never lost to it.
    private var lastPasted = ContinuousClock.now
    private static let pasteGiveUp: Duration = .seconds(1)
    /// An ESC was read that may start a paste; it is looked at on the next read.
    private var escapeRead = false
    /// How long the bytes of a paste marker, and the rest of a paste, are waited for.
    private static let markerWait: Int32 = 25
    private static let pasteWait = 200
    /// Bytes delivered as one `.paste` at most: a curl command of megabytes (a URL past what
    /// a request head holds, a large body) still arrives whole, and is refused or kept whole
    /// rather than cut into a shorter request.
    private static let pasteChunk = 8 << 20

    /// Bracketed paste: the terminal wraps pasted text in these, so a paste is never read as keys.
    private static let pasteOn = "\u{1B}[?2004h", pasteOff = "\u{1B}[?2004l"
    private static let pasteStart: [UInt32] = Array("[200~".unicodeScalars.map(\.value))
    private static let pasteEnd: [UInt8] = Array("\u{1B}[201~".utf8)
    /// The start marker as bytes, Esc included.
    private static let pasteStartBytes: [UInt8] = [0x1B] + pasteStart.map { UInt8($0) }
    /// How long bytes right behind an end marker are waited for: a terminal writes a paste's
    /// pieces back to back, so what comes this soon is the paste's, not a key.
    private static let afterEndWait = 10
    /// An end marker read with no paste open (pasted text can carry one and end the paste early):
    /// dropped, not read as Esc and four keys.
    private static let strayPasteEnd: [UInt32] = Array("[201~".unicodeScalars.map(\.value))

    private let theme: Theme

    /// Takes over the terminal: raw keys (Ctrl-C arrives as a key), no echo, keypad, no cursor.
    public init(theme: Theme = .dark) {
        self.theme = theme
        setlocale(LC_ALL, "")
        // Without a UTF-8 locale ncursesw prints multibyte text as escapes; C.UTF-8 is always there.
        let current = String(cString: setlocale(LC_CTYPE, nil))
        if !current.uppercased().contains("UTF-8"), !current.uppercased().contains("UTF8") {
            setlocale(LC_CTYPE, "C.UTF-8")
        }
        initscr()
        raw()
        // Carriage returns arrive as they were sent: a pasted CRLF line end stays one line end,
        // where the terminal's CR-to-NL translation made it two (and ended a pasted command at its
        // first continuation). Return is read as Enter either way.
        nonl()
        noecho()
        _ = curlew_keypad(1)
        curs_set(0)
        set_escdelay(25)
        // COLORS is only set once start_color() has run: read it after, never before.
        var colors = false
        if has_colors(), ProcessInfo.processInfo.environment["NO_COLOR"] == nil, start_color() == OK {
            use_default_colors()
            colors = curlew_colors() >= 8
        }
        usesColor = colors
        Self.writeToTerminal(Self.pasteOn)
    }

    /// Gives the terminal back as it was. The screen is cleared first: a terminal without an
    /// alternate screen (or one resized while the interface ran) would otherwise keep fragments
    /// of the last frame under the shell prompt.
    public func close() {
        if isendwin() == false {
            Self.writeToTerminal(Self.pasteOff)
            erase()
            refresh()
            endwin()
        }
    }

    /// Puts text on the clipboard of the terminal (and, through tmux or SSH, of the desktop)
    /// with OSC 52.
    public func copyToClipboard(_ text: String) {
        Self.writeToTerminal("\u{1B}]52;c;" + Data(text.utf8).base64EncodedString() + "\u{07}")
    }

    /// Hands the terminal to another program (an editor) until `resume()`.
    public func suspend() {
        Self.writeToTerminal(Self.pasteOff)
        def_prog_mode()
        endwin()
    }

    /// Takes the terminal back after `suspend()` and draws the next frame whole.
    public func resume() {
        reset_prog_mode()
        Self.writeToTerminal(Self.pasteOn)
        previous = nil
        clear()
        refresh()
    }

    private static func writeToTerminal(_ sequence: String) {
        var bytes = Array(sequence.utf8)
        _ = bytes.withUnsafeMutableBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
    }

    public var size: (rows: Int, columns: Int) {
        var rows: Int32 = 0
        var columns: Int32 = 0
        curlew_getmaxyx(&rows, &columns)
        return (Int(rows), Int(columns))
    }

    public func setMouse(_ enabled: Bool) {
        _ = curlew_mousemask(enabled ? curlew_mouse_mask_all() : 0)
    }

    public func present(_ frame: FrameBuffer) {
        let sameSize = previous.map { $0.rows == frame.rows && $0.columns == frame.columns } ?? false
        if !sameSize { erase() }
        for row in 0..<frame.rows {
            if sameSize, let previous, (0..<frame.columns).allSatisfy({ previous[row, $0] == frame[row, $0] }) { continue }
            drawRow(row, of: frame)
        }
        previous = frame
        refresh()
    }

    private func drawRow(_ row: Int, of frame: FrameBuffer) {
        var column = 0
        while column < frame.columns {
            let style = frame[row, column].style
            let start = column
            var text = ""
            while column < frame.columns, frame[row, column].style == style {
                text += frame[row, column].text
                column += 1
            }
            _ = curlew_attrset(attributes(for: style))
            // The bottom-right cell makes curses scroll on some terminals; leave it blank.
            if row == frame.rows - 1, column == frame.columns, !text.isEmpty { text.removeLast() }
            _ = curlew_mvaddstr(Int32(row), Int32(start), text)
        }
        _ = curlew_attrset(0)
    }

    private func attributes(for style: Style) -> Int32 {
        let style = theme.apply(style)
        var attributes: Int32 = 0
        if style.bold { attributes |= Int32(curlew_attr_bold()) }
        if style.reverse { attributes |= Int32(curlew_attr_reverse()) }
        if style.underline { attributes |= Int32(curlew_attr_underline()) }
        if style.dim { attributes |= Int32(curlew_attr_dim()) }
        if usesColor, style.foreground != .standard || style.background != .standard {
            attributes |= Int32(curlew_color_pair(Int32(pair(for: style))))
        }
        return attributes
    }

    private func pair(for style: Style) -> Int32 {
        let key = (style.foreground.rawValue + 1) * 16 + style.background.rawValue + 1
        if let pair = colorPairs[key] { return pair }
        let pair = Int32(colorPairs.count + 1)
        init_pair(Int16(pair), Int16(style.foreground.rawValue), Int16(style.background.rawValue))
        colorPairs[key] = pair
        return pair
    }

    /// Waits up to `milliseconds` for a key (0: just checks). Returns nil when none came.
    public func readKey(timeout milliseconds: Int) -> Key? {
        // Until its end marker arrives, everything is part of the paste, however it was split.
        if pasting { return readPaste(timeout: milliseconds) }
        if !pending.isEmpty { return pending.removeFirst() }
        if let next = nextPaste {
            nextPaste = nil
            pasting = true
            lastPasted = .now
            pasteCarry = next
            return readPaste(timeout: Self.pasteWait)
        }
        if escapeRead {
            escapeRead = false
            return readAfterEscape()
        }
        _ = curlew_timeout(Int32(milliseconds))
        var character: wint_t = 0
        let started = ContinuousClock.now
        let result = curlew_get_wch(&character)
        if result == ERR {
            // Nothing at once, before the wait was over: a signal, or a terminal that is gone
            // or not this process group's to read, which would make the loop spin.
            if milliseconds > 0, ContinuousClock.now - started < .milliseconds(milliseconds) / 2 { noticeUnreadableTerminal(waiting: milliseconds) }
            return nil
        }
        if result == KEY_CODE_YES { return Self.functionKey(Int32(character)) }
        if character == 27 { return readAfterEscape() }
        return Self.key(for: character)
    }

    /// Marks the terminal lost when it hung up or closed; when it only belongs to another
    /// process group's turn (a background job whose reads fail instead of stopping it), waits
    /// out `milliseconds` rather than asking again at once.
    private func noticeUnreadableTerminal(waiting milliseconds: Int) {
        var terminal = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        if poll(&terminal, 1, 0) > 0, terminal.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 {
            terminalLost = true
        } else if tcgetpgrp(STDIN_FILENO) != getpgrp() {
            usleep(useconds_t(milliseconds) * 1000)
        }
    }

    /// After ESC: a paste's start marker (`ESC [200~`) begins a paste; anything else is Escape
    /// followed by whatever came, as before. The marker's bytes get as long as ncurses waits for
    /// an escape sequence, so a slow link does not split it into keys.
    private func readAfterEscape() -> Key? {
        var read: [UInt32] = []
        _ = curlew_timeout(Self.markerWait)
        while read.count < Self.pasteStart.count {
            var character: wint_t = 0
            let result = curlew_get_wch(&character)
            let next = read + [UInt32(character)]
            let continues = Self.pasteStart.starts(with: next) || Self.strayPasteEnd.starts(with: next)
            guard result != ERR, result != KEY_CODE_YES, continues else {
                // A control sequence curses did not know (`ESC [ 9 s`, a cursor report `ESC [
                // 999;999 R`, `ESC O x`) is dropped whole: read as keys, its last byte would act
                // (an `s` that sends).
                if result != ERR, result != KEY_CODE_YES, case .read(let key) = readControlSequence(after: next) { return key }
                pending += read.compactMap { Self.key(for: wint_t($0)) }
                if result == KEY_CODE_YES, let key = Self.functionKey(Int32(character)) {
                    pending.append(key)
                } else if result != ERR, character == 27 {
                    // Another ESC may itself start a paste: read it as one after these keys.
                    escapeRead = true
                } else if result != ERR, let key = Self.key(for: character) {
                    pending.append(key)
                }
                return .escape
            }
            read.append(UInt32(character))
        }
        if read == Self.strayPasteEnd { return nil }
        pasting = true
        lastPasted = .now
        return readPaste(timeout: Self.pasteWait)
    }

    /// What `readControlSequence` made of what followed an ESC.
    private enum ControlSequence {
        /// Not a control sequence: Escape, then keys, as before.
        case none
        /// Read to its end: what the read returns (nil when the sequence is dropped), with what
        /// else came queued in `pending` (or `escapeRead`).
        case read(Key?)
    }

    /// Reads the rest of a control sequence that `next` (what followed an ESC, its last
    /// character read as a plain one) starts, to drop it: `ESC [` (CSI) or `ESC O` (SS3), then
    /// parameter and intermediate bytes up to a final byte, as ECMA-48 has them; or a control
    /// string, `ESC ]` (OSC), `ESC P` (DCS), `ESC _` (APC), `ESC ^` (PM) or `ESC X` (SOS), up to
    /// its BEL or `ESC \`, as terminals answer queries (a colour, the clipboard, a version).
    /// A sequence cut short by a pause is dropped; one interrupted by another character is
    /// dropped and that character read as itself (an ESC starting anew, so a paste right behind
    /// it is still a paste). An introducer with nothing right behind it (Alt-O, Alt-P) is Escape
    /// and that key, as before.
    private func readControlSequence(after next: [UInt32]) -> ControlSequence {
        guard let introducer = next.first, let last = next.last else { return .none }
        if Self.stringIntroducers.contains(introducer) { return readControlString() }
        let isSS3 = introducer == Unicode.Scalar("O").value
        guard isSS3 || introducer == Unicode.Scalar("[").value else { return .none }
        var current = last
        var hasParameters = false
        if isSS3 {
            var character: wint_t = 0
            let result = curlew_get_wch(&character)
            if result == ERR { return .none }
            if result == KEY_CODE_YES {
                if let key = Self.key(for: wint_t(introducer)) { pending.append(key) }
                deliver(result, character)
                return .read(.escape)
            }
            current = UInt32(character)
        }
        while !Self.isFinalByte(current) {
            guard Self.isParameterOrIntermediate(current) else {
                deliver(OK, wint_t(current))
                return .read(nil)
            }
            hasParameters = true
            var character: wint_t = 0
            let result = curlew_get_wch(&character)
            if result == ERR { return .read(nil) }
            if result == KEY_CODE_YES {
                deliver(result, character)
                return .read(nil)
            }
            current = UInt32(character)
        }
        // The keypad in application mode sends its keys as SS3 without parameters: read as
        // what they say.
        return .read(isSS3 && !hasParameters ? Self.applicationKeypad[current] : nil)
    }

    /// The keys the numeric keypad sends in application mode (`ESC O p` is 0, `ESC O M` Enter)
    /// when the terminal description names none of them.
    private static let applicationKeypad: [UInt32: Key] = {
        var keys: [UInt32: Key] = [Unicode.Scalar("M").value: .enter]
        for (final, character) in zip("pqrstuvwxyklmjon", "0123456789+,-*/.") {
            keys[final.unicodeScalars.first!.value] = .character(character)
        }
        return keys
    }()

    /// `ESC ]`, `ESC P`, `ESC _`, `ESC ^` and `ESC X`: what starts a control string.
    private static let stringIntroducers: Set<UInt32> = Set("]P_^X".unicodeScalars.map(\.value))

    /// Reads a control string to its end (BEL, or ESC and `\`) to drop it; nothing right behind
    /// its introducer makes it Escape and a key. An ESC followed by anything else ends it and
    /// starts anew. A string cut short by a pause is dropped.
    private func readControlString() -> ControlSequence {
        var character: wint_t = 0
        var result = curlew_get_wch(&character)
        if result == ERR { return .none }
        while result != ERR {
            if result == OK, character == 0x07 { return .read(nil) }
            if result == OK, character == 27 {
                var after: wint_t = 0
                let ended = curlew_get_wch(&after)
                if ended == OK, after == 0x5C { return .read(nil) }
                // A new sequence: its ESC is read next, then what came after it.
                if ended == OK { _ = curlew_unget_wch(wchar_t(after)) }
                escapeRead = true
                return .read(nil)
            }
            result = curlew_get_wch(&character)
        }
        return .read(nil)
    }

    /// Queues a character read after ESC as the key it is (an ESC to be read as a new start).
    private func deliver(_ result: Int32, _ character: wint_t) {
        if result == KEY_CODE_YES {
            if let key = Self.functionKey(Int32(character)) { pending.append(key) }
        } else if character == 27 {
            escapeRead = true
        } else if let key = Self.key(for: character) {
            pending.append(key)
        }
    }

    /// ECMA-48's final bytes (0x40–0x7E), which end a control sequence.
    private static func isFinalByte(_ character: UInt32) -> Bool {
        (0x40...0x7E).contains(character)
    }

    /// ECMA-48's parameter (0x30–0x3F) and intermediate (0x20–0x2F) bytes.
    private static func isParameterOrIntermediate(_ character: UInt32) -> Bool {
        (0x20...0x3F).contains(character)
    }

    /// Pasted text up to the end marker, CR and CRLF read as newlines, as one `.paste`. A paste
    /// that pauses (or is larger than a chunk) is delivered in pieces, every one of them text,
    /// until the end marker arrives; a mouse report that arrives inside a paste is dropped.
    ///
    /// A paste is read as bytes and decoded here, a byte that is not UTF-8 becoming U+FFFD:
    /// curses' own decoding gave up at such a byte and lost the rest of the paste with it. A
    /// character, or an end marker, cut between two pieces is carried to the next.
    ///
    /// The terminal is read directly, not through curses, which reads a byte per system call
    /// (about 3 s for a megabyte): `poll` waits for it, and what it has sent is read in one
    /// call. curses holds nothing of the paste: it read the start marker last, and stops at a
    /// marker's end.
    ///
    /// An end marker with bytes right behind it (in the same read, or within `afterEndWait`) was
    /// carried by the pasted text itself, since nobody types that fast: it is dropped and the
    /// paste goes on, so a crafted clipboard cannot end a paste early and have the rest read as
    /// keys. Mouse reports right behind it are the terminal's and do not count; another paste's
    /// start marker right behind it begins a paste of its own. (Keys typed while the interface
    /// was busy with a large paste can wait behind its end marker and are then read as text.)
    private func readPaste(timeout milliseconds: Int) -> Key? {
        var bytes = pasteCarry
        pasteCarry = []
        var read = 0
        var looked = 0
        while pasting {
            if let end = Self.endMarker(in: bytes, after: looked) {
                let restStart = end + Self.pasteEnd.count
                let room = max(Self.pasteStartBytes.count, Self.pasteChunk - bytes.count)
                if restStart == bytes.count, let more = readTerminal(waitingUpTo: Self.afterEndWait, atMost: room) {
                    bytes += more
                    read += more.count
                }
                // Mouse reports right behind the marker (a moving mouse) are the terminal's, not the paste's.
                var rest = Self.droppingLeadingMouseReports(bytes[restStart...])
                // A start marker cut by the read is waited for before it is judged.
                if !rest.isEmpty, rest.count < Self.pasteStartBytes.count, Self.pasteStartBytes.starts(with: rest),
                   let more = readTerminal(waitingUpTo: Int(Self.markerWait), atMost: room) {
                    bytes += more
                    read += more.count
                    rest = Self.droppingLeadingMouseReports(bytes[restStart...])
                }
                if rest.isEmpty || rest.starts(with: Self.pasteStartBytes) {
                    if !rest.isEmpty { nextPaste = Array(rest.dropFirst(Self.pasteStartBytes.count)) }
                    bytes.removeSubrange(end...)
                    pasting = false
                    break
                }
                bytes.removeSubrange(end..<restStart)
                // A marker found later starts at `end` or after: bytes either side of the one
                // removed do not make one.
                looked = end + Self.pasteEnd.count - 1
                continue
            }
            looked = bytes.count
            guard bytes.count < Self.pasteChunk,
                  let more = readTerminal(waitingUpTo: read == 0 ? max(milliseconds, 0) : Self.pasteWait, atMost: Self.pasteChunk - bytes.count)
            else { break }
            bytes += more
            read += more.count
        }
        // Bytes read, even all carried, show the paste is still arriving.
        if read > 0 { lastPasted = .now }
        if pasting {
            let cut = max(UTF8Tail.incompleteCount(bytes), Self.endMarkerPrefixCount(bytes))
            pasteCarry = Array(bytes.suffix(cut))
            bytes.removeLast(cut)
        }
        bytes = Self.droppingMouseReports(bytes)
        guard !bytes.isEmpty else {
            guard pasting, ContinuousClock.now - lastPasted > Self.pasteGiveUp else { return nil }
            pasting = false
            // A character the paste never finished is shown as what it is: not UTF-8. The start
            // of an end marker that never finished is no text.
            guard !pasteCarry.isEmpty, !Self.pasteEnd.starts(with: pasteCarry) else {
                pasteCarry = []
                return nil
            }
            defer { pasteCarry = [] }
            return .paste(String(decoding: pasteCarry, as: UTF8.self))
        }
        lastPasted = .now
        return .paste(PastedLineEnds.normalized(String(decoding: bytes, as: UTF8.self)))
    }

    /// What the terminal has sent, at most `limit` bytes, once it has something (waiting up to
    /// `milliseconds`); nil when nothing came or it is closed.
    /// A signal (a resize) interrupting the wait or the read does not count as silence.
    private func readTerminal(waitingUpTo milliseconds: Int, atMost limit: Int) -> [UInt8]? {
        let deadline = ContinuousClock.now + .milliseconds(milliseconds)
        var terminal = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        while true {
            let left = max(0, Int(((deadline - ContinuousClock.now) / .milliseconds(1)).rounded(.up)))
            let ready = poll(&terminal, 1, Int32(left))
            if ready > 0 { break }
            guard ready < 0, errno == EINTR else { return nil }
        }
        let wanted = min(max(Int(curlew_input_pending()), 1), max(limit, 1), readBuffer.count)
        var got = -1
        repeat {
            got = readBuffer.withUnsafeMutableBytes { Foundation.read(STDIN_FILENO, $0.baseAddress!, wanted) }
        } while got < 0 && errno == EINTR
        guard got > 0 else { return nil }
        return Array(readBuffer[0..<got])
    }

    /// `rest` without the complete mouse reports at its start.
    private static func droppingLeadingMouseReports(_ rest: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var rest = rest
        while let length = mouseReportLength(at: rest) { rest = rest.dropFirst(length) }
        return rest
    }

    /// The length of the SGR mouse report `bytes` start with (`ESC [ <`, digits and semicolons,
    /// then `M` or `m`); nil when they start with none, or with one cut short.
    private static func mouseReportLength(at bytes: ArraySlice<UInt8>) -> Int? {
        let lead: [UInt8] = [0x1B, UInt8(ascii: "["), UInt8(ascii: "<")]
        guard bytes.starts(with: lead) else { return nil }
        var end = bytes.startIndex + lead.count
        while end < bytes.endIndex, bytes[end] == UInt8(ascii: ";") || (0x30...0x39).contains(bytes[end]) { end += 1 }
        guard end < bytes.endIndex, end > bytes.startIndex + lead.count,
              bytes[end] == UInt8(ascii: "M") || bytes[end] == UInt8(ascii: "m") else { return nil }
        return end + 1 - bytes.startIndex
    }

    /// How many bytes at the end of `bytes` are the start of an end marker (0 when none).
    private static func endMarkerPrefixCount(_ bytes: [UInt8]) -> Int {
        for count in stride(from: min(pasteEnd.count - 1, bytes.count), through: 1, by: -1)
        where bytes.suffix(count).elementsEqual(pasteEnd.prefix(count)) {
            return count
        }
        return 0
    }

    /// `bytes` without the mouse reports in them (`mouseReportLength`): a terminal reports the
    /// mouse between the pieces of a paste it writes, and a report is not what was pasted.
    private static func droppingMouseReports(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.contains(0x1B) else { return bytes }
        var kept: [UInt8] = []
        kept.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x1B, let length = mouseReportLength(at: bytes[index...]) {
                index += length
                continue
            }
            kept.append(bytes[index])
            index += 1
        }
        return kept
    }

    /// Where the paste's end marker starts in `bytes`, looking only where it could end among
    /// the bytes from `start` on (the rest were looked at before).
    private static func endMarker(in bytes: [UInt8], after start: Int) -> Int? {
        let marker = pasteEnd
        var candidate = max(0, start - (marker.count - 1))
        while candidate + marker.count <= bytes.count {
            if bytes[candidate] == marker[0], bytes[candidate..<(candidate + marker.count)].elementsEqual(marker) { return candidate }
            candidate += 1
        }
        return nil
    }

    private static func key(for character: wint_t) -> Key? {
        switch character {
        case 27: return .escape
        case 9: return .tab
        case 10, 13: return .enter
        case 127, 8: return .backspace
        case 1...26: return .control(Character(Unicode.Scalar(UInt8(character) + 96)))
        default:
            guard let scalar = Unicode.Scalar(UInt32(character)) else { return nil }
            return .character(Character(scalar))
        }
    }

    private static func functionKey(_ code: Int32) -> Key? {
        switch code {
        case KEY_UP: return .up
        case KEY_DOWN: return .down
        case KEY_LEFT: return .left
        case KEY_RIGHT: return .right
        case KEY_PPAGE: return .pageUp
        case KEY_NPAGE: return .pageDown
        case KEY_HOME: return .home
        case KEY_END: return .end
        case KEY_ENTER: return .enter
        case KEY_BACKSPACE: return .backspace
        case KEY_DC: return .delete
        case KEY_BTAB: return .backTab
        case KEY_RESIZE: return .resize
        case KEY_MOUSE:
            var row: Int32 = 0
            var column: Int32 = 0
            var buttons: UInt = 0
            guard curlew_getmouse(&row, &column, &buttons) == 0 else { return nil }
            let kind: MouseEvent.Kind
            if buttons & curlew_wheel_up() != 0 { kind = .wheelUp }
            else if curlew_wheel_down() != 0, buttons & curlew_wheel_down() != 0 { kind = .wheelDown }
            else if buttons & curlew_button1_pressed() != 0 { kind = .click }
            else { return nil }
            return .mouse(MouseEvent(kind: kind, row: Int(row), column: Int(column)))
        case KEY_F0 + 1...KEY_F0 + 12: return .function(Int(code - KEY_F0))
        default: return nil
        }
    }
}
