// Fuzzes the event stream reader with what a server sends: whatever the bytes and wherever the
// transport cuts them, the events must be the same as when they arrive in one piece, and bounded.
import CurlewAgent
import Foundation
import FuzzSupport

@_cdecl("FuzzStream_main")
public func fuzzStreamMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzStream)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStream(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))
    let time = Date(timeIntervalSince1970: 0)
    var whole = ServerSentEventParser()
    let expected = whole.consume(bytes, at: time)
    // The first byte picks where the pieces are cut.
    let step = Int(bytes[0] % 7) + 1
    var pieces = ServerSentEventParser()
    var actual: [ServerSentEvent] = []
    var offset = 0
    while offset < bytes.count {
        actual += pieces.consume(bytes[offset..<min(bytes.count, offset + step)], at: time)
        offset += step
    }
    guard actual == expected, pieces.lastEventID == whole.lastEventID else {
        fatalError("cutting the stream every \(step) bytes changed its events")
    }
    // Invalid UTF-8 reads as U+FFFD (three bytes each), so data is at most three times the byte bound.
    for event in expected where event.data.utf8.count > 3 * ServerSentEventParser.maxDataBytes {
        fatalError("an event's data grew past its bound")
    }
    return 0
}
