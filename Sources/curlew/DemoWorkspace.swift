import CurlewAgent
import CurlewTUI
import CurlewWorkspace
import Foundation

/// The demo workspace (`Demo/curlew.yaml`, shipped with the executable) made ready for the
/// embedded demo servers.
enum DemoWorkspace {
    /// The demo workspace's file, found beside the executable as SwiftPM places the target's
    /// resources; not through `Bundle.module`, which stops the process when they are missing (a
    /// binary copied elsewhere) instead of letting this say so.
    static func path() throws -> String {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        let candidates = [Bundle.main.bundleURL, executable].map { $0.appendingPathComponent("Curlew_curlew.resources/Demo/curlew.yaml").path }
        guard let path = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
            throw WorkspaceError(.unreadable, at: nil, "the demo workspace (Curlew_curlew.resources/Demo/curlew.yaml) is not beside the curlew executable "
                                 + "(\(executable.path)); run the binary where the build put it (`make run` does), or copy that folder beside it")
        }
        return path
    }

    static func overrides(baseURL: String, secureBaseURL: String) -> [(name: String, value: String)] {
        [("base", baseURL), ("secureBase", secureBaseURL)]
    }

    static func session(baseURL: String, secureBaseURL: String) throws -> WorkspaceSession {
        try WorkspaceSession(try Workspace.load(path: path()), overrides: overrides(baseURL: baseURL, secureBaseURL: secureBaseURL))
    }

    /// The demo workspace as Compose lists it: sent against the demo servers, never written.
    static func composeWorkspace(baseURL: String, secureBaseURL: String) throws -> ComposeWorkspace {
        try ComposeWorkspace(path: path(), overrides: overrides(baseURL: baseURL, secureBaseURL: secureBaseURL), isReadOnly: true)
    }
}
