import CurlewTransport

/// Write a request's response body to a file instead of memory (HLNetworking's download task).
///
/// The body of a 2xx answer streams to `destination` + `.curlew-partial` with bounded memory and
/// is moved to `destination` only when complete. When `resumable`, an interrupted download keeps
/// that file and an owner-only record (`.curlew-resume`: the URL, the ETag or Last-Modified, the
/// bytes so far), and the next download to the same destination asks for the rest with `Range`
/// and `If-Range`: a 206 appends, a 200 (changed resource, no range support) starts over.
public struct Download: Sendable, Equatable {
    public var destination: String
    public var resumable: Bool

    public init(to destination: String, resumable: Bool = true) {
        self.destination = destination
        self.resumable = resumable
    }
}

extension Download {
    /// Removes an interrupted download's partial file and resume record, so the next download to
    /// `destination` starts from the beginning.
    public static func discardPartial(at destination: String) {
        DownloadTarget(path: destination).discardPartial()
    }
}

/// Which HTTP version a request asks for.
public typealias HTTPVersionPreference = TransferRequest.ProtocolPreference

/// What became of a download: where the file is, whether it is complete, and whether (and from
/// which offset) it resumed or started over.
public typealias DownloadReport = DownloadOutcome

/// Writes files whole, atomically and owner-only (reports, exports, cookie jars).
public typealias OwnerOnlyFile = CurlewTransport.OwnerOnlyFile
