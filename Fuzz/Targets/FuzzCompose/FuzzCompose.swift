// Fuzzes the request composer with what users type: a method, a URL and a header. Whatever it
// accepts is safe to put on the wire: the method is a token, the URL is http(s) without spaces or
// control characters and with a port from 1 to 65535 if any, and no header can inject a line.
@testable import CurlewAgent
import CurlewTransport
import Foundation
import FuzzSupport

@_cdecl("FuzzCompose_main")
public func fuzzComposeMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzCompose)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCompose(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
    let parts = text.split(separator: "\u{1F}", maxSplits: 4, omittingEmptySubsequences: false).map(String.init)
    let method = parts.count > 0 ? parts[0] : "GET"
    let url = parts.count > 1 ? parts[1] : text
    let headerName = parts.count > 2 ? parts[2] : "X"
    let headerValue = parts.count > 3 ? parts[3] : ""
    var request = Request.url(url, method: HTTPMethod(rawValue: method), headers: [headerName: headerValue])
    if parts.count > 4 { request.params = ["p": .string(parts[4])] }
    let composer = RequestComposer(config: NetworkConfig(baseURL: "http://base.test"))
    guard let (transfer, composed) = try? composer.compose(request) else { return 0 }
    guard ASCII.isToken(transfer.method) else { fatalError("composed a method that is not a token: \(transfer.method.debugDescription)") }
    let lowered = transfer.url.lowercased()
    guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else { fatalError("composed a non-HTTP URL \(transfer.url.debugDescription)") }
    guard !transfer.url.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else {
        fatalError("composed a URL with a space or control character: \(transfer.url.debugDescription)")
    }
    // The byte-by-byte check of plain URLs and the full check must agree on ports.
    if let port = RequestComposer.portText(of: transfer.url), !port.isEmpty, !RequestComposer.isPort(port) {
        fatalError("composed a URL with port \(port.debugDescription): \(transfer.url.debugDescription)")
    }
    for header in transfer.headers where header.value.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) || !ASCII.isToken(header.name) {
        fatalError("composed an injectable header \(header)")
    }
    _ = composed
    return 0
}
