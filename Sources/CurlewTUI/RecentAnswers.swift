import CurlewAgent
import CurlewSessions
import Foundation

/// The answers a workspace's requests got in earlier sessions, by request name, newest first:
/// the first is what Compose shows beside a request before it is sent in this one, all of them
/// are its history (`H`). Read from the newest session logs only, and from their last entries,
/// so opening a workspace stays quick.
enum RecentAnswers {
    /// Logs read: the newest few, each at most this large.
    static let logCount = 3
    static let largestLog: Int64 = 64 << 20
    /// Entries decoded from the end of each log.
    static let entriesPerLog = 500
    /// Exchanges kept per request.
    static let perName = 100

    /// The newest logged exchanges of each of `names`, newest first, looked for in `directory`.
    static func load(from directory: String, names: Set<String>) -> [String: [DebugMessage]] {
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
        var found: [String: [DebugMessage]] = [:]
        for log in logs {
            guard let index = try? SessionLogIndex(path: log.path) else { continue }
            index.waitUntilComplete()
            for position in stride(from: index.entryCount - 1, through: max(0, index.entryCount - entriesPerLog), by: -1) {
                guard let message = index.message(at: position), let name = message.name, names.contains(name),
                      found[name, default: []].count < perName, message.state.isTerminal else { continue }
                found[name, default: []].append(message)
            }
        }
        return found
    }
}
