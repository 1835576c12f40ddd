import Foundation
import CurlewLocking
import CurlewTUI
import Synchronization

/// The built `curlew` executable run as a child process, its output collected as it arrives.
///
/// Spawned with SIGINT and SIGTERM at their default handling, whatever this process does with
/// them at the moment: the test process is shared by every suite, and the interface's editor
/// tests ignore Ctrl-C while their editor runs (as the interface does). A child spawned then
/// would inherit the ignoring, and a curlew started with SIGINT ignored rightly keeps ignoring
/// it, so the interrupt tests failed when the two overlapped.
final class CurlewProcess {
    /// What the reader thread collects.
    private final class Streams: Sendable {
        let output = Locked(Data())
        let errors = Locked(Data())
        let finished = Atomic(false)
    }

    private let pid: pid_t
    /// The exit status once the child was reaped (a signal's number if one ended it).
    private let exitStatus = Locked<Int32?>(nil)
    private let streams = Streams()

    /// The `curlew` binary beside the test bundle in the build directory.
    static var executable: URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent("curlew")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: ".build/debug/curlew")
    }

    /// `environment` adds to (or replaces in) this process's environment for the child.
    /// `program` runs another program the same way (a shell or `script` that runs curlew).
    /// Standard input reads `input` (a file's path), or nothing.
    init(_ arguments: [String], environment: [String: String] = [:], program: String = CurlewProcess.executable.path,
         input: String = "/dev/null") throws {
        // Close-on-exec pipes, so no other child spawned meanwhile keeps their write ends open.
        var output: [Int32] = [0, 0]
        var errors: [Int32] = [0, 0]
        guard pipe(&output) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        guard pipe(&errors) == 0 else {
            let failure = POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            output.forEach { close($0) }
            throw failure
        }
        for descriptor in output + errors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, input, O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errors[1], 2)
        // Nothing else of the test process: a child holding the shared demo server's sockets
        // kept a connection the server closed open until the child exited, and a test waiting
        // on that close timed out.
        InheritedDescriptors.onlyStandard(&actions)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGINT, SIGTERM, SIGPIPE] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let path = program
        var argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let spawned: Int32
        if environment.isEmpty {
            spawned = posix_spawn(&pid, path, &actions, &attributes, &argv, environ)
        } else {
            let merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            var envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { envp.forEach { free($0) } }
            spawned = posix_spawn(&pid, path, &actions, &attributes, &argv, &envp)
        }
        close(output[1])
        close(errors[1])
        guard spawned == 0 else {
            close(output[0])
            close(errors[0])
            throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO)
        }
        self.pid = pid
        let streams = streams
        let stdout = FileHandle(fileDescriptor: output[0], closeOnDealloc: true)
        let stderr = FileHandle(fileDescriptor: errors[0], closeOnDealloc: true)
        Thread.detachNewThread {
            while case let chunk = stdout.availableData, !chunk.isEmpty {
                streams.output.withLock { $0.append(chunk) }
            }
            let rest = stderr.readDataToEndOfFile()
            streams.errors.withLock { $0.append(rest) }
            streams.finished.store(true, ordering: .releasing)
        }
    }

    deinit {
        // Reaped even when a test stopped waiting, so no zombie outlives it.
        if reaped() == nil {
            _ = Foundation.kill(pid, SIGKILL)
            var raw: Int32 = 0
            _ = waitpid(pid, &raw, 0)
        }
    }

    /// The exit status if the child has ended (reaping it then), nil while it runs.
    private func reaped() -> Int32? {
        exitStatus.withLock { status in
            if status == nil {
                var raw: Int32 = 0
                let reaped = waitpid(pid, &raw, WNOHANG)
                if reaped == pid {
                    status = raw & 0x7F == 0 ? (raw >> 8) & 0xFF : raw & 0x7F
                } else if reaped == -1, errno != EINTR {
                    // Reaped elsewhere or gone: it is not running, and its pid may be reused.
                    status = -1
                }
            }
            return status
        }
    }

    var standardOutput: String { String(decoding: streams.output.withLock { $0 }, as: UTF8.self) }
    var standardError: String { String(decoding: streams.errors.withLock { $0 }, as: UTF8.self) }

    /// Waits for the process to exit and for its output to be read; returns the exit status.
    func wait(timeout: Duration = .seconds(30)) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while isRunning {
            guard ContinuousClock.now < deadline else {
                terminate()
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        while !streams.finished.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(5)) }
        return reaped() ?? -1
    }

    /// Waits until standard output contains `text`.
    func waitForOutput(containing text: String, timeout: Duration = .seconds(20)) async throws {
        let deadline = ContinuousClock.now + timeout
        while !standardOutput.contains(text) {
            guard ContinuousClock.now < deadline, isRunning else {
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    var processIdentifier: Int32 { pid }
    var isRunning: Bool { reaped() == nil }

    func kill() {
        _ = Foundation.kill(pid, SIGKILL)
    }

    func terminate() {
        _ = Foundation.kill(pid, SIGTERM)
    }

    /// Runs `curlew` with these arguments to completion.
    static func run(_ arguments: [String], environment: [String: String] = [:], input: String = "/dev/null") async throws -> (status: Int32, output: String, error: String) {
        let child = try CurlewProcess(arguments, environment: environment, input: input)
        let status = try await child.wait()
        return (status, child.standardOutput, child.standardError)
    }
}
