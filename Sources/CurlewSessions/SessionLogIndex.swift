import CurlewAgent
import CurlewLocking
import Foundation

/// A session log opened for browsing: each entry's place in the file and its summary in
/// columns (`EntryBlock`, about 19 bytes an entry), messages decoded only when shown. Ten million
/// entries take under 200 MiB.
///
/// Opening indexes the first `firstEntries` entries at once (enough for a first screen) and the
/// rest on a background thread; `entryCount` grows until `isComplete`, and for a followed log
/// again whenever the file grows.
public final class SessionLogIndex: Sendable {
    public let path: String
    private let state = Locked(IndexState())
    /// Entries decoded lately, and those whose lines did not decode (nil), so that a damaged
    /// entry on screen is not read and decoded again for every frame.
    private let cache = Locked<[Int: DebugMessage?]>([:])
    private static let cacheLimit = 512
    private let methods: InternedStrings
    private let urls: InternedStrings
    /// Read with `pread`, which any thread may call.
    private let descriptor: Int32

    struct IndexState: Sendable {
        var headers: [SessionLogHeader] = []
        var blocks: [EntryBlock] = []
        var count = 0
        var skipped: [SkippedLine] = []
        var skippedCount = 0
        var complete = false
        var followingEnded: String?
        var waitingLineBytes: Int64 = 0
        /// False once the file was cut (and maybe written again): the index's offsets no longer
        /// point at its entries' lines, so no line is read from it.
        var linesReadable = true

        /// The block holding entry `index`: the last one whose first entry is at or before it.
        func block(containing index: Int) -> EntryBlock? {
            guard index >= 0, index < count, !blocks.isEmpty else { return nil }
            var low = 0, high = blocks.count - 1
            while low < high {
                let middle = (low + high + 1) / 2
                if blocks[middle].first <= index { low = middle } else { high = middle - 1 }
            }
            return blocks[low]
        }

        mutating func add(_ part: ScannedPart) {
            headers += part.headers.prefix(IndexScanner.keptHeaders - headers.count)
            if let block = part.block {
                if let last = blocks.last, let joined = last.joining(block) {
                    blocks[blocks.count - 1] = joined
                } else {
                    blocks.append(block)
                }
                count += block.count
            }
            skipped += part.skipped.prefix(IndexScanner.describedSkips - skipped.count)
            skippedCount += part.skippedCount
            complete = part.finished
            waitingLineBytes = part.waitingLineBytes
        }
    }

    /// Opens the log. Throws only when it cannot be read or its first records are not a session
    /// log. Past `distinctURLs` different URLs (or 32 MiB of them), URLs are read from the file
    /// when a filter needs them instead of kept in memory.
    ///
    /// `follows`: entries appended later are indexed as they come (the file is looked at every
    /// `followInterval`), a last line still being written once it is whole; `isComplete` then
    /// says the index has caught up with the file. Following ends when the file is truncated
    /// (also when written again since) or its name given to another file (`followingEnded`).
    /// A file cut no longer gives lines: the rows stay, their details are unreadable.
    public init(path: String, firstEntries: Int = .max, distinctURLs: Int = 200_000, follows: Bool = false) throws(SessionLogError) {
        let methods = InternedStrings(maxCount: Int(EntryBlock.methodUnknown), maxBytes: 1 << 16)
        let urls = InternedStrings(maxCount: distinctURLs, maxBytes: 32 << 20)
        let scanner = try IndexScanner(path: path, methods: methods, urls: urls, follows: follows)
        var first = IndexState()
        // A chunk refused as another file's stops the first scans; the indexer's first look says why.
        repeat {
            first.add(try scanner.scan(entries: firstEntries - first.count))
        } while !first.complete && first.count < firstEntries && !scanner.wasCutWhileReading
        // Followed, a file with nothing whole in it but a line without its line break is judged
        // as a log opened once is: one line of something else is not a log being written.
        var follows = follows
        if follows, first.headers.isEmpty, first.count == 0, first.skippedCount == 0, scanner.waitingLineBytes > 0, !scanner.wasCutWhileReading {
            scanner.stopFollowing()
            follows = false
            repeat {
                first.add(try scanner.scan(entries: firstEntries - first.count))
            } while !first.complete && first.count < firstEntries
        }
        if first.headers.isEmpty, first.count == 0, let problem = first.skipped.first {
            throw SessionLogError(kind: .notASessionLog, path: path, reason: "line \(problem.line): \(problem.reason)")
        }
        // The file the scanner has open, not the path again: a log replaced meanwhile is not mixed in.
        let descriptor = fcntl(scanner.fileDescriptor, F_DUPFD_CLOEXEC, 0)
        guard descriptor >= 0 else { throw SessionLogError(kind: .unreadable, path: path, reason: String(cString: strerror(errno))) }
        self.path = path
        self.methods = methods
        self.urls = urls
        self.descriptor = descriptor
        state.withLock { $0 = first }
        let (openedWhole, following) = (first.complete, follows)
        guard !openedWhole || following else { return }
        // Holds the index only while scanning and adding a block, never while waiting for the
        // file to grow: a log closed meanwhile stops being indexed and followed.
        Thread.detachNewThread { [weak self] in
            var caughtUp = openedWhole
            var ended: String?
            while true {
                if caughtUp {
                    guard following else { return }
                    Thread.sleep(forTimeInterval: Self.followInterval)
                }
                // Looked at before every read, also while catching up: a log cut and written
                // again is not read on as if it had grown.
                if following, ended == nil, let end = scanner.followingEnded() {
                    ended = end.reason
                    guard end.readToEnd else {
                        // Nothing more is read: the index is as complete as it will be, and a
                        // line left unfinished is a damaged one.
                        self?.state.withLock { state in
                            state.followingEnded = end.reason
                            state.linesReadable = false
                            state.complete = true
                            if state.waitingLineBytes > 0 {
                                state.skippedCount += 1
                                state.waitingLineBytes = 0
                            }
                        }
                        // What was decoded from the file before goes too (after no line can be
                        // read, so none is decoded again): its details were its lines.
                        self?.cache.withLock { $0.removeAll() }
                        return
                    }
                    // What the open file holds is read to its end first (the last entries of a
                    // rotated log), a last line without its line break as it is.
                    scanner.stopFollowing()
                }
                guard let index = self else { return }
                let part: ScannedPart
                do throws(SessionLogError) {
                    part = try scanner.scan(entries: EntryBlock.capacity)
                } catch {
                    index.state.withLock { state in
                        state.add(ScannedPart(skipped: [SkippedLine(line: 0, reason: "reading stopped: \(error.reason)")], skippedCount: 1, finished: true))
                        if following { state.followingEnded = "it could not be read: \(error.reason)" }
                    }
                    return
                }
                // A refused chunk is looked into at once: no waiting, and not complete meanwhile.
                caughtUp = part.finished
                index.state.withLock { state in
                    state.add(part)
                    if caughtUp, let ended { state.followingEnded = ended }
                }
                if caughtUp, ended != nil { return }
            }
        }
    }

    /// How often a followed log's file is looked at for entries appended to it.
    static let followInterval: TimeInterval = 0.25

    deinit {
        close(descriptor)
    }

    /// The log's header records (one per run that appended to it; the first thousand).
    public var headers: [SessionLogHeader] { state.withLock { $0.headers } }
    /// Entries indexed so far.
    public var entryCount: Int { state.withLock { $0.count } }
    /// Lines that are not complete records (a truncated last line, garbage), with why: the first
    /// thousand of them; `skippedCount` counts them all.
    public var skipped: [SkippedLine] { state.withLock { $0.skipped } }
    public var skippedCount: Int { state.withLock { $0.skippedCount } }
    /// Whether the whole file is indexed (for a followed log: as far as it has been written).
    public var isComplete: Bool { state.withLock { $0.complete } }
    /// Why a followed log is no longer followed (truncated, replaced, removed), nil while it is.
    public var followingEnded: String? { state.withLock { $0.followingEnded } }
    /// Bytes of a followed log's last line that still waits for its line break (0 when none).
    public var waitingLineBytes: Int64 { state.withLock { $0.waitingLineBytes } }

    /// Blocks until the whole file is indexed.
    public func waitUntilComplete() {
        while !isComplete { Thread.sleep(forTimeInterval: 0.005) }
    }

    /// The full message of entry `index`, decoded from its line (cached); nil when the line does
    /// not decode, which the caller shows as unreadable.
    public func message(at index: Int) -> DebugMessage? {
        if let cached = cache.withLock({ $0[index] }) { return cached }
        // An entry not indexed yet is not an answer to keep.
        guard let line = line(at: index) else { return nil }
        let message = try? SessionLogFormat.decode(DebugMessage.self, from: Data(line), with: SessionLogFormat.makeDecoder())
        cache.withLock { cache in
            // Not kept once the file was cut: the cache is emptied after no line can be read.
            guard state.withLock({ $0.linesReadable }) else { return }
            if cache.count >= Self.cacheLimit { cache.removeAll(keepingCapacity: true) }
            cache.updateValue(message, forKey: index)
        }
        return message
    }

    /// The summary of entry `index` as its line states it; nil when the line cannot be read.
    /// The summary leads the line, so the first few KiB usually hold it; the whole line is read
    /// only when they do not (a very long URL, a line of an older log).
    public func summary(at index: Int) -> SessionRecordSummary? {
        if let start = offset(of: index) {
            var prefix = [UInt8](repeating: 0, count: 4 << 10)
            let read = prefix.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(start)) }
            if read > 0, let summary = prefix[..<read].withUnsafeBufferPointer(SessionRecordSummary.read) { return summary }
        }
        guard let line = line(at: index) else { return nil }
        if let summary = line.withUnsafeBufferPointer(SessionRecordSummary.read) { return summary }
        if case .message(let message) = SessionLogRecord(decoding: Data(line), with: SessionLogFormat.makeDecoder()) {
            return SessionRecordSummary(message)
        }
        return nil
    }

    /// Indices of the matching entries from `start` to `end` (default: every entry indexed so far).
    /// Summary filters run on
    /// the columns, reading a line only for a value the columns could not hold; filters on headers
    /// or bodies decode each entry.
    public func matching(_ filter: MessageFilter, from start: Int = 0, to end: Int? = nil) -> [UInt32] {
        let (blocks, indexed) = state.withLock { ($0.blocks, $0.count) }
        let count = min(end ?? indexed, indexed)
        guard start < count else { return [] }
        var matches: [UInt32] = []
        guard let columns = ColumnFilter(filter, methods: methods, urls: urls) else {
            for index in start..<count where message(at: index).map(filter.matches) ?? false { matches.append(UInt32(index)) }
            return matches
        }
        for block in blocks where block.first + block.count > start && block.first < count {
            for position in max(0, start - block.first)..<min(block.count, count - block.first) {
                let matched = columns.matches(block, position) ?? summary(at: block.first + position).map(filter.matches) ?? false
                if matched { matches.append(UInt32(block.first + position)) }
            }
        }
        return matches
    }

    /// Entry `index`'s summary as the index's columns hold it, without reading the file: what a
    /// log cut since it was indexed still shows of its rows. Nil where a column could not hold
    /// the method or URL (they are on the line only); no request ID (0): the columns keep none.
    public func indexedSummary(at index: Int) -> SessionRecordSummary? {
        guard let block = state.withLock({ $0.block(containing: index) }) else { return nil }
        let position = index - block.first
        let methodID = block.methods[position] & ~EntryBlock.failedBit
        guard methodID != EntryBlock.methodUnknown, block.urls[position] != EntryBlock.unknown else { return nil }
        func value(_ column: UInt32) -> Int64? { column == EntryBlock.absent || column == EntryBlock.unknown ? nil : Int64(column) }
        let status = block.statuses[position]
        return SessionRecordSummary(requestID: 0, statusCode: status == EntryBlock.statusUnknown ? 0 : Int(status),
                                    elapsedMicros: value(block.elapsed[position]), responseSize: value(block.sizes[position]),
                                    failed: block.methods[position] & EntryBlock.failedBit != 0,
                                    method: methods.value(UInt32(methodID)), url: urls.value(block.urls[position]))
    }

    /// Whether entries' lines can still be read: not once the followed file was cut.
    public var linesReadable: Bool { state.withLock { $0.linesReadable } }

    /// Where entry `index`'s line starts in the file.
    private func offset(of index: Int) -> Int64? {
        state.withLock { state in
            guard state.linesReadable, let block = state.block(containing: index) else { return nil }
            return block.offset(index - block.first)
        }
    }

    /// The bytes of entry `index`'s line, without its line break.
    private func line(at index: Int) -> [UInt8]? {
        guard var position = offset(of: index) else { return nil }
        var line: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while line.count <= IndexScanner.maxLineBytes {
            let read = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(position)) }
            guard read > 0 else { break }
            if let newline = chunk[..<read].firstIndex(of: 0x0A) {
                line += chunk[..<newline]
                break
            }
            line += chunk[..<read]
            position += Int64(read)
        }
        if line.last == 0x0D { line.removeLast() }
        return line.isEmpty ? nil : line
    }
}
