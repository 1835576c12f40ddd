import CurlewAgent
import CurlewTUI
import CurlewWorkspace
import Foundation

/// The demo workspace (`Demo/curlew.yaml`, shipped with the executable) made ready for the
/// embedded demo servers.
enum DemoWorkspace {
    static func session(baseURL: String, secureBaseURL: String) throws -> WorkspaceSession {
        // Found beside the executable, as SwiftPM places the target's resources; not through
        // `Bundle.module`, which stops the process when they are missing (a binary copied
        // elsewhere) instead of letting this say so.
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        let candidates = [Bundle.main.bundleURL, executable].map { $0.appendingPathComponent("Curlew_curlew.resources/Demo/curlew.yaml").path }
        guard let path = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
            throw WorkspaceError(.unreadable, at: nil, "the demo workspace (Curlew_curlew.resources/Demo/curlew.yaml) is not beside the curlew executable; run it from its build directory")
        }
        return try WorkspaceSession(try Workspace.load(path: path), overrides: [("base", baseURL), ("secureBase", secureBaseURL)])
    }

    /// What Compose lists: what `curlew run` runs by default, requests first, then groups.
    static func composeItems(_ session: WorkspaceSession) throws -> [ComposeItem] {
        try session.defaultTargets().map { target throws -> ComposeItem in
            switch target {
            case .request(let name): .request(RequestDraft(try session.request(named: name).0, baseURL: session.config.baseURL))
            case .group(let name): .group(name: name, try session.group(named: name))
            }
        }
    }
}
