// Fuzzes the JSON reader, which reads untrusted bodies for verdicts, redaction, the detail view
// and chain captures. Any bytes give a value or a typed error; what it reads, it writes back as
// text it reads again to the same text. Indented for reading (`JSONLayout`), JSON reads as
// the same value and indents again to the same text. A chain's captured value, any text, fills
// a JSON body's string as that string's text and nothing more.
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
    checkCaptureFill(String(decoding: data, as: UTF8.self))
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

private func checkCaptureFill(_ text: String) {
    let variables = ChainVariables([("x", text)])
    // Any text as a body: filled in or refused with a typed error, never a crash.
    _ = try? variables.expand(json: text)
    let body = #"{"a":"pre {{x}} post","b":["\"{{x}}"]}"#
    guard let filled = try? variables.expand(json: body), let value = try? JSONValue.parse(filled) else {
        fatalError("a captured value made a JSON body that does not read: \(text.debugDescription)")
    }
    guard value == .object([JSONMember("a", .string("pre \(text) post")), JSONMember("b", .array([.string("\"" + text)]))]) else {
        fatalError("a captured value changed a JSON body's shape: \(filled.debugDescription)")
    }
    // A string of any content (escapes JSON does not have included) still ends where it ended
    // once a hostile value is filled in.
    let content = String(text.unicodeScalars.filter { $0 != "\"" }.map(Character.init))
    let hostile = ChainVariables([("x", #"a","admin":true,"z":"\"#)])
    // A template in the content that names nothing fails the fill, as it should.
    guard let sealed = try? hostile.expand(json: "\"" + content + " {{x}}\"") else { return }
    guard closingQuotes(in: sealed) == [sealed.utf8.count - 1] else { fatalError("a filled string ends early: \(content.debugDescription)") }
}

/// Where the strings of a JSON text end: each quote that closes one.
private func closingQuotes(in text: String) -> [Int] {
    var ends: [Int] = []
    var inString = false, escaped = false
    for (offset, byte) in text.utf8.enumerated() {
        if inString, escaped { escaped = false } else if inString, byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") {
            if inString { ends.append(offset) }
            inString.toggle()
        }
    }
    return ends
}
