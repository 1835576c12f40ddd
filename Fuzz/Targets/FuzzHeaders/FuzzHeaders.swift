// Fuzzes what the transport reads from a server's head: response header lines, a redirect's
// Location, a resumed download's Content-Range, and a cookie jar line (which a cookie read back
// the same way). A redirect is followed only to http or https, never from https down to http, and
// credentials never travel to another origin.
@testable import CurlewTransport
@testable import CurlewAgent
import Foundation
import FuzzSupport

@_cdecl("FuzzHeaders_main")
public func fuzzHeadersMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzHeaders)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHeaders(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    _ = ResponseHeaderLine(bytes)
    let location = String(decoding: bytes, as: UTF8.self)
    _ = DownloadWriter.contentRangeStart(location)
    if let cookie = Cookie(netscapeLine: location), !cookie.value.contains("\n"), !cookie.name.contains("\n"),
       Cookie(netscapeLine: cookie.netscapeLine) != cookie {
        fatalError("cookie line \(location.debugDescription) does not read back the same")
    }
    _ = URLPassword.masking(in: location)
    let request = TransferRequest(url: "https://origin.test/start", method: "POST",
                                  headers: [("Authorization", "Bearer secret"), ("X-Api-Key", "k"), ("Accept", "*/*")],
                                  body: Data("b".utf8), originBoundHeaderNames: TransferRequest.credentialHeaderNames + ["X-Api-Key"])
    for status in [301, 302, 303, 307, 308] {
        guard case .follow(let next) = RedirectHop.decide(after: request, status: status, location: location, hopsSoFar: 0) else { continue }
        guard let url = URL(string: next.url), let scheme = url.scheme?.lowercased() else { fatalError("followed to an unparsable URL \(next.url)") }
        guard scheme == "https" else { fatalError("followed \(location.debugDescription) to \(scheme)") }
        let sameOrigin = url.host?.lowercased() == "origin.test" && (url.port ?? 443) == 443
        if !sameOrigin, next.headers.contains(where: { $0.name == "Authorization" || $0.name == "X-Api-Key" }) {
            fatalError("credentials followed \(location.debugDescription) to \(next.url)")
        }
    }
    return 0
}
