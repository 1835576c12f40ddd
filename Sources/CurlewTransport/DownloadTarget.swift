import Foundation

/// Where a download is written: the body of a 2xx response goes to a partial file beside `path`,
/// streamed with bounded memory, and is moved to `path` only when the whole body arrived. Other
/// responses (errors, redirects) stay in memory as usual.
public struct DownloadTarget: Sendable, Equatable {
    public var path: String
    /// Keep the partial file and a resume record when the download is interrupted, so the next
    /// download to the same path can continue where this one stopped.
    public var resumable: Bool
    /// Where to continue from; requests sent with it carry `Range` and `If-Range` (see
    /// `ResumePoint.headers`).
    public var resumeFrom: ResumePoint?
    /// Write straight into `path` (a character device such as `/dev/null`): no partial file, no
    /// record, nothing moved into place.
    public var writesDirectly = false

    public init(path: String, resumable: Bool = true, resumeFrom: ResumePoint? = nil) {
        self.path = path
        self.resumable = resumable
        self.resumeFrom = resumeFrom
    }

    /// The partial file the body is written to until it is complete.
    public var partialPath: String { path + ".curlew-partial" }
    /// The owner-only record that lets a later download resume the partial file.
    public var recordPath: String { path + ".curlew-resume" }

    /// Where a download of `url` to this path can continue: the partial file's size, when a resume
    /// record for the same URL names a validator the server can check with `If-Range`. Nil when
    /// there is nothing to resume (the download then starts from the beginning).
    public func resumePoint(for url: String) -> ResumePoint? {
        guard let record = ResumeRecord.read(from: recordPath), record.urlDigest == ResumeRecord.digest(of: url),
              let validator = record.validator,
              let size = Self.regularFileSize(partialPath), size > 0 else { return nil }
        return ResumePoint(offset: size, validator: validator)
    }

    /// Removes the partial file and its record.
    public func discardPartial() {
        unlink(partialPath)
        unlink(recordPath)
    }

    /// The size of a regular file at `path`, not following a symbolic link; nil for anything else.
    static func regularFileSize(_ path: String) -> Int64? {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(info.st_size)
    }
}

/// A point to resume a download from, and the validator that proves the resource is unchanged.
public struct ResumePoint: Sendable, Equatable, Codable {
    public var offset: Int64
    /// A strong ETag or a Last-Modified date, sent as `If-Range`.
    public var validator: String

    public init(offset: Int64, validator: String) {
        self.offset = offset
        self.validator = validator
    }

    /// The headers that ask for the rest: `Range: bytes=offset-` and `If-Range: validator`.
    public var headers: [(name: String, value: String)] {
        [("Range", "bytes=\(offset)-"), ("If-Range", validator)]
    }
}

/// What became of a download.
public struct DownloadOutcome: Sendable, Equatable, Codable {
    public var path: String
    /// True when the whole body is at `path`; false when it stopped part-way (see `partialPath`).
    public var completed: Bool
    /// Where the bytes so far are while the download is not complete.
    public var partialPath: String
    /// Bytes written by this exchange.
    public var bytesWritten: Int64
    /// Size of the file (or the partial file) now.
    public var fileSize: Int64
    /// The offset this exchange continued from, when the server answered 206 to the resume.
    public var resumedFrom: Int64?
    /// The offset a resume was asked from when the server sent the whole body instead (200: the
    /// resource changed, or no range support), so the download started over.
    public var restartedFrom: Int64?
    /// Whether a resume record was kept for a later download to continue.
    public var resumable: Bool

    public init(path: String, completed: Bool, partialPath: String, bytesWritten: Int64, fileSize: Int64,
                resumedFrom: Int64? = nil, restartedFrom: Int64? = nil, resumable: Bool = false) {
        self.path = path
        self.completed = completed
        self.partialPath = partialPath
        self.bytesWritten = bytesWritten
        self.fileSize = fileSize
        self.resumedFrom = resumedFrom
        self.restartedFrom = restartedFrom
        self.resumable = resumable
    }
}

/// The sidecar record of an interrupted download (owner-only JSON beside the partial file). It
/// names the URL by its SHA-256, so a password or a token in the URL is not kept on disk.
struct ResumeRecord: Codable, Equatable {
    var urlDigest: String
    var etag: String?
    var lastModified: String?
    /// Bytes in the partial file when the record was written; the file's size is what counts.
    var bytes: Int64

    init(url: String, etag: String?, lastModified: String?, bytes: Int64) {
        urlDigest = Self.digest(of: url)
        self.etag = etag
        self.lastModified = lastModified
        self.bytes = bytes
    }

    static func digest(of url: String) -> String { SHA256Digest.hex(of: Data(url.utf8)) }

    /// The `If-Range` validator: a strong ETag, else the Last-Modified date.
    var validator: String? {
        if let etag, !etag.hasPrefix("W/"), !etag.isEmpty { return etag }
        if let lastModified, !lastModified.isEmpty { return lastModified }
        return nil
    }

    /// The record at `path`, or nil when there is none or it is not a record (a record larger than
    /// 64 KiB, a link or anything else is ignored).
    static func read(from path: String) -> ResumeRecord? {
        guard let size = DownloadTarget.regularFileSize(path), size <= 64 << 10 else { return nil }
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        guard let data = try? handle.readToEnd() else { return nil }
        return try? JSONDecoder().decode(ResumeRecord.self, from: data)
    }

    /// Writes the record atomically, readable by the owner only. Returns false when it could not.
    @discardableResult
    func write(to path: String) -> Bool {
        guard let data = try? JSONEncoder().encode(self) else { return false }
        return (try? OwnerOnlyFile.write(data, to: path)) != nil
    }
}
