import CurlewAgent
import CurlewSessions
import Foundation

/// HAR files opened in the log browser, each as a session log made from it (secrets redacted),
/// in an owner-only temporary directory. The browser removes each when it closes that log, and
/// all of them when it ends; the directory also goes when this object does.
final class ConvertedHARFiles: Sendable {
    private let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-har-\(UUID().uuidString)").path

    /// A session log of the exchanges in the HAR file at `path`, made anew at each call (the
    /// file may have changed since it was last opened).
    func sessionLog(of path: String) throws(SessionLogError) -> String {
        try ExchangeFile.sessionLog(ofHAR: path, in: directory)
    }

    /// Removes one session log this object made.
    func discard(_ path: String) {
        guard LocalFile.directory(of: path) == directory else { return }
        try? FileManager.default.removeItem(atPath: path)
    }

    func discardAll() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    deinit {
        discardAll()
    }
}
