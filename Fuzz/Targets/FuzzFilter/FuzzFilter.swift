// Fuzzes the filter language: any text parses or gives a syntax error with a position inside the
// text, and a parsed filter decides any message without trapping.
@testable import CurlewSessions
import CurlewAgent
import Foundation
import FuzzSupport

private let message = DebugMessage(
    requestID: 1, name: "n", state: .succeeded, startedAt: Date(timeIntervalSince1970: 0),
    original: ComposedRequest(method: "GET", url: "http://h.test/a?b=c", headers: [HeaderField(name: "A", value: "b")],
                              params: .object([]), body: nil, timeoutMilliseconds: 1),
    sent: nil,
    response: ResponseSnapshot(statusCode: 200, statusLine: "HTTP/1.1 200 OK", httpVersion: "1.1", headers: [HeaderField(name: "Server", value: "x")],
                               body: BodySnapshot(data: Data("{\"a\":1}".utf8), contentType: "application/json", limit: 100)),
    error: nil,
    timings: TimingBreakdown(queued: 1, dns: 1, connect: 1, tls: nil, send: 1, wait: 1, receive: 1, redirect: nil, total: 10),
    connection: nil, callbackQueue: "q"
)

@_cdecl("FuzzFilter_main")
public func fuzzFilterMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzFilter)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFilter(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
    do {
        let filter = try MessageFilter.parse(text)
        _ = filter.matches(message)
        _ = filter.matches(SessionRecordSummary(message))
    } catch let error as FilterSyntaxError {
        guard error.position >= 0, error.position <= text.count else { fatalError("error position \(error.position) outside \(text.count) characters") }
        _ = error.pointer(in: text)
    } catch {
        fatalError("untyped error \(error)")
    }
    return 0
}
