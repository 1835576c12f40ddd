import Foundation

/// Runs the built `curlew` with its output discarded and reports how it exited and its peak
/// resident memory, as the kernel measured it (rusage of the waited-for child).
enum PeakMemoryRun {
    struct Outcome {
        var status: Int32
        var peakResidentKiB: Int
    }

    static func run(_ arguments: [String]) async throws -> Outcome {
        let executable = CurlewProcess.executable.path
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                var actions = posix_spawn_file_actions_t()
                posix_spawn_file_actions_init(&actions)
                defer { posix_spawn_file_actions_destroy(&actions) }
                posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
                posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
                posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
                let argv = ([executable] + arguments).map { strdup($0) } + [nil]
                defer { argv.forEach { free($0) } }
                var pid: pid_t = 0
                let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
                guard spawned == 0 else {
                    continuation.resume(throwing: POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO))
                    return
                }
                var status: Int32 = 0
                var usage = rusage()
                while wait4(pid, &status, 0, &usage) < 0, errno == EINTR {}
                let exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
                continuation.resume(returning: Outcome(status: exitStatus, peakResidentKiB: usage.ru_maxrss))
            }
        }
    }
}
