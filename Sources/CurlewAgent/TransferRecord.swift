import Foundation

/// What a request's body and response took beyond memory: the file it uploaded, its form parts,
/// where its download went and whether it resumed, and whether a large response body went to a
/// temporary file. Part of the debug message; nil when none of it applied.
public struct TransferRecord: Sendable, Equatable, Codable {
    /// A form part as sent: text parts with their value (up to the debug limit), file parts with
    /// their path and size.
    public struct FormPartSummary: Sendable, Equatable, Codable {
        public var name: String
        public var filename: String?
        public var contentType: String?
        /// The file a part was streamed from.
        public var file: String?
        public var size: Int64
        /// A text part's value (nil for files and for binary data).
        public var value: String?

        public init(name: String, filename: String? = nil, contentType: String? = nil, file: String? = nil, size: Int64, value: String? = nil) {
            self.name = name
            self.filename = filename
            self.contentType = contentType
            self.file = file
            self.size = size
            self.value = value
        }
    }

    /// The file the body was streamed from.
    public var uploadFile: String?
    public var uploadBytes: Int64?
    public var formParts: [FormPartSummary]
    /// The download's destination, as asked.
    public var downloadDestination: String?
    /// The offset the request asked to resume from (`Range`), when it did.
    public var resumeRequestedFrom: Int64?
    public var download: DownloadReport?
    /// The response body was larger than `NetworkConfig.memoryBodyLimit` and went to a temporary
    /// file; `Response.body` is mapped from it.
    public var bodyInTemporaryFile: Bool

    public init(uploadFile: String? = nil, uploadBytes: Int64? = nil, formParts: [FormPartSummary] = [], downloadDestination: String? = nil,
                resumeRequestedFrom: Int64? = nil, download: DownloadReport? = nil, bodyInTemporaryFile: Bool = false) {
        self.uploadFile = uploadFile
        self.uploadBytes = uploadBytes
        self.formParts = formParts
        self.downloadDestination = downloadDestination
        self.resumeRequestedFrom = resumeRequestedFrom
        self.download = download
        self.bodyInTemporaryFile = bodyInTemporaryFile
    }

    /// One line per fact, for `curlew send`: the request side, then the response side.
    public var lines: [String] { requestLines + responseLines }

    /// The file or form parts the body was made of.
    public var requestLines: [String] {
        var lines: [String] = []
        if let uploadFile { lines.append("upload    \(uploadFile) (\(uploadBytes.map(ByteCountText.of) ?? "size unknown"))") }
        for part in formParts {
            var line = "form      \(part.name)"
            if let file = part.file {
                line += " = @\(file)"
            } else if let value = part.value {
                line += " = \(value.debugDescription)"
            }
            if let filename = part.filename { line += " filename=\(filename.debugDescription)" }
            if let type = part.contentType { line += " type=\(type)" }
            lines.append(line + " (\(ByteCountText.of(part.size)))")
        }
        return lines
    }

    /// Where the response body went, and whether a download resumed.
    public var responseLines: [String] {
        var lines: [String] = []
        if let destination = downloadDestination {
            if let download {
                lines.append(download.completed
                    ? "download  saved to \(download.path): \(ByteCountText.of(download.fileSize)), \(ByteCountText.of(download.bytesWritten)) of it by this exchange"
                    : "download  stopped: \(ByteCountText.of(download.fileSize)) kept in \(download.partialPath), \(ByteCountText.of(download.bytesWritten)) of it by this exchange")
                if let offset = download.resumedFrom {
                    lines.append("resume    resumed from byte \(offset) (206 Partial Content)")
                } else if let offset = download.restartedFrom {
                    lines.append("resume    asked to resume from byte \(offset); the server sent the whole body, so the download started over")
                }
                if !download.completed {
                    lines.append(download.resumable ? "resume    the next download to \(destination) continues from byte \(download.fileSize)"
                                                     : "resume    not resumable: the server sent no strong ETag or Last-Modified")
                }
            } else if let offset = resumeRequestedFrom {
                // A 206 is a 2xx with a body too: one that does not continue the file is refused
                // (and no answer at all writes nothing either).
                lines.append("download  nothing written to \(destination): no 206 continuing it from byte \(offset), nor a whole 2xx body to start over with, came")
            } else {
                lines.append("download  nothing written to \(destination): the response was not a 2xx with a body")
            }
        }
        if bodyInTemporaryFile { lines.append("body      larger than the memory limit: kept in a temporary file, mapped back") }
        return lines
    }
}
