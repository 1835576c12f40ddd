// Fuzzes the workspace reader with any file a user might open: whatever the bytes, reading ends
// in a workspace or a WorkspaceError, and a workspace that loads builds every request and group.
// The input is also a request's text body, under a text, a form and a multipart type: moving its credentials
// to the secrets file changes nothing the request sends, expressions and built-ins included; and as a value a chain captured, it is
// filled in as it is.
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
    checkCapturedValue(text)
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
    for type in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=b", "application/json"] {
        let isJSON = type == "application/json"
        var request = Request(.post, "http://h/")
        request.requestSerializer = .raw(Data(text.utf8), contentType: type)
        var collection = ImportedCollection()
        let moved = WorkspaceWriter.movingBodyCredentials(of: request, named: "fz", into: &collection, avoiding: [], secrets: RedactionPolicy())
        /// What a template text sends: the generated references as their secrets, `\\{{` as `{{`.
        func sent(_ written: String) -> String {
            var result = written
            for (index, secret) in collection.secrets.enumerated() { result = result.replacingOccurrences(of: "{{\(secret.name)}}", with: marker + "\(index)" + marker) }
            result = result.replacingOccurrences(of: "\\{{", with: "{{")
            for (index, secret) in collection.secrets.enumerated() { result = result.replacingOccurrences(of: marker + "\(index)" + marker, with: secret.value) }
            return result
        }
        guard case .raw(let data, _) = moved.requestSerializer else { fatalError("the body is no longer a text body") }
        let written = String(decoding: data, as: UTF8.self)
        let body = sent(written)
        // A JSON type's secrets are kept decoded and its strings filled in escaped: the template checks it below.
        guard isJSON || body == text.replacingOccurrences(of: "\\{{", with: "{{") else {
            fatalError("moving the credentials of \(text.debugDescription) (\(type)) sends \(body.debugDescription)")
        }
        // With the template itself (expressions and built-ins included, every other name given
        // a value, the generated names as their secrets; a JSON type's strings filled in as
        // JSON writes them): the same text (JSON written as `json:` but for its spacing), or a
        // failure both ways.
        if !text.contains("$uuid") {
            var variables = Dictionary(Template.names(in: text).map { ($0, "v") }, uniquingKeysWith: { first, _ in first })
            for secret in collection.secrets { variables[secret.name] = secret.value }
            var template = Template(variables: variables, environment: { _ in "e" }, now: { Date(timeIntervalSince1970: 0) }, random: { $0.lowerBound })
            template.literal = Set(collection.secrets.map(\.name))
            func filled(_ body: String) -> String? {
                guard isJSON else { return try? template.expand(body) }
                var outside = template
                outside.fillsOutsideJSONString = true
                return try? JSONTemplateFill.fill(body, string: { (part: String) throws(Template.Failure) in try template.expand(part) },
                                                  elsewhere: { (part: String) throws(Template.Failure) in try outside.expand(part) },
                                                  repeatedName: { .undefined($0, suggestion: nil) })
            }
            let before = filled(text)
            let after = filled(written)
            let compacted = isJSON ? before.flatMap(JSONLayout.compacted) : nil
            guard before == after || (compacted != nil && compacted == after.flatMap(JSONLayout.compacted)) else {
                fatalError("moving the credentials of \(text.debugDescription) (\(type)) expands to \(String(describing: after)), not \(String(describing: before))")
            }
        }
    }
}

/// `text` as a server's value a chain captured: it stands in a step as it is, never read as a
/// template, and outside a JSON body's strings only as one JSON value, so it adds no member.
private func checkCapturedValue(_ text: String) {
    var template = Template(variables: ["t": "[{{token}}]"], environment: { _ in nil })
    template.variables["token"] = text
    template.captured = ["token"]
    guard (try? template.expand(#"{{t}} \{{token}} {{$base64 {{token}}}}"#)) == "[\(text)] {{token}} " + Data(text.utf8).base64EncodedString() else {
        fatalError("the captured value \(text.debugDescription) is not filled in as it is")
    }
    var outside = template
    outside.fillsOutsideJSONString = true
    let body = try? JSONTemplateFill.fill(#"{"n": {{token}}, "s": "{{token}}"}"#, string: { (part: String) throws(Template.Failure) in try template.expand(part) },
                                          elsewhere: { (part: String) throws(Template.Failure) in try outside.expand(part) },
                                          repeatedName: { .undefined($0, suggestion: nil) })
    guard let body else { return }
    guard case .object(let members)? = try? JSONValue.parse(body), members.map(\.key) == ["n", "s"], members[1].value == .string(text) else {
        fatalError("the captured value \(text.debugDescription) makes the body \(body.debugDescription)")
    }
}
