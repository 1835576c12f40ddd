import CurlewAgent

extension NetworkLogger {
    /// The line commands print after closing the log.
    var closingSummary: String {
        fileExists ? "Session log: \(path ?? "-") (\(entryCount) \(entryCount == 1 ? "entry" : "entries"))" : "No request was sent; no session log was written."
    }
}
