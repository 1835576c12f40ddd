// Fuzzes the multipart lines Compose edits (curl -F syntax): any text reads as parts or fails
// with a reason, and parts written back as lines read back to the same form.
import CurlewAgent
import CurlewSessions
import Foundation
import FuzzSupport

@_cdecl("FuzzMultipart_main")
public func fuzzMultipartMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzMultipart)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMultipart(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
    guard let form = try? MultipartText.form(text, expand: { (text: String) throws(MultipartText.Failure) -> String in text }) else { return 0 }
    guard let lines = MultipartText.text(of: form) else { return 0 }
    guard let again = try? MultipartText.form(lines, expand: { (text: String) throws(MultipartText.Failure) -> String in text }) else {
        fatalError("the lines written for a form do not read back: \(lines.debugDescription)")
    }
    guard again == form else { fatalError("the lines written for a form read back differently: \(lines.debugDescription)") }
    return 0
}
