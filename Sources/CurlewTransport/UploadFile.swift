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
    /// Bytes read since the start or the last seek: reads stop at `size`, the length libcurl
    /// announced.
    private var position: Int64 = 0

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

    /// Fills `buffer` with the next bytes, up to the size the file had when opened (a file that
    /// grows meanwhile sends that much, as announced); 0 at the end, `CURL_READFUNC_ABORT` on a
    /// read error or a file that got shorter, which would leave the server waiting for bytes
    /// that never come.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let wanted = Int(min(Int64(buffer.count), size - position))
        guard wanted > 0 else { return 0 }
        while true {
            let count = Glibc.read(descriptor, buffer.baseAddress, wanted)
            if count > 0 {
                position += Int64(count)
                return count
            }
            if count == 0 {
                failure = "\(path) got shorter while it was sent (\(position) of its \(size) bytes were there)"
                return Int(CURL_READFUNC_ABORT)
            }
            if errno == EINTR || errno == EAGAIN { continue }
            failure = "could not read \(path): \(String(cString: strerror(errno)))"
            return Int(CURL_READFUNC_ABORT)
        }
    }

    /// libcurl's read callback for a body read from a file (an upload, a form's file part); its
    /// user data is the `UploadFile`, which its owner keeps alive while libcurl sends.
    static let readCallback: curlew_data_callback = { buffer, size, count, context in
        guard let buffer, let context else { return Int(CURL_READFUNC_ABORT) }
        return Unmanaged<UploadFile>.fromOpaque(context)._withUnsafeGuaranteedRef {
            $0.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: size * count))
        }
    }

    /// libcurl's seek callback for the same body, before it sends the body again.
    static let seekCallback: curlew_seek_callback = { context, offset, origin in
        guard let context, origin == SEEK_SET else { return Int32(CURL_SEEKFUNC_CANTSEEK) }
        return Unmanaged<UploadFile>.fromOpaque(context)._withUnsafeGuaranteedRef { $0.seek(to: Int64(offset)) }
            ? Int32(CURL_SEEKFUNC_OK) : Int32(CURL_SEEKFUNC_FAIL)
    }

    /// Moves to `offset` from the start, as libcurl asks before sending the body again.
    func seek(to offset: Int64) -> Bool {
        guard offset >= 0, offset <= size, lseek(descriptor, off_t(offset), SEEK_SET) == off_t(offset) else { return false }
        position = offset
        return true
    }
}
