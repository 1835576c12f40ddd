// Fuzzes the JSON reader, which reads untrusted bodies for verdicts, redaction, the detail view
// and chain captures. Any bytes give a value or a typed error; what it reads, it writes back as
// text it reads again to the same text. Indented for reading (`JSONLayout`), JSON reads as
// the same value and indents again to the same text.
@testable import CurlewAgent
import Foundation
import FuzzSupport

@_cdecl("FuzzJSON_main")
public func fuzzJSONMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzJSON)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let data = Data(bytes: start, count: count)
    guard let value = try? JSONValue.parse(data) else { return 0 }
    let text = value.serialized()
    guard let again = try? JSONValue.parse(text) else { fatalError("serialized JSON does not read back: \(text)") }
    guard again.serialized() == text else { fatalError("JSON round trip changed \(text) to \(again.serialized())") }
    _ = value.serialized(pretty: true)
    checkIndentation(String(decoding: data, as: UTF8.self))
    return 0
}

private func checkIndentation(_ text: String) {
    guard let value = try? JSONValue.parse(text) else {
        guard JSONLayout.indented(text) == nil else { fatalError("indented text that is not JSON: \(text.debugDescription)") }
        return
    }
    guard let indented = JSONLayout.indented(text) else { fatalError("JSON not indented: \(text.debugDescription)") }
    guard let again = try? JSONValue.parse(indented), again.serialized() == value.serialized() else {
        fatalError("indenting \(text.debugDescription) changed it to \(indented.debugDescription)")
    }
    guard JSONLayout.indented(indented) == indented else { fatalError("indenting \(indented.debugDescription) again changes it") }
}
