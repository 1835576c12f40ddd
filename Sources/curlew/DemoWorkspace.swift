import CurlewAgent
import CurlewTUI
import CurlewWorkspace
import Foundation

/// The demo workspace (`Demo/curlew.yaml`, shipped with the executable) made ready for the
/// embedded demo servers.
enum DemoWorkspace {
    static func session(baseURL: String, secureBaseURL: String) throws -> WorkspaceSession {
        guard let path = Bundle.module.path(forResource: "curlew", ofType: "yaml", inDirectory: "Demo") else {
            throw WorkspaceError(.unreadable, at: nil, "the demo workspace is missing from the installation (Demo/curlew.yaml)")
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
