import CurlewAgent

extension NetworkLogger {
    /// The line commands print after closing the log.
    var closingSummary: String {
        fileExists ? "Session log: \(path ?? "-") (\(entryCount) entries)" : "No request was sent; no session log was written."
    }
}
