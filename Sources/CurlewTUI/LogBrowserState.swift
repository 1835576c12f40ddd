import CurlewAgent
import CurlewSessions
import Foundation

/// A session log on disk, as listed in the browser.
public struct LogFileEntry: Sendable, Equatable {
    public var path: String
    public var modified: Date
    public var size: Int64

    public var name: String { (path as NSString).lastPathComponent }
}

/// The log browser: the session logs to choose from, newest first, and the one opened.
public struct LogBrowserState {
    public private(set) var files: [LogFileEntry] = []
    public var selectedFile = 0
    public private(set) var opened: OpenedLog?
    private let convertedHARFiles = ConvertedHARFiles()

    public struct OpenedLog {
        /// The session log indexed: the file opened, or the one made from a HAR file.
        public var path: String
        /// The file the user opened.
        public var source: String
        /// Offsets and summaries; messages are decoded only when shown.
        public var index: SessionLogIndex
        /// The entries that pass the filter, in file order.
        public var visible: EntrySelection
        public var filterText = ""
        public var filterError: FilterSyntaxError?
        public var selected = 0
        /// The filter in force, applied to entries as the background indexer adds them.
        var filter: MessageFilter?
        /// How many index entries `visible` has looked at.
        var seen = 0
        /// The selection moves to the newest entry as entries are appended (`f`).
        public var followsNewest = false
    }

    /// Entries the index opens with before the rest is indexed in the background.
    static let firstScreenEntries = 2_000
    /// Entries a filter on headers or bodies (which decodes each entry) looks at per refresh,
    /// so the interface keeps drawing and taking keys while it searches a large log.
    var decodingBatch = 2_000

    public init() {}

    /// Lists `*.jsonl` files in `directory` plus `extraFiles`, newest first, as they now are (a
    /// log written since shows its new size and time); the selection goes to `selecting`, else
    /// stays on its file.
    public mutating func refresh(directory: String, extraFiles: [String], selecting: String? = nil) {
        let selectedPath = selecting ?? (files.indices.contains(selectedFile) ? files[selectedFile].path : nil)
        let manager = FileManager.default
        let inDirectory = ((try? manager.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.hasSuffix(".\(SessionLogFormat.fileExtension)") }
            .map { (directory as NSString).appendingPathComponent($0) }
        var seen = Set<String>()
        files = (extraFiles + inDirectory).compactMap { path -> LogFileEntry? in
            guard seen.insert((path as NSString).standardizingPath).inserted,
                  let attributes = try? manager.attributesOfItem(atPath: path) else { return nil }
            return LogFileEntry(path: path, modified: attributes[.modificationDate] as? Date ?? .distantPast,
                                size: (attributes[.size] as? NSNumber)?.int64Value ?? 0)
        }.sorted { $0.modified > $1.modified }
        let standardized = selectedPath.map { ($0 as NSString).standardizingPath }
        selectedFile = standardized.flatMap { path in files.firstIndex { ($0.path as NSString).standardizingPath == path } }
            ?? min(selectedFile, max(0, files.count - 1))
    }

    /// Opens a log; a file that cannot be read at all gives its error and keeps the list.
    /// A HAR file opens as a session log made from it, under its own name.
    public mutating func open(_ path: String) throws(SessionLogError) {
        let indexed = ExchangeFile.isHAR(path: path) ? try convertedHARFiles.sessionLog(of: path) : path
        let index: SessionLogIndex
        do {
            // A session log is followed as other runs append to it; one made from a HAR file is not written again.
            index = try SessionLogIndex(path: indexed, firstEntries: Self.firstScreenEntries, follows: indexed == path)
        } catch {
            if indexed != path { convertedHARFiles.discard(indexed) }
            throw error
        }
        let count = index.entryCount
        discardConversion()
        opened = OpenedLog(path: indexed, source: path, index: index, visible: .all(count), seen: count)
    }

    /// Removes the session log made for the opened HAR file, if it is one.
    private func discardConversion() {
        if let opened, opened.path != opened.source { convertedHARFiles.discard(opened.path) }
    }

    /// Removes every session log made from a HAR file; the browser's end.
    public mutating func discardConvertedFiles() {
        opened = nil
        convertedHARFiles.discardAll()
    }

    /// Takes in entries the background indexer added since the last call, through the filter;
    /// a filter that decodes entries takes at most `decodingBatch` of them per call.
    public mutating func refresh() {
        guard let index = opened?.index, let seen = opened?.seen else { return }
        var count = index.entryCount
        guard count > seen else { return }
        // Changed in place: a copy of `opened` would make the append copy every row.
        if let filter = opened?.filter {
            count = searchEnd(filter, from: seen, available: count)
            let found = index.matching(filter, from: seen, to: count)
            opened?.visible.append(found)
        } else {
            opened?.visible.extend(allTo: count)
        }
        opened?.seen = count
        if opened?.followsNewest == true, let visible = opened?.visible.count { opened?.selected = max(0, visible - 1) }
    }

    /// Turns following the newest entry on or off; on, the newest entry is selected at once.
    public mutating func toggleFollowingNewest() {
        guard var current = opened else { return }
        current.followsNewest.toggle()
        if current.followsNewest { current.selected = max(0, current.visible.count - 1) }
        opened = current
    }

    /// Where a pass of `filter` from `start` stops: every entry available for a summary filter,
    /// one `decodingBatch` for a filter that decodes entries.
    private func searchEnd(_ filter: MessageFilter, from start: Int, available: Int) -> Int {
        filter.worksOnSummaries ? available : min(available, start + decodingBatch)
    }

    /// Whether the opened log still has entries to index or to filter: the screen is redrawn
    /// until it has none.
    public var isCatchingUp: Bool {
        guard let opened else { return false }
        return !opened.index.isComplete || opened.seen < opened.index.entryCount
    }

    public mutating func close() {
        discardConversion()
        opened = nil
    }

    /// Applies a filter expression; "" shows everything. A syntax error keeps the previous rows.
    public mutating func applyFilter(_ text: String) {
        guard var current = opened else { return }
        let count = current.index.entryCount
        if text.trimmingCharacters(in: .whitespaces).isEmpty {
            current.filterText = text
            current.filterError = nil
            current.filter = nil
            current.visible = .all(count)
            current.seen = count
        } else {
            do {
                let filter = try MessageFilter.parse(text)
                // Only a filter that applies is shown as the one in effect.
                current.filterText = text
                current.filterError = nil
                current.filter = filter
                // A filter on headers or bodies starts with one batch; `refresh` goes on.
                let end = searchEnd(filter, from: 0, available: count)
                current.visible = .matching(current.index.matching(filter, to: end))
                current.seen = end
            } catch {
                current.filterError = error
            }
        }
        current.selected = min(current.selected, max(0, current.visible.count - 1))
        opened = current
    }

    public mutating func moveSelection(by delta: Int) {
        if var current = opened {
            current.selected = min(max(0, current.selected + delta), max(0, current.visible.count - 1))
            // Moving off the newest entry stops following it, as in Live.
            if current.selected < current.visible.count - 1 { current.followsNewest = false }
            opened = current
        } else {
            selectedFile = min(max(0, selectedFile + delta), max(0, files.count - 1))
        }
    }

    public var selectedMessage: DebugMessage? {
        guard let opened, opened.visible.indices.contains(opened.selected) else { return nil }
        return opened.index.message(at: opened.visible[opened.selected])
    }

    /// The selected entry's number in its log (from 1, as the log tools number entries).
    var selectedEntry: Int? {
        guard let opened, opened.visible.indices.contains(opened.selected) else { return nil }
        return opened.visible[opened.selected] + 1
    }

    /// The selected entry's number when its line cannot be read (damaged after its summary).
    var selectedUnreadableEntry: Int? {
        selectedMessage == nil ? selectedEntry : nil
    }
}
