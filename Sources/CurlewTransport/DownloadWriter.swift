import Foundation

/// Writes a download's body: decides on the response's first body byte whether it continues the
/// partial file (a 206 that matches the resume), starts it over (any other 2xx), or is not the
/// download at all (anything else stays in memory), and at the end moves the file into place or
/// keeps it for a later resume.
///
/// Used only on the transfer thread.
final class DownloadWriter {
    let target: DownloadTarget
    private let url: String
    private var file: BodyFile?
    private var startSize: Int64 = 0
    private var resumedFrom: Int64?
    private var restartedFrom: Int64?
    /// The whole resource's size from a 206's `Content-Range`, which the file must reach.
    private var expectedSize: Int64?

    init(target: DownloadTarget, url: String) {
        self.target = target
        self.url = url
    }

    /// Whether the body of a response with this status goes to the file.
    static func takes(status: Int) -> Bool {
        (200..<300).contains(status)
    }

    /// Opens the partial file for a response with this status and these headers.
    func begin(status: Int, headers: ReceivedHeaders) -> TransferError? {
        var offset: Int64 = 0
        if let resume = target.resumeFrom {
            if status == 206 {
                let header = headers.last("Content-Range")
                guard let start = header.flatMap(Self.contentRangeStart), start == resume.offset else {
                    return TransferError(kind: .rangeMismatch, code: 33,
                                         message: "asked to resume at byte \(resume.offset), the server sent Content-Range \(header ?? "(none)")")
                }
                offset = start
                resumedFrom = start
                expectedSize = header.flatMap(Self.contentRangeTotal)
            } else {
                restartedFrom = resume.offset
            }
        } else if status == 206 {
            return TransferError(kind: .rangeMismatch, code: 33, message: "the server sent a partial answer (206) to a request for the whole body")
        }
        if target.writesDirectly {
            switch BodyFile.openDevice(path: target.path) {
            case .failure(let error): return error
            case .success(let opened): file = opened
            }
            return nil
        }
        switch BodyFile.open(path: target.partialPath, keeping: offset) {
        case .failure(let error):
            return error
        case .success(let opened):
            if opened.size != offset {
                return TransferError(kind: .localFile, code: 23,
                                     message: "\(target.partialPath) has \(opened.size) bytes, fewer than the \(offset) the download resumes from")
            }
            file = opened
            startSize = opened.size
        }
        if target.resumable {
            ResumeRecord(url: url, etag: headers.last("ETag"), lastModified: headers.last("Last-Modified"), bytes: startSize)
                .write(to: target.recordPath)
        }
        return nil
    }

    var isOpen: Bool { file != nil }

    func write(_ bytes: UnsafeRawBufferPointer) -> TransferError? {
        guard let file else { return nil }
        guard file.write(bytes) else {
            // A device is written straight into, with no partial file beside it.
            let written = target.writesDirectly ? target.path : target.partialPath
            return TransferError(kind: .localFile, code: 23, message: "could not write \(written): \(file.failure ?? "unknown error")")
        }
        return nil
    }

    /// Ends the download: on success the file is moved to `path` and the record removed; otherwise
    /// the partial file and its record stay for a resume (or both go when it is not resumable).
    /// The error says why a transfer that succeeded did not complete the file (a resumed file
    /// short of the announced size, a rename that failed).
    func finish(succeeded: Bool) -> (outcome: DownloadOutcome?, error: TransferError?) {
        guard let file else { return (nil, nil) }
        file.close()
        let size = file.size
        if target.writesDirectly {
            return (DownloadOutcome(path: target.path, completed: succeeded, partialPath: target.path, bytesWritten: size, fileSize: size), nil)
        }
        var completed = false
        var failure: TransferError?
        if succeeded, let expectedSize, size != expectedSize {
            failure = TransferError(kind: .incompleteResponse, code: 18,
                                    message: "the resumed file has \(size) bytes; the server's Content-Range announced \(expectedSize)")
        } else if succeeded {
            completed = rename(target.partialPath, target.path) == 0
            if completed {
                unlink(target.recordPath)
            } else {
                failure = TransferError(kind: .localFile, code: 23,
                                        message: "could not move \(target.partialPath) to \(target.path): \(String(cString: strerror(errno)))")
            }
        }
        if !completed, target.resumable {
            if var record = ResumeRecord.read(from: target.recordPath) {
                record.bytes = size
                record.write(to: target.recordPath)
            }
        } else if !completed {
            target.discardPartial()
        }
        let outcome = DownloadOutcome(
            path: target.path, completed: completed, partialPath: target.partialPath,
            bytesWritten: size - startSize, fileSize: size, resumedFrom: resumedFrom, restartedFrom: restartedFrom,
            resumable: !completed && target.resumable && ResumeRecord.read(from: target.recordPath)?.validator != nil
        )
        return (outcome, failure)
    }

    /// A resume the server cannot satisfy (416: the partial file is already whole, or longer than
    /// the resource now): the partial file and its record go, so the next download starts over.
    func abandonResume() {
        guard file == nil, target.resumeFrom != nil else { return }
        target.discardPartial()
    }

    /// The total of `bytes first-last/total`; nil when it is `*` or missing.
    static func contentRangeTotal(_ value: String) -> Int64? {
        guard let slash = value.lastIndex(of: "/") else { return nil }
        return Int64(value[value.index(after: slash)...].trimmingCharacters(in: .whitespaces))
    }

    /// The first byte position of `bytes first-last/total`.
    static func contentRangeStart(_ value: String) -> Int64? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = trimmed.dropFirst(6)
        guard let dash = spec.firstIndex(of: "-") else { return nil }
        return Int64(spec[..<dash].trimmingCharacters(in: .whitespaces))
    }
}
