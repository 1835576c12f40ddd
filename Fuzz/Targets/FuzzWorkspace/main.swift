// Fuzzes the workspace reader with any file a user might open: whatever the bytes, reading ends
// in a workspace or a WorkspaceError, and a workspace that loads builds every request and group.
import CurlewWorkspace
import Foundation
import FuzzSupport

@_cdecl("FuzzWorkspace_main")
public func fuzzWorkspaceMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzWorkspace)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWorkspace(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
    // A directory without includes or secrets, so only the input is read.
    let path = NSTemporaryDirectory() + "curlew-fuzz-workspace-none/curlew.yaml"
    guard let workspace = try? Workspace.parse(text, path: path),
          let session = try? WorkspaceSession(workspace, processEnvironment: { _ in "x" }) else { return 0 }
    for request in workspace.requests { _ = try? session.request(named: request.name) }
    for group in workspace.groups { _ = try? session.group(named: group.name) }
    return 0
}
