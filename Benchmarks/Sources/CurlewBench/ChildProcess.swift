import BenchMeasurement
import Foundation

/// A finished child process: its exit status, standard output and peak memory.
struct ChildResult {
    var status: Int32
    var output: String
    var peakRSSKiB: Int
    var wallSeconds: Double
    /// User plus system CPU time the child used, from wait4's rusage.
    var cpuSeconds: Double
    /// Voluntary plus involuntary context switches of the child's threads, from wait4's rusage.
    var contextSwitches: Int
}

/// Runs programs with posix_spawn and waits with wait4, so each child's CPU time is known, and
/// samples its peak RSS while it runs (`HighWaterMark`; Foundation's Process reports neither).
enum ChildProcess {
    /// Runs `program` to its end. `environment` entries are added to (or replace) this process's.
    /// Without `capturesOutput` its standard output goes to /dev/null: a program that leaves a
    /// daemon behind (tmux's server) would otherwise hold the pipe open, and reading it would
    /// never end.
    static func run(_ program: String, _ arguments: [String], discardStandardError: Bool = true,
                    environment: [String: String] = [:], capturesOutput: Bool = true) throws -> ChildResult {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw BenchError("pipe failed") }
        // Close-on-exec: no child (nor a daemon it leaves) inherits another run's pipe.
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if capturesOutput {
            posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        if discardStandardError { posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0) }
        let argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var variables = ProcessInfo.processInfo.environment
        variables.merge(environment) { $1 }
        let envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let started = ContinuousClock.now
        let spawned = posix_spawnp(&pid, program, &actions, nil, argv, envp)
        close(pipeEnds[1])
        guard spawned == 0 else {
            close(pipeEnds[0])
            throw BenchError("cannot start \(program): \(String(cString: strerror(spawned)))")
        }
        let highWater = HighWaterMark(pid: pid)
        var output = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(pipeEnds[0], &buffer, buffer.count)
            if count <= 0 { break }
            output.append(contentsOf: buffer[0..<count])
        }
        close(pipeEnds[0])
        var status: Int32 = 0
        var usage = rusage()
        // Sampling ends with the child (an exited process has no memory to read); at most its last
        // few milliseconds go unsampled.
        let peak = highWater.stop()
        wait4(pid, &status, 0, &usage)
        let exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return ChildResult(status: exitStatus, output: String(decoding: output, as: UTF8.self),
                           peakRSSKiB: peak, wallSeconds: seconds(ContinuousClock.now - started),
                           cpuSeconds: Self.cpuSeconds(usage.ru_utime) + Self.cpuSeconds(usage.ru_stime),
                           contextSwitches: usage.ru_nvcsw + usage.ru_nivcsw)
    }
}

extension ChildProcess {
    static func cpuSeconds(_ time: timeval) -> Double {
        Double(time.tv_sec) + Double(time.tv_usec) / 1e6
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension RunResult {
    /// Fills in what only the parent knows, from the finished child.
    mutating func attribute(_ child: ChildResult) {
        peakRSSKiB = child.peakRSSKiB
        cpuMicrosPerRequest = requests > 0 ? child.cpuSeconds * 1e6 / Double(requests) : 0
        contextSwitchesPerRequest = requests > 0 ? Double(child.contextSwitches) / Double(requests) : 0
    }
}
