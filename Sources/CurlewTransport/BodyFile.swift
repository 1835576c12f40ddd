import Foundation

/// A response body kept in a file: a download's partial file, or an unlinked temporary file for a
/// body too large to hold in memory. Writes go straight to the file descriptor.
///
/// Used only on the transfer thread.
final class BodyFile {
    private var descriptor: Int32
    /// Bytes in the file now.
    private(set) var size: Int64
    /// Why the last operation failed, for the exchange's error.
    private(set) var failure: String?

    private init(descriptor: Int32, size: Int64) {
        self.descriptor = descriptor
        self.size = size
    }

    deinit {
        close()
    }

    /// A new, already unlinked temporary file in `directory`: nothing is left behind whatever
    /// happens to the process, and no other process can open it by name.
    static func anonymous(in directory: String) -> Result<BodyFile, TransferError> {
        var template = Array((directory.hasSuffix("/") ? directory : directory + "/").utf8CString.dropLast()) + Array("curlew-body-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            return .failure(localFileError("could not create a temporary file in \(directory)"))
        }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        return .success(BodyFile(descriptor: descriptor, size: 0))
    }

    /// The file at `path` opened for writing from `offset` (cut to that size first), created
    /// owner-only when missing. Refuses a symbolic link or anything but a regular file.
    static func open(path: String, keeping offset: Int64) -> Result<BodyFile, TransferError> {
        let descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0o600)
        guard descriptor >= 0 else { return .failure(localFileError("could not open \(path) for writing")) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            Glibc.close(descriptor)
            return .failure(TransferError(kind: .localFile, code: 23, message: "\(path) is not a regular file"))
        }
        // A partial file left by someone else is not continued, and ours stays owner-only.
        guard info.st_uid == geteuid(), fchmod(descriptor, 0o600) == 0 else {
            Glibc.close(descriptor)
            return .failure(TransferError(kind: .localFile, code: 23, message: "\(path) belongs to another user"))
        }
        let kept = min(offset, Int64(info.st_size))
        // Truncated only when there is something to cut: on ext4, a file truncated to nothing has
        // its delayed writes forced out when it is closed (the replace-by-truncate heuristic), and
        // closing a fresh 1 GiB download then took half a second, a third of its whole time.
        guard kept == Int64(info.st_size) || ftruncate(descriptor, off_t(kept)) == 0,
              lseek(descriptor, off_t(kept), SEEK_SET) == off_t(kept) else {
            Glibc.close(descriptor)
            return .failure(localFileError("could not prepare \(path)"))
        }
        return .success(BodyFile(descriptor: descriptor, size: kept))
    }

    /// An existing character device (`/dev/null`) opened for writing; anything else is refused.
    static func openDevice(path: String) -> Result<BodyFile, TransferError> {
        let descriptor = Glibc.open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return .failure(localFileError("could not open \(path) for writing")) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFCHR else {
            Glibc.close(descriptor)
            return .failure(TransferError(kind: .localFile, code: 23, message: "\(path) is no longer a character device"))
        }
        return .success(BodyFile(descriptor: descriptor, size: 0))
    }

    /// Appends `bytes`; false (with `failure` set) when the disk refused them.
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard descriptor >= 0 else { return false }
        guard Self.writeAll(descriptor, bytes) else {
            failure = String(cString: strerror(errno))
            return false
        }
        size += Int64(bytes.count)
        return true
    }

    /// The whole file as `Data` mapped from disk: its pages are read only when touched and count
    /// as file cache, not as the process's own memory.
    func mappedData() -> Data? {
        guard descriptor >= 0 else { return nil }
        guard size > 0 else { return Data() }
        let length = Int(size)
        guard let address = mmap(nil, length, PROT_READ, MAP_PRIVATE, descriptor, 0), address != MAP_FAILED else { return nil }
        return Data(bytesNoCopy: address, count: length, deallocator: .custom { pointer, count in munmap(pointer, count) })
    }

    func close() {
        guard descriptor >= 0 else { return }
        Glibc.close(descriptor)
        descriptor = -1
    }

    /// Writes every byte, retrying short writes and interruptions.
    static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return false
            }
            offset += written
        }
        return true
    }

    private static func localFileError(_ what: String) -> TransferError {
        TransferError(kind: .localFile, code: 23, message: "\(what): \(String(cString: strerror(errno)))")
    }
}
