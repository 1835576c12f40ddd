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

    /// Edits `text` in the editor, which runs on this terminal until it exits.
    public static func edit(_ text: String, fileExtension: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> Outcome {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curlew-edit-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            let file = directory.appendingPathComponent("body.\(fileExtension)")
            guard FileManager.default.createFile(atPath: file.path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
                return .failed("cannot write a temporary file in \(directory.path)")
            }
            // The command is the user's own, so the shell splits it (`code --wait`, `vim -u NONE`).
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", command(environment: environment) + " \"$1\"", "curlew-editor", file.path]
            process.environment = environment
            try process.run()
            // The editor has the terminal: Ctrl-C and Ctrl-\\ there are its own, not a reason for
            // the interface (and its unsaved work) to die.
            let previous = [SIGINT, SIGQUIT, SIGTSTP].map { ($0, signal($0, SIG_IGN)) }
            process.waitUntilExit()
            for (number, handler) in previous { signal(number, handler) }
            guard process.terminationStatus == 0 else {
                return .failed("\(command(environment: environment)) exited with status \(process.terminationStatus); the field is unchanged")
            }
            let size = (try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
            guard size <= maxBytes else { return .failed("the edited file is larger than \(maxBytes >> 20) MiB; the field is unchanged") }
            let data = try Data(contentsOf: file)
            guard let edited = String(data: data, encoding: .utf8) else { return .failed("the edited file is not UTF-8 text; the field is unchanged") }
            return .edited(edited)
        } catch {
            return .failed("cannot run the editor: \(error.localizedDescription)")
        }
    }
}
