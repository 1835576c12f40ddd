import Foundation
import Logging
import CurlewLocking
import CurlewTransport

/// Settings of the session logger (HLNetworkLogger's config).
public struct NetworkLoggerConfig: Sendable {
    /// Formats of the session log. Logs are always written as JSON Lines; `json` and `plist`
    /// additionally export the whole session next to it when the logger closes.
    public enum LoggerType: String, Sendable {
        case jsonLines
        case json
        case plist
    }

    public var channelID: String
    public var appKey: String
    public var appName: String
    public var appVersion: String
    public var serviceType: String
    /// Off: the logger writes nothing and creates no file.
    public var enableLocalLog: Bool
    /// Entries written before an fsync is asked for (a larger delivery batch asks once). The fsyncs
    /// run on a queue of the logger's own, so writing entries never waits for one; entries
    /// written while one runs are covered by the next, so a power loss takes at most what was
    /// written during the last two syncs. A crash of the process loses nothing written.
    public var logAutoSaveCount: Int
    public var loggerType: LoggerType
    /// Where the log goes; nil means `Sessions/<yyyy-MM-dd_HH-mm-ss>.jsonl` under the working directory.
    public var logFilePath: String?
    /// Creates the log's directory (owner-only) when it is missing: on for a sessions directory;
    /// off for a path a user typed, where a missing directory is more likely a typo.
    public var createsDirectory = true
    public var redaction: RedactionPolicy
    /// Bytes of each text body the log keeps; a longer body keeps its first bytes, its full size
    /// and `truncated: true`. Without a cap, a log of large downloads would hold every byte again,
    /// and writing it would cost more than the transfer.
    public var maxBodyBytes: Int
    /// Bytes of each binary body (not UTF-8) the log keeps, as base64: a preview to recognise
    /// the content, since nobody reads a megabyte of base64 in a log.
    public var maxBinaryBodyBytes: Int

    /// The default `maxBodyBytes`: 64 KiB.
    public static let defaultMaxBodyBytes = 64 << 10
    /// The default `maxBinaryBodyBytes`: 4 KiB.
    public static let defaultMaxBinaryBodyBytes = 4 << 10

    public init(
        channelID: String = "local", appKey: String = "", appName: String = "curlew",
        appVersion: String = CurlewVersion.current, serviceType: String = "debug", enableLocalLog: Bool = true,
        logAutoSaveCount: Int = 50, loggerType: LoggerType = .jsonLines, logFilePath: String? = nil,
        redaction: RedactionPolicy = RedactionPolicy(), maxBodyBytes: Int = NetworkLoggerConfig.defaultMaxBodyBytes,
        maxBinaryBodyBytes: Int = NetworkLoggerConfig.defaultMaxBinaryBodyBytes
    ) {
        self.channelID = channelID
        self.appKey = appKey
        self.appName = appName
        self.appVersion = appVersion
        self.serviceType = serviceType
        self.enableLocalLog = enableLocalLog
        self.logAutoSaveCount = max(1, logAutoSaveCount)
        self.loggerType = loggerType
        self.logFilePath = logFilePath
        self.redaction = redaction
        self.maxBodyBytes = max(0, maxBodyBytes)
        self.maxBinaryBodyBytes = max(0, maxBinaryBodyBytes)
    }
}

/// Lets an application shape what the logger writes, as HLNetworkLogger's delegate does.
public protocol NetworkLoggerDelegate: AnyObject, Sendable {
    /// Extra data stored under `custom` in a message record; nil adds nothing.
    func customInfo(for message: DebugMessage) -> JSONValue?
    /// Extra data stored under `custom` in the header record; nil adds nothing.
    func customHeader(for config: NetworkLoggerConfig) -> JSONValue?
}

extension NetworkLoggerDelegate {
    public func customInfo(for message: DebugMessage) -> JSONValue? { nil }
    public func customHeader(for config: NetworkLoggerConfig) -> JSONValue? { nil }
}

/// Why the logger could not start or finish.
public struct NetworkLoggerError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var reason: String

    public var description: String { "session log \(path): \(reason)" }
}

/// Writes every debug message to a session log: JSON Lines, header first, redacted, owner-only.
///
/// Entries are complete lines, written with one `write` at the end of each delivery batch (one or
/// two entries when the logger keeps up, many under load), so a process killed at any moment
/// leaves only complete lines behind. The write that brings the entries since the last request
/// for an fsync to `logAutoSaveCount` asks for one, which runs on the logger's sync queue.
/// Used outside an agent, call `flush()` (or `close()`) to write what was handed over.
public final class NetworkLogger: NetworkObserver {
    public let config: NetworkLoggerConfig
    /// The log file, or nil when local logging is off.
    public let path: String?
    private let delegate: (any NetworkLoggerDelegate)?
    private let file: Locked<LogFile?>
    private let counters = Locked((entries: 0, failedWrites: 0))
    /// The policy every entry is redacted with: the configured one, plus secret values learned
    /// after the logger started (a workspace's new secret). Held by reference, so taking it per
    /// entry costs one retain rather than a copy of every set in it.
    private let redaction: Locked<PolicyReference>

    private final class PolicyReference: Sendable {
        let policy: RedactionPolicy
        init(_ policy: RedactionPolicy) { self.policy = policy }

        /// Redacts through the reference: reading `policy` out first copies all of its sets.
        func redactedIfNeeded(_ message: borrowing DebugMessage) -> DebugMessage? {
            policy.redactedIfNeeded(message)
        }
    }
    private let diagnostics = Logger(label: "curlew.logger")

    /// The open log; only touched under `file`'s lock, and by `close()` once it took it out.
    private final class LogFile {
        let descriptor: Int32
        /// The logger created the file (it did not append to an existing one).
        let created: Bool
        let syncer: LogSyncer
        var unsynced = 0
        /// Complete lines handed over in the current batch, not yet written.
        let buffered = AppendBuffer(capacity: 64 << 10)
        var bufferedEntries = 0

        init(descriptor: Int32, created: Bool) {
            self.descriptor = descriptor
            self.created = created
            syncer = LogSyncer(descriptor: descriptor)
        }
    }

    /// Lines beyond this are written even in the middle of a batch, to bound the buffer.
    private static let bufferLimit = 1 << 20

    /// Opens (or creates, mode 0600) the log and writes its header. Appends to an existing file.
    public init(config: NetworkLoggerConfig = NetworkLoggerConfig(), delegate: (any NetworkLoggerDelegate)? = nil, now: Date = Date()) throws {
        self.config = config
        self.delegate = delegate
        redaction = Locked(PolicyReference(config.redaction))
        guard config.enableLocalLog else {
            path = nil
            file = Locked(nil)
            return
        }
        let path = config.logFilePath ?? Self.defaultPath(for: now)
        self.path = path
        // A directory (`.`, `logs/`) is no log: refused before its name is taken apart.
        if let problem = LocalFile.fileNameProblem(path) {
            throw NetworkLoggerError(path: path, reason: problem)
        }
        let directory = LocalFile.directory(of: path)
        if directory != ".", !config.createsDirectory {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw NetworkLoggerError(path: path, reason: "directory \(directory) does not exist")
            }
        } else if directory != "." {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw NetworkLoggerError(path: path, reason: "cannot create directory \(directory): \(error.localizedDescription)")
            }
        }
        var created = true
        // Never through a symbolic link: a log must not end up appended to (and its mode changed
        // on) whatever file a link points at.
        var descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if descriptor < 0, errno == EEXIST {
            created = false
            // Without blocking: a named pipe nobody reads would otherwise hold the open forever.
            descriptor = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
            if descriptor >= 0 { _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK) }
        }
        guard descriptor >= 0 else {
            let failure = errno
            let reason = failure == ELOOP ? "it is a symbolic link; give the path of the file itself"
                : failure == ENXIO ? "it is a named pipe that nothing reads"
                : failure == EACCES && Self.isMadeReadOnly(path) ? Self.readOnlyReason : String(cString: strerror(failure))
            throw NetworkLoggerError(path: path, reason: reason)
        }
        // An existing file: read once, for whether it is a log and whether its last line was cut.
        let existing = created ? nil : Self.inspect(path: path, descriptor: descriptor)
        if let problem = created ? nil : Self.readOnlyProblem(descriptor) ?? existing?.refusal {
            Foundation.close(descriptor)
            throw NetworkLoggerError(path: path, reason: problem)
        }
        if let problem = Self.makeOwnerOnly(descriptor) {
            Foundation.close(descriptor)
            throw NetworkLoggerError(path: path, reason: problem)
        }
        // A log whose last line was cut (a crash, a copy with `head -c`) gets a line end first:
        // the new header on the fragment's line would be lost with it.
        let endsInsideLine = existing?.endsInsideLine ?? false
        file = Locked(LogFile(descriptor: descriptor, created: created))
        let header = SessionLogHeader(
            appName: config.appName, appVersion: config.appVersion, channelID: config.channelID, appKey: config.appKey,
            serviceType: config.serviceType, osVersion: ProcessInfo.processInfo.operatingSystemVersionString,
            hostName: ProcessInfo.processInfo.hostName, libcurlVersion: Agent.libcurlVersion, startedAt: now,
            custom: delegate?.customHeader(for: config)
        )
        do {
            var line: [UInt8] = endsInsideLine ? [0x0A] : []
            line += try SessionLogFormat.makeEncoder().encode(TaggedRecord(type: "header", record: header, custom: nil))
            line.append(0x0A)
            try writeHeader(line)
        } catch {
            // Taken out first: the deinit's close() would otherwise sync and close the descriptor
            // again, by then perhaps another file's.
            file.withLock { $0 = nil }
            Foundation.close(descriptor)
            throw NetworkLoggerError(path: path, reason: "cannot write the header: \((error as? NetworkLoggerError)?.reason ?? "\(error)")")
        }
    }

    deinit {
        try? close()
    }

    /// An existing file as the logger finds it, read through one descriptor: `refusal` says
    /// why it must not be appended to (nor its mode changed) when it has content and its first
    /// record is not a session log's header, so it is some other file (a typo'd path,
    /// `/etc/passwd` run as root), nil for an empty file, a session log (a byte order mark
    /// before its header, as a Windows editor saves it, included), and what is not a regular
    /// file (a log sent to /dev/stdout); `endsInsideLine` whether its last byte is not a line
    /// end (a crash, a copy with `head -c`).
    private static func inspect(path: String, descriptor: Int32) -> (refusal: String?, endsInsideLine: Bool) {
        var status = stat()
        // Not by its size: a file of /proc reads as text with a size of zero.
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return (nil, false) }
        let refusal = "it exists and is not a session log (its first line is not a log header); choose another file"
        guard let reader = reader(of: path, as: status) else { return (refusal, false) }
        defer { Foundation.close(reader) }
        // A header is a few hundred bytes; a delegate's custom data may make it longer.
        var prefix = [UInt8](repeating: 0, count: 64 << 10)
        let count = prefix.withUnsafeMutableBytes { read(reader, $0.baseAddress, $0.count) }
        guard count != 0 else { return (nil, false) }
        guard count > 0 else { return (refusal, false) }
        let line = prefix[0..<count].split(separator: 0x0A, maxSplits: 1, omittingEmptySubsequences: false).first ?? []
        let record = SessionLogFormat.record(in: line)
        // A file of nothing but a byte order mark (and line ends, as an editor saves it) is empty
        // to every reader, and so to the logger.
        let isMarkAlone = record.isEmpty && prefix[line.count..<count].allSatisfy { $0 == 0x0A || $0 == 0x0D }
        guard isMarkAlone || (try? JSONSerialization.jsonObject(with: Data(record)) as? [String: Any])?["type"] as? String == "header" else {
            return (refusal, false)
        }
        var last: UInt8 = 0
        return (nil, status.st_size > 0 && pread(reader, &last, 1, status.st_size - 1) == 1 && last != 0x0A)
    }

    /// `path` opened for reading when it is still the file `status` describes (the one the log
    /// is written to, not one put at the path since); nil otherwise.
    private static func reader(of path: String, as status: stat) -> Int32? {
        let reader = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard reader >= 0 else { return nil }
        var reading = stat()
        guard fstat(reader, &reading) == 0, reading.st_dev == status.st_dev, reading.st_ino == status.st_ino else {
            Foundation.close(reader)
            return nil
        }
        return reader
    }

    /// Why an existing regular file made read-only is not appended to: its mode says so, though
    /// root could write it (reports and exports keep such a file the same way).
    private static func readOnlyProblem(_ descriptor: Int32) -> String? {
        var status = stat()
        return fstat(descriptor, &status) == 0 && OwnerOnlyFile.isMadeReadOnly(status) ? readOnlyReason : nil
    }

    /// Whether `path` is a file made read-only (what a user other than root is refused opening
    /// for that reason, said as such).
    private static func isMadeReadOnly(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && OwnerOnlyFile.isMadeReadOnly(status)
    }

    private static let readOnlyReason = OwnerOnlyFile.readOnlyReason + " or choose another file"

    /// An existing log others may read is tightened to 0600 before anything is appended; nil when
    /// the file is owner-only now, else why it could not be made so.
    private static func makeOwnerOnly(_ descriptor: Int32) -> String? {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return String(cString: strerror(errno)) }
        // Devices and pipes (a log sent to /dev/stdout) have no permissions of their own to keep.
        guard status.st_mode & S_IFMT == S_IFREG, status.st_mode & 0o077 != 0 else { return nil }
        // Take away what group and others may do; leave the owner's bits as they were.
        guard fchmod(descriptor, status.st_mode & 0o700) == 0 else {
            return "others can read it and it cannot be made owner-only (\(String(cString: strerror(errno)))); run chmod 600 on it or choose another file"
        }
        return nil
    }

    /// `Sessions/<yyyy-MM-dd_HH-mm-ss>.jsonl`, in local time.
    public static func defaultPath(for date: Date, directory: String = "Sessions") -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd_HH-mm-ss"
        return "\(directory)/\(formatter.string(from: date)).\(SessionLogFormat.fileExtension)"
    }

    /// Whether the log file is on disk: false when local logging is off, or after `close()` removed
    /// a log that never received an entry.
    public var fileExists: Bool {
        path.map { FileManager.default.fileExists(atPath: $0) } ?? false
    }

    /// Message entries written so far.
    public var entryCount: Int {
        counters.withLock { $0.entries }
    }

    /// Hides these values, and the values of these headers (any case), too in everything written
    /// from now on (a secret added while the log is open). Nothing changes when redaction is off.
    public func hide(_ secretValues: [String], headers: Set<String> = []) {
        guard config.redaction.isEnabled else { return }
        redaction.withLock { current in
            var policy = current.policy
            let newValues = policy.hideAlso(secretValues)
            let newHeaders = policy.hideAlso(headers: headers)
            if newValues || newHeaders { current = PolicyReference(policy) }
        }
    }

    /// Entries that could not be written (disk full, file removed); each was reported through swift-log.
    public var failedWriteCount: Int {
        counters.withLock { $0.failedWrites }
    }

    /// What the log keeps of a body, at most: its caps. With a delegate, which may read any of
    /// the message, everything the agent keeps.
    public var bodyBytesRead: BodyReadLimit {
        delegate == nil ? BodyReadLimit(text: config.maxBodyBytes, binary: config.maxBinaryBodyBytes) : .all
    }

    /// A chain's capture that a log hides (`RedactionPolicy.hideCaptured`) is hidden in every
    /// entry after it: the next step sends it in a header or URL, where nothing names it secret.
    public func requestGroup(_ event: GroupEvent) {
        guard config.redaction.isEnabled, case .captured = event else { return }
        redaction.withLock { current in
            var policy = current.policy
            if policy.hideCaptured(event) { current = PolicyReference(policy) }
        }
    }

    public func requestDidProduce(_ message: DebugMessage) {
        // Redact first, then cap the bodies as they are written. (The redactor reads a body kept
        // in part, past `bodyBytesRead`, as surely as a whole one.)
        let redacted = redaction.withLock { $0 }.redactedIfNeeded(message)
        let custom = delegate?.customInfo(for: message)
        let full = file.withLock { file -> Bool in
            guard let file else { return false }
            func append(_ message: DebugMessage) {
                SessionRecordWriter.appendMessageLine(message, custom: custom, to: file.buffered,
                                                      textBodyLimit: config.maxBodyBytes, binaryBodyLimit: config.maxBinaryBodyBytes)
            }
            if let redacted { append(redacted) } else { append(message) }
            file.bufferedEntries += 1
            return file.buffered.count >= Self.bufferLimit
        }
        if full { flush() }
    }

    public func observerDidFinishBatch() {
        flush()
    }

    /// Writes the lines handed over so far, in one `write`.
    public func flush() {
        file.withLock { file in
            if let file { writeBuffered(file) }
        }
    }

    /// Writes `file`'s buffered lines and asks for an fsync every `logAutoSaveCount` entries;
    /// called under `file`'s lock.
    private func writeBuffered(_ file: LogFile) {
        guard file.bufferedEntries > 0 else { return }
        let entries = file.bufferedEntries
        defer {
            file.buffered.removeAll()
            file.bufferedEntries = 0
        }
        do {
            try Self.writeAll(file.buffered.bytes, to: file.descriptor)
        } catch {
            counters.withLock { $0.failedWrites += entries }
            diagnostics.error("session log entries lost", metadata: ["path": "\(path ?? "")", "error": "\(error)"])
            return
        }
        counters.withLock { $0.entries += entries }
        file.unsynced += entries
        if file.unsynced >= config.logAutoSaveCount {
            file.syncer.requestSync()
            file.unsynced = 0
        }
    }

    /// Syncs and closes the log, then writes the `json` or `plist` export when configured.
    /// A log the logger created and never wrote an entry to is removed: a session that sent
    /// nothing leaves no file. Later messages are ignored. Safe to call more than once.
    public func close() throws {
        // Written and taken in one hold of the lock: an entry handed over meanwhile is written too.
        let closing: LogFile? = file.withLock { file in
            defer { file = nil }
            if let file { writeBuffered(file) }
            return file
        }
        guard let closing, let path else { return }
        closing.syncer.finish()
        Foundation.close(closing.descriptor)
        if closing.created, entryCount == 0, failedWriteCount == 0 {
            unlink(path)
            return
        }
        switch config.loggerType {
        case .jsonLines: break
        case .json: try SessionLogExport.writeJSONArray(from: path)
        case .plist: try SessionLogExport.writePropertyList(from: path)
        }
    }

    private func writeHeader(_ line: [UInt8]) throws {
        try file.withLock { file in
            guard let file else { return }
            try line.withUnsafeBytes { try Self.writeAll($0, to: file.descriptor) }
        }
    }

    /// One `write` for all the lines; the loop only continues after a short write.
    private static func writeAll(_ buffer: UnsafeRawBufferPointer, to descriptor: Int32) throws {
        var offset = 0
        while offset < buffer.count {
            let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw NetworkLoggerError(path: "", reason: String(cString: strerror(errno)))
            }
            offset += written
        }
    }
}

/// Whole-session exports of a JSON Lines log, for tools that want one document (HLNetworking's
/// logger JSON array and property list).
public enum SessionLogExport {
    /// `<log>.json`: every line as one element of a JSON array.
    static func writeJSONArray(from path: String) throws {
        try write(jsonArray(try readLines(path)), to: replacingExtension(path, with: "json"))
    }

    /// `<log>.plist`: an XML property list array of the records (JSON nulls are left out).
    static func writePropertyList(from path: String) throws {
        try write(try propertyList(try readLines(path)), to: replacingExtension(path, with: "plist"))
    }

    /// Messages as session records, in one JSON array.
    public static func jsonArray(_ messages: [DebugMessage]) -> Data {
        jsonArray(messages.map { Data(SessionRecordWriter.messageLine($0, custom: nil)).filter { $0 != 0x0A } })
    }

    /// Messages as session records, in an XML property list array.
    public static func propertyList(_ messages: [DebugMessage]) throws -> Data {
        try propertyList(messages.map { Data(SessionRecordWriter.messageLine($0, custom: nil)) })
    }

    private static func jsonArray(_ lines: [Data]) -> Data {
        var output = Data("[\n".utf8)
        for (index, line) in lines.enumerated() {
            output.append(line)
            output.append(contentsOf: Array((index < lines.count - 1 ? ",\n" : "\n").utf8))
        }
        output.append(contentsOf: Array("]\n".utf8))
        return output
    }

    private static func propertyList(_ lines: [Data]) throws -> Data {
        let records = lines.compactMap { try? JSONSerialization.jsonObject(with: $0) }.map(withoutNulls)
        return try PropertyListSerialization.data(fromPropertyList: records, format: .xml, options: 0)
    }

    private static func readLines(_ path: String) throws -> [Data] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return data.split(separator: 0x0A).filter { !$0.isEmpty }.map { Data($0) }
    }

    private static func withoutNulls(_ value: Any) -> Any {
        if let dictionary = value as? [String: Any] {
            return dictionary.filter { !($0.value is NSNull) }.mapValues(withoutNulls)
        }
        if let array = value as? [Any] {
            return array.filter { !($0 is NSNull) }.map(withoutNulls)
        }
        return value
    }

    private static func replacingExtension(_ path: String, with ext: String) -> String {
        ((path as NSString).deletingPathExtension as NSString).appendingPathExtension(ext) ?? path + "." + ext
    }

    private static func write(_ data: Data, to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw NetworkLoggerError(path: path, reason: "cannot write the export")
        }
    }
}
