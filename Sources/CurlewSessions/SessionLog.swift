import CurlewAgent
import Foundation

/// A line of a session log that could not be read, and why.
public struct SkippedLine: Sendable, Equatable {
    /// 1-based line number in the file.
    public var line: Int
    public var reason: String
    /// The entry number (from 1) the line takes although its record cannot be read: its summary
    /// reads, so the log browser lists it as that entry. Nil for a line that is no entry.
    public var entry: Int?

    public init(line: Int, reason: String, entry: Int? = nil) {
        self.line = line
        self.reason = reason
        self.entry = entry
    }
}

/// A session log as read: its header(s), its messages in file order, and what was skipped.
public struct SessionLog: Sendable {
    /// Header records in file order. A log that was appended to by several runs has several.
    public var headers: [SessionLogHeader]
    public var messages: [DebugMessage]
    /// Each message's entry number (from 1), as the log browser numbers the log's entries: a
    /// damaged line whose summary still reads is an entry too (see `SkippedLine.entry`), so the
    /// numbers of the messages after it run on from it.
    public var entryNumbers: [Int]
    public var skipped: [SkippedLine]

    /// The first header: the run that created the file.
    public var header: SessionLogHeader? { headers.first }
}

/// Why a session log could not be read at all.
public struct SessionLogError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        case unreadable
        case notASessionLog
        /// A file that reads as HAR, but not as a HAR document Curlew understands.
        case unreadableHAR
    }

    public var kind: Kind
    public var path: String
    public var reason: String

    public var description: String {
        switch kind {
        case .unreadable: "cannot read session log \(path): \(reason)"
        case .notASessionLog: "\(path) is not a Curlew session log: \(reason)"
        case .unreadableHAR: "\(path) is not a HAR file Curlew can read: \(reason)"
        }
    }

    /// The file `path` could not be read because of `error`, said as the system says it
    /// (`Input/output error`), where Foundation's own text is a number (`NSCocoaErrorDomain
    /// error 256`).
    static func unreadable(_ path: String, _ error: any Error) -> SessionLogError {
        let underlying = ((error as NSError).userInfo[NSUnderlyingErrorKey] as? any Error).map { $0 as NSError }
        let reason = underlying.flatMap { $0.domain == NSPOSIXErrorDomain ? String(cString: strerror(Int32(truncatingIfNeeded: $0.code))) : nil }
        return SessionLogError(kind: .unreadable, path: path, reason: reason ?? error.localizedDescription)
    }

    /// Throws unless `path` is a regular file: a device (`/dev/zero`), a FIFO or a directory
    /// never ends or is no log, and reading one would hang.
    static func requireRegularFile(_ path: String) throws(SessionLogError) {
        var status = stat()
        guard stat(path, &status) == 0 else { throw SessionLogError(kind: .unreadable, path: path, reason: String(cString: strerror(errno))) }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw SessionLogError(kind: .unreadable, path: path, reason: "not a regular file (only regular files are opened)")
        }
    }
}
