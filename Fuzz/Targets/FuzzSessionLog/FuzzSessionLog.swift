// Fuzzes what reads session logs, the files users open: the full reader, and the index over a
// file (which reads the summary at the front of every line). Any bytes give entries and skipped
// lines, never a trap. That summaries agree with their records is the differential test's job.
import CurlewSessions
import Foundation
import FuzzSupport

private let path = NSTemporaryDirectory() + "curlew-fuzz-\(getpid()).jsonl"

@_cdecl("FuzzSessionLog_main")
public func fuzzSessionLogMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzSessionLog)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSessionLog(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let data = Data(bytes: start, count: count)
    _ = SessionLogReader.read(data: data)
    guard FileManager.default.createFile(atPath: path, contents: data) else { return 0 }
    if let index = try? SessionLogIndex(path: path) {
        index.waitUntilComplete()
        for position in 0..<min(8, index.entryCount) {
            _ = index.message(at: position)
            _ = index.summary(at: position)
        }
        if let filter = try? MessageFilter.parse("~c 2xx | ~e | ~b a") { _ = index.matching(filter) }
    }
    return 0
}
