// Fuzzes the curl command reader with any pasted text: it ends in requests or a typed failure,
// and a request it reads exports to a command that reads back to the same method, URL and body.
import CurlewAgent
import CurlewSessions
import Foundation
import FuzzSupport

@_cdecl("FuzzCurlImport_main")
public func fuzzCurlImportMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzCurlImport)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCurlImport(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
    guard let imported = try? CurlImport.parse(text, readFile: { _ in Data("file".utf8) }) else { return 0 }
    for item in imported where item.request.form == nil && item.request.uploadFile == nil {
        let request = item.request
        var body: Data?
        if case .raw(let data, _) = request.requestSerializer { body = data }
        let command = CurlExport.command(method: request.method.rawValue, url: request.customURL ?? "", headers: [], body: body)
        guard let again = try? CurlImport.parse(command).first else { fatalError("the export of an import does not read back: \(command)") }
        var bodyAgain: Data?
        if case .raw(let data, _) = again.request.requestSerializer { bodyAgain = data }
        guard again.request.method == request.method, again.request.customURL == request.customURL, bodyAgain == body else {
            fatalError("the export of an import reads back differently: \(command)")
        }
    }
    return 0
}
