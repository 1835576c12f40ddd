// Fuzzes the workspace reader with any file a user might open: whatever the bytes, reading ends
// in a workspace or a WorkspaceError, and a workspace that loads builds every request and group.
// The input is also a request's text body, under a text, a form and a multipart type: moving its credentials
// to the secrets file changes nothing the request sends, and as a chain step's text it sends
// what the template stage makes of it with the captured values known from the start.
import CurlewAgent
import CurlewSessions
@testable import CurlewWorkspace
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
    checkBodyCredentials(text)
    checkChainHandOff(text)
    // A body written as `json:` members is sent as typed but for its spacing, and reads back so.
    if let json = WorkspaceWriter.jsonMembers(of: Data(text.utf8), contentType: "application/json") {
        guard JSONLayout.compacted(text) == json.serialized(), (try? JSONValue.parse(json.serialized()))?.serialized() == json.serialized() else {
            fatalError("\(text.debugDescription) is not sent as typed once written as json:")
        }
    }
    // A directory without includes or secrets, so only the input is read.
    let path = NSTemporaryDirectory() + "curlew-fuzz-workspace-none/curlew.yaml"
    guard let workspace = try? Workspace.parse(text, path: path),
          let session = try? WorkspaceSession(workspace, processEnvironment: { _ in "x" }) else { return 0 }
    for request in workspace.requests { _ = try? session.request(named: request.name) }
    for group in workspace.groups { _ = try? session.group(named: group.name) }
    return 0
}

/// `text` as a body with its credentials moved: with each generated `{{name}}` put back as its
/// secret, it reads as the original does (`\\{{` is literal `{{` in both).
private func checkBodyCredentials(_ text: String) {
    let marker = "\u{0}fz\u{0}"
    guard !text.contains("fz_"), !text.contains(marker) else { return }
    for type in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=b"] {
        var request = Request(.post, "http://h/")
        request.requestSerializer = .raw(Data(text.utf8), contentType: type)
        var collection = ImportedCollection()
        let moved = WorkspaceWriter.movingBodyCredentials(of: request, named: "fz", into: &collection, avoiding: [],
                                                          secretParameters: RedactionPolicy().parameterNames)
        /// What a template text sends: the generated references as their secrets, `\\{{` as `{{`.
        func sent(_ written: String) -> String {
            var result = written
            for (index, secret) in collection.secrets.enumerated() { result = result.replacingOccurrences(of: "{{\(secret.name)}}", with: marker + "\(index)" + marker) }
            result = result.replacingOccurrences(of: "\\{{", with: "{{")
            for (index, secret) in collection.secrets.enumerated() { result = result.replacingOccurrences(of: marker + "\(index)" + marker, with: secret.value) }
            return result
        }
        guard case .raw(let data, _) = moved.requestSerializer else { fatalError("the body is no longer a text body") }
        let body = sent(String(decoding: data, as: UTF8.self))
        guard body == text.replacingOccurrences(of: "\\{{", with: "{{") else {
            fatalError("moving the credentials of \(text.debugDescription) (\(type)) sends \(body.debugDescription)")
        }
    }
}

/// `text` as a chain step: expanded with the captured names deferred and then filled by the
/// chain (`Template.chainFills`, `ChainVariables.fillsOnly`), it sends what it sends expanded
/// with the captured values as plain variables, whatever backslashes and braces it holds.
private func checkChainHandOff(_ text: String) {
    let captured = [("token", #"v\{{x}}\"#), ("x", "{{token}}")]
    var direct = Template(variables: ["dir": #"C:\"#, "t": "{{token}}"], environment: { _ in "e" }, now: { Date(timeIntervalSince1970: 0) }, random: { $0.lowerBound })
    direct.literal = ["t"]
    var handed = direct
    handed.deferred = ["token", "x"]
    handed.chainFills = ["token", "x"]
    var chain = ChainVariables(captured)
    chain.fillsOnly = ["token", "x"]
    for (name, value) in captured {
        direct.variables[name] = value
        direct.literal.insert(name)
    }
    // Built-ins encode their argument's text, a captured name's too (it is not filled there).
    guard !text.contains("$"), let expected = try? direct.expand(text) else { return }
    guard let handedText = try? handed.expand(text) else { fatalError("\(text.debugDescription) expands alone but not for the chain") }
    // A known limit: a single brace of text just before a captured name is read as its `{{`.
    guard !handedText.contains("{{{token}}"), !handedText.contains("{{{x}}") else { return }
    guard let filled = try? chain.expand(handedText) else {
        fatalError("\(text.debugDescription) expands alone but not through the chain")
    }
    guard filled == expected else {
        fatalError("\(text.debugDescription) sends \(filled.debugDescription) through the chain, \(expected.debugDescription) alone")
    }
}
