import Foundation
import CurlewLocking
import Synchronization

/// The built `curlew` executable run as a child process, its output collected as it arrives.
final class CurlewProcess {
    /// What the reader thread collects.
    private final class Streams: Sendable {
        let output = Locked(Data())
        let errors = Locked(Data())
        let finished = Atomic(false)
    }

    private let process: Process
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

    init(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = arguments
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
        let streams = streams
        Thread.detachNewThread {
            while case let chunk = stdout.fileHandleForReading.availableData, !chunk.isEmpty {
                streams.output.withLock { $0.append(chunk) }
            }
            let rest = stderr.fileHandleForReading.readDataToEndOfFile()
            streams.errors.withLock { $0.append(rest) }
            streams.finished.store(true, ordering: .releasing)
        }
    }

    var standardOutput: String { String(decoding: streams.output.withLock { $0 }, as: UTF8.self) }
    var standardError: String { String(decoding: streams.errors.withLock { $0 }, as: UTF8.self) }

    /// Waits for the process to exit and for its output to be read; returns the exit status.
    func wait(timeout: Duration = .seconds(30)) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            guard ContinuousClock.now < deadline else {
                process.terminate()
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        while !streams.finished.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(5)) }
        return process.terminationStatus
    }

    /// Waits until standard output contains `text`.
    func waitForOutput(containing text: String, timeout: Duration = .seconds(20)) async throws {
        let deadline = ContinuousClock.now + timeout
        while !standardOutput.contains(text) {
            guard ContinuousClock.now < deadline, process.isRunning else {
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    var processIdentifier: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }

    func kill() {
        _ = Foundation.kill(process.processIdentifier, SIGKILL)
    }

    func terminate() {
        process.terminate()
    }

    /// Runs `curlew` with these arguments to completion.
    static func run(_ arguments: [String]) async throws -> (status: Int32, output: String, error: String) {
        let child = try CurlewProcess(arguments)
        let status = try await child.wait()
        return (status, child.standardOutput, child.standardError)
    }
}
