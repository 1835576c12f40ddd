import CurlewSessions
import Foundation

/// HAR files opened in the log browser, each as a session log made from it (secrets redacted),
/// in an owner-only temporary directory that goes away with the browser.
final class ConvertedHARFiles: Sendable {
    private let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-har-\(UUID().uuidString)").path

    /// A session log of the exchanges in the HAR file at `path`, made anew at each call (the
    /// file may have changed since it was last opened).
    func sessionLog(of path: String) throws(SessionLogError) -> String {
        try ExchangeFile.sessionLog(ofHAR: path, in: directory)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }
}
