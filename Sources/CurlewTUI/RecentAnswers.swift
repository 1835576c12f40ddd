import CurlewAgent
import CurlewSessions
import Foundation

/// The answers a workspace's requests got in earlier sessions, by request name: what Compose
/// shows beside a request before it is sent in this one. Read from the newest session logs
/// only, and from their last entries, so opening a workspace stays quick.
enum RecentAnswers {
    /// Logs read: the newest few, each at most this large.
    static let logCount = 3
    static let largestLog: Int64 = 64 << 20
    /// Entries decoded from the end of each log.
    static let entriesPerLog = 500

    /// The newest logged exchange of each of `names`, looked for in `directory`.
    static func load(from directory: String, names: Set<String>) -> [String: DebugMessage] {
        guard !names.isEmpty else { return [:] }
        let manager = FileManager.default
        let logs = ((try? manager.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.hasSuffix(".\(SessionLogFormat.fileExtension)") }
            .map { (directory as NSString).appendingPathComponent($0) }
            .compactMap { path -> (path: String, modified: Date)? in
                guard let attributes = try? manager.attributesOfItem(atPath: path),
                      ((attributes[.size] as? NSNumber)?.int64Value ?? .max) <= largestLog else { return nil }
                return (path, attributes[.modificationDate] as? Date ?? .distantPast)
            }
            .sorted { $0.modified > $1.modified }
            .prefix(logCount)
        var found: [String: DebugMessage] = [:]
        for log in logs {
            guard let index = try? SessionLogIndex(path: log.path) else { continue }
            index.waitUntilComplete()
            for position in stride(from: index.entryCount - 1, through: max(0, index.entryCount - entriesPerLog), by: -1) {
                guard found.count < names.count else { return found }
                guard let message = index.message(at: position), let name = message.name, names.contains(name), found[name] == nil,
                      message.state.isTerminal else { continue }
                found[name] = message
            }
        }
        return found
    }
}
