// Fuzzes OpenAPI import with any document: it ends in a collection or a typed failure, never a
// crash or a hang, whatever the YAML or JSON says.
import CurlewOpenAPI
import Foundation
import FuzzSupport

@_cdecl("FuzzOpenAPI_main")
public func fuzzOpenAPIMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOpenAPI)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOpenAPI(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    _ = try? OpenAPIImport.parse(Data(UnsafeBufferPointer(start: start, count: count)))
    return 0
}
