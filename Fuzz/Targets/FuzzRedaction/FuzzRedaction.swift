// Fuzzes redaction on bodies and URLs from the network, whole or cut at the debug body limit: any
// bytes are redacted without trapping, and neither a declared secret value nor a URL password
// survives.
@testable import CurlewAgent
import Foundation
import FuzzSupport

private let policy = RedactionPolicy(secretValues: ["s3cr3t-value"])

@_cdecl("FuzzRedaction_main")
public func fuzzRedactionMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzRedaction)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRedaction(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let data = Data(bytes: start, count: count)
    let text = String(decoding: data, as: UTF8.self)
    for contentType in ["application/json", "application/x-www-form-urlencoded", "text/plain"] {
        for limit in [count, max(1, count / 2)] {
            let body = BodySnapshot(data: data, contentType: contentType, limit: limit)
            let message = DebugMessage(
                requestID: 1, name: nil, state: .succeeded, startedAt: Date(timeIntervalSince1970: 0),
                original: ComposedRequest(method: "POST", url: "http://u:pw@h.test/?" + text, headers: [], params: .object([]),
                                          body: body, timeoutMilliseconds: 1),
                sent: WireRequest(head: "POST /?\(text) HTTP/1.1\r\nAuthorization: x\r\n\r\n", body: body),
                response: ResponseSnapshot(statusCode: 200, statusLine: "HTTP/1.1 200 OK", httpVersion: "1.1", headers: [], body: body),
                error: nil, timings: nil, connection: nil, callbackQueue: "q"
            )
            let redacted = policy.redact(message)
            if let kept = redacted.response?.body.text, kept.contains("s3cr3t-value") {
                fatalError("a declared secret value survived redaction")
            }
            if redacted.original?.url.hasPrefix("http://u:pw@") == true { fatalError("a URL password survived redaction") }
        }
    }
    return 0
}
