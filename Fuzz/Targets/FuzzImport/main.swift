// Fuzzes the readers of other tools' files (.http, Postman, HAR) with any bytes: each ends in a
// collection or a typed failure, every exchange HAR import reads has its request's method and URL
// (unless it failed before it was sent), and what it reads exports to HAR that reads back to as
// many exchanges with the same methods and URLs.
import CurlewAgent
import CurlewSessions
import Foundation
import FuzzSupport

@_cdecl("FuzzImport_main")
public func fuzzImportMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzImport)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImport(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count > 1 else { return 0 }
    // The first byte picks the reader.
    let data = Data(UnsafeBufferPointer(start: start + 1, count: count - 1))
    switch start[0] % 3 {
    case 0:
        _ = try? HTTPFileImport.parse(String(decoding: data, as: UTF8.self))
    case 1:
        _ = try? PostmanImport.parse(data)
    default:
        guard let messages = try? HARImport.messages(data) else { return 0 }
        guard messages.allSatisfy({ message in
            guard let original = message.original else { return false }
            return message.error != nil || (!original.method.isEmpty && !original.url.isEmpty)
        }) else {
            fatalError("HAR read an entry without its request's method or URL that did not fail before it was sent")
        }
        _ = try? HARImport.collection(data)
        guard let again = try? HARImport.messages(HARExport.data(messages)),
              again.map(\.original?.method) == messages.map(\.original?.method),
              again.map(\.original?.url) == messages.map(\.original?.url) else {
            fatalError("HAR read, written and read again lost or changed an exchange")
        }
    }
    return 0
}
