import CCurl
import Foundation

/// A local file sent as a request body, read as libcurl asks for it.
///
/// Used only on the transfer thread.
final class UploadFile {
    private let descriptor: Int32
    let size: Int64
    let path: String
    /// Set when a read failed, for the exchange's error.
    private(set) var failure: String?

    private init(descriptor: Int32, size: Int64, path: String) {
        self.descriptor = descriptor
        self.size = size
        self.path = path
    }

    deinit {
        close(descriptor)
    }

    /// The regular file at `path`, opened for reading.
    static func open(_ path: String) -> Result<UploadFile, TransferError> {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            return .failure(TransferError(kind: .localFile, code: 26, message: "could not open \(path): \(String(cString: strerror(errno)))"))
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            return .failure(TransferError(kind: .localFile, code: 26, message: "\(path) is not a regular file"))
        }
        return .success(UploadFile(descriptor: descriptor, size: Int64(info.st_size), path: path))
    }

    /// Fills `buffer` with the next bytes; 0 at the end, `CURL_READFUNC_ABORT` on a read error.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        while true {
            let count = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            if errno == EINTR || errno == EAGAIN { continue }
            failure = "could not read \(path): \(String(cString: strerror(errno)))"
            return Int(CURL_READFUNC_ABORT)
        }
    }

    /// Moves to `offset` from the start, as libcurl asks before sending the body again.
    func seek(to offset: Int64) -> Bool {
        lseek(descriptor, off_t(offset), SEEK_SET) == off_t(offset)
    }
}
