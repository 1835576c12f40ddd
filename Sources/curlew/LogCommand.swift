import ArgumentParser
import CurlewAgent
import CurlewSessions
import CurlewTUI
import Foundation

/// `curlew log show|stats|diff`: session logs (and HAR files) read from the command line.
struct LogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract: "Show, measure and compare session logs (JSON Lines) and HAR files.",
        subcommands: [Show.self, Stats.self, Diff.self]
    )

    /// Reads a log and keeps the exchanges matching the filter. Lines that could not be read are
    /// reported on stderr, the first with its line number and reason.
    static func load(_ path: String, filter: String?, redacting: Bool) throws -> [DebugMessage] {
        try loadNumbered(path, filter: filter, redacting: redacting).exchanges.map(\.message)
    }

    /// A log's exchanges with their entry numbers, as the log browser numbers them.
    struct NumberedLog {
        var exchanges: [(number: Int, message: DebugMessage)]
        var scanned: Scanned
        var unreadable: Set<Int> { scanned.unreadable }
        var entryCount: Int { scanned.entryCount }
    }

    /// What reading a whole log found besides its exchanges.
    struct Scanned {
        /// The numbers of entries whose lines are damaged (their summaries read, their records not).
        var unreadable: Set<Int>
        /// How many entries the whole log has, readable or not, before any filter.
        var entryCount: Int
    }

    /// `load`, each exchange with its number in the whole log (from 1), as `diff`'s `LOG#N` names it.
    static func loadNumbered(_ path: String, filter: String?, redacting: Bool) throws -> NumberedLog {
        var exchanges: [(number: Int, message: DebugMessage)] = []
        let scanned = try scan(path, filter: filter, redacting: redacting) { exchanges.append(($0, $1)) }
        return NumberedLog(exchanges: exchanges, scanned: scanned)
    }

    /// Hands `visit` each exchange of the log matching the filter, with its number in the whole
    /// log, as its line is read: a command that keeps less than the exchanges (a table's rows,
    /// counts) holds no more than that. `redacting`: secrets hidden again, as an export and the
    /// log browser hide them (a log written with `--no-redact` holds them), after the filter has
    /// read the exchange as written. Lines that could not be read are reported on stderr once
    /// the log is read, the first with its line number and reason.
    static func scan(_ path: String, filter: String?, redacting: Bool, _ visit: (Int, DebugMessage) -> Void) throws -> Scanned {
        // A filter that does not parse is refused before the log is read.
        let parsed: MessageFilter?
        do { parsed = try filter.map(MessageFilter.parse) } catch { throw RunCommand.usageFailure("--filter: \(error)") }
        let policy = redacting ? RedactionPolicy() : nil
        var lastNumber = 0
        let skipped: ExchangeFile.SkippedLines
        do {
            skipped = try ExchangeFile.forEachExchange(path: path, describingSkips: 6) { message, number in
                lastNumber = number
                guard parsed?.matches(message) ?? true else { return }
                visit(number, policy.map { $0.redact(message) } ?? message)
            }
        } catch {
            throw RunCommand.usageFailure("\(error)")
        }
        if let gaveUp = parsed?.gaveUpMessage { StandardStreams.error("curlew: warning: --filter: \(gaveUp)\n") }
        let unreadable = skipped.unreadableEntries
        if let first = skipped.described.first {
            let count = skipped.count == 1 ? "1 unreadable line" : "\(skipped.count) unreadable lines"
            // An unreadable line the log browser lists as an entry is named by its number too.
            let numbered = unreadable.isEmpty ? "" : "; entr\(unreadable.count == 1 ? "y" : "ies") " + unreadable.prefix(5).map { "#\($0)" }.joined(separator: ", ")
                + (unreadable.count > 5 ? ", …" : "") + " cannot be read"
            let others = skipped.described.dropFirst().prefix(5).map { String($0.line) }
            let also = others.isEmpty ? "" : "; also line\(others.count == 1 ? "" : "s") " + others.joined(separator: ", ") + (skipped.count > 6 ? ", …" : "")
            StandardStreams.error("curlew: warning: \(path): \(count) skipped (line \(first.line): \(first.reason)\(also))\(numbered)\n")
        }
        return Scanned(unreadable: Set(unreadable), entryCount: max(lastNumber, unreadable.last ?? 0))
    }

    /// Cells joined by two spaces: a positive width pads on the right, a negative one on the
    /// left (numbers), zero leaves the last cell as it is.
    /// Padded by the cells each text takes on a terminal (a CJK character two).
    static func row(_ cells: [(String, Int)]) -> String {
        cells.map { text, width in
            let size = abs(width)
            let taken = columns(text)
            guard size > 0, taken < size else { return text }
            let padding = String(repeating: " ", count: size - taken)
            return width > 0 ? text + padding : padding + text
        }.joined(separator: "  ")
    }

    /// The terminal cells `text` takes.
    static func columns(_ text: String) -> Int {
        text.reduce(0) { $0 + TextWidth.of($1) }
    }

    /// `text` within `width` cells: cut with `…` (which takes one) when it takes more.
    static func fitted(_ text: String, _ width: Int) -> String {
        guard columns(text) > width else { return text }
        var kept = ""
        var taken = 0
        for character in text {
            let cells = TextWidth.of(character)
            guard taken + cells <= width - 1 else { break }
            kept.append(character)
            taken += cells
        }
        return kept + "…"
    }

    /// A line of a table made of a log's fields, which any server or file may have filled:
    /// control characters escaped whether the output is a terminal or not (a table piped to a
    /// file or a pager is read on a terminal all the same), a newline a space off one, and a tab
    /// written `\t`, since it would move the columns after it.
    static func clean(_ text: String) -> String {
        let flat = text.replacingOccurrences(of: "\t", with: "\\t")
        return TerminalText.escapingControls(isatty(STDOUT_FILENO) != 0 ? flat : flat.replacingOccurrences(of: "\n", with: " "))
    }

    /// The log a command reads and the filter it applies.
    struct Selection: ParsableArguments {
        @Argument(help: "The session log or HAR file.")
        var log: String

        @Option(help: "Only exchanges matching this filter (the log browser's language, e.g. '~c 5xx | ~m POST').")
        var filter: String?

        @Flag(help: "Show secrets as the log holds them (a log written with --no-redact); hidden by default.")
        var noRedact = false
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a log's exchanges as a table.")

        @OptionGroup var selection: Selection

        /// The widest status column: the longest error kind with room to spare.
        static let widestStatus = 24
        /// The widest method column: `MKCALENDAR` and the other WebDAV methods with room to spare.
        static let widestMethod = 12

        /// One exchange's line of the table, its cells made safe: all that is kept of it while
        /// the rest of the log is read.
        private struct Row {
            var number: Int
            var time: String
            var method: String
            var status: String
            var duration: String
            var size: String
            var request: String
        }

        func run() throws {
            // Numbered as in the whole log, filtered or not, so a row's `#` is the `LOG#N` diff takes.
            var rows: [Row] = []
            let scanned = try LogCommand.scan(selection.log, filter: selection.filter, redacting: !selection.noRedact) { number, message in
                // A response that did not end the exchange (a stream cancelled while it ran, a body
                // cut by a timeout) shows how it ended beside its status.
                let ended = message.state != .succeeded && message.error?.kind != .unacceptableStatus
                let status = message.response.map { String($0.statusCode) + (ended ? " \(message.state.rawValue)" : "") }
                    ?? (message.error?.kind.rawValue ?? message.state.rawValue)
                let request = (message.name.map { "\($0)  " } ?? "") + (message.original?.url ?? "")
                rows.append(Row(number: number, time: message.startedAt.clockText, method: LogCommand.clean(message.original?.method ?? "-"),
                                status: status, duration: message.timings.map { TimingBreakdown.format($0.elapsed) } ?? "-",
                                size: message.response.map { ByteCountText.of($0.body.size) } ?? "-", request: LogCommand.clean(request)))
            }
            // As wide as the longest status (every error kind whole), within reason: a log is input.
            let statusWidth = min(max(6, rows.map { LogCommand.columns($0.status) }.max() ?? 0), Self.widestStatus)
            // As wide as the longest method (`PROPFIND`), within reason: a longer one is cut.
            let methodWidth = min(max(7, rows.map { LogCommand.columns($0.method) }.max() ?? 0), Self.widestMethod)
            print(LogCommand.row([("#", -5), ("time", 12), ("method", methodWidth), ("status", -statusWidth), ("duration", -10), ("size", -9), ("request", 0)]))
            for row in rows {
                // Each cell made safe before it is padded, so an escape's length keeps the columns.
                print(LogCommand.row([(String(row.number), -5), (row.time, 12), (LogCommand.fitted(row.method, methodWidth), methodWidth),
                                      (LogCommand.clean(LogCommand.fitted(row.status, statusWidth)), -statusWidth), (row.duration, -10), (row.size, -9),
                                      (row.request, 0)]))
            }
            // The log browser counts damaged entries too; so does this line, apart.
            let unreadable = scanned.unreadable.count
            print("\(rows.count) exchange\(rows.count == 1 ? "" : "s")"
                  + (unreadable == 0 ? "" : " (and \(unreadable) entr\(unreadable == 1 ? "y" : "ies") that cannot be read)"))
        }
    }

    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Per-endpoint counts, error rates, and latency percentiles per phase with a histogram.")

        @OptionGroup var selection: Selection

        func run() throws {
            // Counted as the log is read: only each exchange's endpoint and durations are kept.
            var tally = LogStats.Tally()
            _ = try LogCommand.scan(selection.log, filter: selection.filter, redacting: !selection.noRedact) { _, message in tally.add(message) }
            let stats = LogStats(tally)
            // Nothing to count: said, not headings without rows.
            guard stats.total.count > 0 else {
                print("no exchanges to count")
                return
            }
            func ms(_ value: Int64?) -> String { value.map(TimingBreakdown.format) ?? "-" }
            for endpoint in stats.endpoints + [stats.total] {
                let title = endpoint.method.isEmpty ? "All exchanges" : "\(endpoint.method) \(endpoint.path)"
                print(LogCommand.clean("\(title): \(endpoint.count) exchange\(endpoint.count == 1 ? "" : "s"), \(endpoint.errors) error\(endpoint.errors == 1 ? "" : "s") (\(String(format: "%.1f", endpoint.errorRate * 100)) %)"))
                print("  " + LogCommand.row([("phase", 8), ("p50", -12), ("p90", -12), ("p99", -12)]))
                for phase in endpoint.phases where phase.p50 != nil {
                    print("  " + LogCommand.row([(phase.name, 8), (ms(phase.p50), -12), (ms(phase.p90), -12), (ms(phase.p99), -12)]))
                }
            }
            print("Total time histogram:")
            let most = max(1, stats.histogram.max() ?? 1)
            var lower = 0.0
            for (index, count) in stats.histogram.enumerated() {
                let label = index < LogStats.bucketBounds.count ? "\(Self.label(lower))–\(Self.label(LogStats.bucketBounds[index]))" : "≥ \(Self.label(lower))"
                if index < LogStats.bucketBounds.count { lower = LogStats.bucketBounds[index] }
                guard count > 0 else { continue }
                print("  " + LogCommand.row([(label, 14), (String(count), -6), (String(repeating: "█", count: max(1, count * 40 / most)), 0)]))
            }
        }

        static func label(_ milliseconds: Double) -> String {
            milliseconds >= 1000 ? "\(Int(milliseconds / 1000)) s" : "\(Int(milliseconds)) ms"
        }
    }

    struct Diff: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Compare two exchanges side by side: request, response headers, body (JSON-aware) and timing.",
            discussion: """
            LOG#N names the Nth exchange of a log (as `log show` numbers them). Two logs without #N \
            are compared exchange by exchange, paired in order: by name where both have one, then by \
            method and path (numbers and ids in the path folded, as `log stats` groups them). LOG#N \
            against a whole log compares the exchange with its partner in that pairing (in its own \
            log, the one before it that pairs with it, else the one after).
            """
        )

        @Argument(help: "The first exchange: LOG#N, or a log.")
        var left: String

        @Argument(help: "The second exchange: LOG#N, or a log.")
        var right: String

        @Flag(help: "Show every field, not only those that differ.")
        var all = false

        @Flag(help: "Show secrets as the logs hold them (a log written with --no-redact); hidden by default, so two hidden values compare alike.")
        var noRedact = false

        func run() throws {
            let (leftPath, leftIndex) = Self.split(left)
            let (rightPath, rightIndex) = Self.split(right)
            // One log named twice (`a.log#1 a.log#2`) is read, and its unreadable lines reported, once.
            let leftNumbered = try LogCommand.loadNumbered(leftPath, filter: nil, redacting: !noRedact)
            let sameLog = Self.sameFile(leftPath, rightPath)
            let rightNumbered = sameLog ? leftNumbered : try LogCommand.loadNumbered(rightPath, filter: nil, redacting: !noRedact)
            var pairs: [(DebugMessage, DebugMessage, String)] = []
            // Exchanges of two whole logs that found no partner, with their numbers.
            var unpaired: [(log: String, exchanges: [(number: Int, message: DebugMessage)])] = []
            if let leftIndex, let rightIndex {
                pairs = [(try Self.pick(leftNumbered, leftIndex, left), try Self.pick(rightNumbered, rightIndex, right), "\(left) ↔ \(right)")]
            } else if let leftIndex {
                let chosen = try Self.pick(leftNumbered, leftIndex, left)
                let match = try Self.counterpart(of: (leftIndex, chosen), in: leftNumbered, named: left, among: rightNumbered, rightPath, sameLog: sameLog)
                pairs = [(chosen, match.message, "\(left) ↔ \(rightPath)#\(match.number)")]
            } else if let rightIndex {
                let chosen = try Self.pick(rightNumbered, rightIndex, right)
                let match = try Self.counterpart(of: (rightIndex, chosen), in: rightNumbered, named: right, among: leftNumbered, leftPath, sameLog: sameLog)
                pairs = [(match.message, chosen, "\(leftPath)#\(match.number) ↔ \(right)")]
            } else {
                let paired = Self.pairUp(leftNumbered.exchanges, rightNumbered.exchanges)
                pairs = paired.pairs.map { ($0.left.message, $0.right.message, Self.key($0.left.message)) }
                unpaired = [(left, paired.leftAlone), (right, paired.rightAlone)].filter { !$0.exchanges.isEmpty }
                // Logs with no exchange in common are listed as any unpaired exchanges are.
                if pairs.isEmpty, unpaired.isEmpty { throw RunCommand.usageFailure("neither \(left) nor \(right) has an exchange to compare") }
            }
            var differing = 0
            for (a, b, title) in pairs {
                let diff = ExchangeDiff(a, b)
                if !diff.differences.isEmpty { differing += 1 }
                print(LogCommand.clean("== \(title)"))
                Self.printRows(all ? diff.rows : diff.differences, width: Self.width())
                let shownDeltas = diff.timingDeltas.filter { $0.phase == "total" || $0.delta.magnitude >= 1000 }
                if shownDeltas.contains(where: { $0.delta != 0 }) {
                    print("  timing change: " + shownDeltas
                        .map { "\($0.phase) \($0.delta >= 0 ? "+" : "−")\(TimingBreakdown.format(Int64(clamping: $0.delta.magnitude)))" }.joined(separator: ", "))
                }
            }
            // An exchange in one log only is a difference too: named, not left out in silence.
            for (log, exchanges) in unpaired {
                print(LogCommand.clean("== only in \(log): " + (exchanges.count == 1 ? "1 exchange" : "\(exchanges.count) exchanges")))
                for exchange in exchanges.prefix(Self.listedUnpaired) { print(LogCommand.clean("  #\(exchange.number) \(Self.key(exchange.message))")) }
                if exchanges.count > Self.listedUnpaired { print("  … \(exchanges.count - Self.listedUnpaired) more") }
            }
            let alone = unpaired.map { "\($0.exchanges.count) only in \($0.log)" }
            print(LogCommand.clean("\(pairs.count) pair\(pairs.count == 1 ? "" : "s") compared, \(differing) with differences" + alone.map { ", " + $0 }.joined()))
        }

        /// Exchanges listed by number of each log's unpaired ones; the rest are counted.
        static let listedUnpaired = 20

        /// `FILE#N` as the file and the exchange's number; a number too large for an `Int` is
        /// still one (out of range), not part of a file name.
        static func split(_ argument: String) -> (String, Int?) {
            guard let hash = argument.lastIndex(of: "#") else { return (argument, nil) }
            let number = argument[argument.index(after: hash)...]
            let digits = number.first == "-" || number.first == "+" ? number.dropFirst() : number
            guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return (argument, nil) }
            return (String(argument[..<hash]), Int(number) ?? (number.first == "-" ? Int.min : Int.max))
        }

        /// Entry `number` of a log read with its numbers; one the log holds but cannot read (a
        /// damaged line the log browser lists as that entry) is said to be unreadable.
        static func pick(_ log: LogCommand.NumberedLog, _ number: Int, _ argument: String) throws -> DebugMessage {
            if let found = log.exchanges.first(where: { $0.number == number }) { return found.message }
            if log.unreadable.contains(number) { throw RunCommand.usageFailure("\(argument): entry #\(number) cannot be read (its line is damaged)") }
            let count = log.entryCount
            let numbers = count == 0 ? "no exchanges" : count == 1 ? "1 exchange: #1" : "\(count) exchanges: #1 to #\(count)"
            throw RunCommand.usageFailure("\(argument): the log has \(numbers)")
        }

        /// The exchange of `other` (the file `path`) that pairs with `chosen`, entry `number` of
        /// `log` (the argument `argument`): its partner when the two whole logs are paired
        /// (`pairUp`). In the same log, the one before it that pairs with it, else the one after:
        /// an exchange compared with itself says nothing.
        static func counterpart(of chosen: (number: Int, message: DebugMessage), in log: LogCommand.NumberedLog, named argument: String,
                                among other: LogCommand.NumberedLog, _ path: String, sameLog: Bool) throws -> (number: Int, message: DebugMessage) {
            let key = PairingKey(chosen.message)
            // The exchanges of `other` that pair with it, itself left out.
            let like = other.exchanges.filter { !(sameLog && $0.number == chosen.number) && key.pairs(with: PairingKey($0.message)) }
            let match: (number: Int, message: DebugMessage)?
            if sameLog {
                match = like.last { $0.number < chosen.number } ?? like.first { $0.number > chosen.number }
            } else {
                match = pairUp(log.exchanges, other.exchanges).pairs.first { $0.left.number == chosen.number }?.right
            }
            guard let match else {
                let wanted = key.name.map { "named \"\($0)\", or unnamed and \(key.endpoint)" } ?? key.endpoint
                let found = sameLog || like.isEmpty
                    ? "no \(sameLog ? "other " : "")exchange of \(path) pairs with \(argument) (\(wanted))"
                    : "the \(like.count) exchange\(like.count == 1 ? "" : "s") of \(path) like \(argument) (\(wanted)) pair\(like.count == 1 ? "s" : "") with others of its log"
                throw RunCommand.usageFailure("\(found); name one with \(path)#N")
            }
            return match
        }

        /// Two logs' exchanges paired as `diff` pairs them, in two passes: exchanges named on both
        /// sides by name, in order; then what is left by method and path where at least one side
        /// has no name. The pairs come in the left log's order.
        static func pairUp(_ left: [(number: Int, message: DebugMessage)], _ right: [(number: Int, message: DebugMessage)])
            -> (pairs: [(left: (number: Int, message: DebugMessage), right: (number: Int, message: DebugMessage))],
                leftAlone: [(number: Int, message: DebugMessage)], rightAlone: [(number: Int, message: DebugMessage)]) {
            // Each exchange's key made once, not again for every exchange it is compared with.
            let leftKeys = left.map { PairingKey($0.message) }
            let rightKeys = right.map { PairingKey($0.message) }
            // The partner of each left exchange, by their places in the two lists. The right
            // exchanges wait in queues by name and by endpoint, in order, so each left one finds
            // its first free partner without reading the whole right log again.
            var partners: [Int: Int] = [:]
            var taken = Set<Int>()
            var byName: [String: PairingQueue] = [:]
            var byEndpoint: [String: PairingQueue] = [:]
            var unnamedByEndpoint: [String: PairingQueue] = [:]
            for index in right.indices {
                let key = rightKeys[index]
                if let name = key.name { byName[name, default: PairingQueue()].indices.append(index) }
                byEndpoint[key.endpoint, default: PairingQueue()].indices.append(index)
                if key.name == nil { unnamedByEndpoint[key.endpoint, default: PairingQueue()].indices.append(index) }
            }
            // Named on both sides: by name.
            for index in left.indices {
                guard let name = leftKeys[index].name, let match = byName[name]?.takeFirst(notIn: taken) else { continue }
                partners[index] = match
                taken.insert(match)
            }
            // At least one side unnamed: by endpoint, a named left one with an unnamed right one.
            for index in left.indices where partners[index] == nil {
                let key = leftKeys[index]
                let match = key.name == nil ? byEndpoint[key.endpoint]?.takeFirst(notIn: taken) : unnamedByEndpoint[key.endpoint]?.takeFirst(notIn: taken)
                guard let match else { continue }
                partners[index] = match
                taken.insert(match)
            }
            let pairs = left.indices.compactMap { index in partners[index].map { (left: left[index], right: right[$0]) } }
            return (pairs, left.indices.filter { partners[$0] == nil }.map { left[$0] }, right.indices.filter { !taken.contains($0) }.map { right[$0] })
        }

        /// Right exchanges' places in order, read past the taken ones once.
        struct PairingQueue {
            var indices: [Int] = []
            var next = 0

            /// The first place not in `taken`, from where the last search stopped; a place
            /// taken since stays behind.
            mutating func takeFirst(notIn taken: Set<Int>) -> Int? {
                while next < indices.count, taken.contains(indices[next]) { next += 1 }
                guard next < indices.count else { return nil }
                next += 1
                return indices[next - 1]
            }
        }

        /// What pairs an exchange with another: its name, and its method and path with numbers
        /// and ids folded, as `log stats` groups them.
        struct PairingKey {
            let name: String?
            let endpoint: String

            init(_ message: DebugMessage) {
                name = message.name
                endpoint = "\(message.original?.method ?? "") \(LogStats.endpointPath(message.original?.url ?? ""))"
            }

            /// By name when both have one, else by method and path (an exchange sent from the
            /// command line, unnamed, pairs with a workspace's named one).
            func pairs(with other: PairingKey) -> Bool {
                if let name, let otherName = other.name { return name == otherName }
                return endpoint == other.endpoint
            }
        }

        /// Whether two paths name one file (`./a.jsonl`, `a.jsonl`, a link to it); the same
        /// text when either cannot be read.
        static func sameFile(_ a: String, _ b: String) -> Bool {
            var first = stat()
            var second = stat()
            guard stat(a, &first) == 0, stat(b, &second) == 0 else { return a == b }
            return first.st_dev == second.st_dev && first.st_ino == second.st_ino
        }

        /// How an exchange is named in a pair's title and the unpaired lists: its name, else its endpoint.
        static func key(_ message: DebugMessage) -> String {
            let key = PairingKey(message)
            return key.name ?? key.endpoint
        }

        static func width() -> Int {
            var size = winsize()
            if isatty(STDOUT_FILENO) != 0, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col >= 60 { return Int(size.ws_col) }
            return 160
        }

        /// `field  left │ right`, with `≠` on rows that differ.
        static func printRows(_ rows: [ExchangeDiff.Row], width: Int) {
            let fieldWidth = min(28, rows.map { $0.field.count + $0.section.count + 1 }.max() ?? 10)
            let column = max(12, (width - fieldWidth - 8) / 2)
            // The right column is not padded: a line ends where its text does.
            func cell(_ text: String?, padded: Bool = true) -> String {
                let value = text ?? "(none)"
                let flat = LogCommand.clean(value).replacingOccurrences(of: "\n", with: "⏎")
                if flat.count > column { return String(flat.prefix(column - 1)) + "…" }
                return padded ? flat.padding(toLength: column, withPad: " ", startingAt: 0) : flat
            }
            for row in rows {
                let name = LogCommand.clean("\(row.section) \(row.field)")
                let label = name.count > fieldWidth ? String(name.prefix(fieldWidth - 1)) + "…" : name.padding(toLength: fieldWidth, withPad: " ", startingAt: 0)
                print("\(row.differs ? "≠" : " ") \(label) \(cell(row.left)) │ \(cell(row.right, padded: false))")
            }
        }
    }
}
