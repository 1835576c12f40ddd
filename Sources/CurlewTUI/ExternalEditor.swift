import Foundation

/// Runs the user's editor (`$VISUAL`, else `$EDITOR`, else `vi`) on a temporary file holding
/// some text, and reads the file back when it exits. The file lives in an owner-only directory
/// that is removed afterwards, since a body may hold a secret.
public enum ExternalEditor {
    /// What the edit gave: the new text, or why there is none.
    public enum Outcome: Sendable, Equatable {
        case edited(String)
        case failed(String)
    }

    /// The largest text read back.
    public static let maxBytes = 16 << 20

    /// The editor command: `$VISUAL`, then `$EDITOR`, then `vi`.
    public static func command(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        for name in ["VISUAL", "EDITOR"] {
            if let value = environment[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty { return value }
        }
        return "vi"
    }

    /// Edits `text` in the editor, which runs on this terminal until it exits, or until
    /// `stopRequested` says the interface is told to stop (SIGTERM, SIGHUP): the editor is then
    /// sent SIGTERM, and the field is left as it was.
    public static func edit(_ text: String, fileExtension: String, environment: [String: String] = ProcessInfo.processInfo.environment,
                            stopRequested: @Sendable () -> Bool = { false }) -> Outcome {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-edit-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            let file = directory.appendingPathComponent("body.\(fileExtension)")
            guard FileManager.default.createFile(atPath: file.path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
                return .failed("cannot write a temporary file in \(directory.path)")
            }
            // The command is the user's own, so the shell splits it (`code --wait`, `vim -u NONE`).
            let status = run(["/bin/sh", "-c", shellLine(for: command(environment: environment)), "curlew-editor", file.path],
                             environment: environment, stopRequested: stopRequested)
            guard status == 0 else {
                return .failed(status < 0 ? "cannot run the editor: \(String(cString: strerror(-status)))"
                    : "\(command(environment: environment)) exited with status \(status); the field is unchanged")
            }
            // The editor ran; what went wrong from here is the file's.
            guard FileManager.default.fileExists(atPath: file.path) else {
                return .failed("the editor left no file (it was removed or renamed); the field is unchanged")
            }
            let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
            guard size <= maxBytes else { return .failed("the edited file is larger than \(maxBytes >> 20) MiB; the field is unchanged") }
            guard let data = try? Data(contentsOf: file) else { return .failed("cannot read the edited file; the field is unchanged") }
            guard let edited = String(data: data, encoding: .utf8) else { return .failed("the edited file is not UTF-8 text; the field is unchanged") }
            return .edited(edited)
        } catch {
            return .failed("cannot run the editor: \(error.localizedDescription)")
        }
    }

    /// The shell line that runs `command` on the file (`$1`). A plain command is `exec`ed, after
    /// any leading `NAME=value` words (`FOO=1 exec vim "$1"`), so the editor is the process
    /// waited for and the one a stop reaches; one with shell syntax (`;`, `&&`, `|`, a
    /// subshell) runs as written.
    static func shellLine(for command: String) -> String {
        guard !command.contains(where: { ";&|()`\n".contains($0) }) else { return command + " \"$1\"" }
        let words = command.split(separator: " ", omittingEmptySubsequences: true)
        let assignments = words.prefix { word in
            guard let equals = word.firstIndex(of: "="), equals > word.startIndex else { return false }
            return word[..<equals].allSatisfy { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
        }
        let rest = words.dropFirst(assignments.count)
        guard !rest.isEmpty else { return command + " \"$1\"" }
        return (assignments + ["exec"] + rest).joined(separator: " ") + " \"$1\""
    }

    /// Runs `arguments` in this process group, which holds the terminal, so an interactive
    /// editor can read the keyboard (a child in a group of its own gets EIO). The editor gets
    /// the default handling of Ctrl-C, Ctrl-\ and Ctrl-Z; the interface ignores them while it
    /// waits, so they are the editor's alone. It is sent SIGTERM (and SIGCONT, in case Ctrl-Z
    /// stopped it) once `stopRequested` says so (asked every 20 ms), and SIGKILL 3 s later if it
    /// is still there. Returns the exit status (128 + the signal for a killed editor), or minus
    /// errno when it could not start.
    private static func run(_ arguments: [String], environment: [String: String], stopRequested: () -> Bool) -> Int32 {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGINT, SIGQUIT, SIGTSTP, SIGTERM, SIGHUP, SIGPIPE, SIGWINCH] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        var argv = arguments.map { strdup($0) } + [nil]
        var envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        InheritedDescriptors.onlyStandard(&actions)
        var pid = pid_t()
        let started = posix_spawn(&pid, arguments[0], &actions, &attributes, &argv, &envp)
        guard started == 0 else { return -started }
        let previous = [SIGINT, SIGQUIT, SIGTSTP].map { ($0, signal($0, SIG_IGN)) }
        defer { for (number, handler) in previous { signal(number, handler) } }
        var status: Int32 = 0
        var stopSentAt: ContinuousClock.Instant?
        var killed = false
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { break }
            if reaped == -1 {
                guard errno == EINTR else { return -errno }
                continue
            }
            if let sent = stopSentAt {
                if !killed, ContinuousClock.now - sent >= .seconds(3) {
                    kill(pid, SIGKILL)
                    killed = true
                }
            } else if stopRequested() {
                kill(pid, SIGTERM)
                kill(pid, SIGCONT)
                stopSentAt = .now
            }
            usleep(20_000)
        }
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }
}
