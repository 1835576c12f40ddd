// Fuzzes what the transport reads from a server's head: response header lines (and, split into
// lines, a whole head kept as bytes, checked against fields made line by line, and logged and
// redacted as they would be; split at CRLF, with LFs inside lines, read as the kept bytes say), a
// redirect's
// Location, a resumed download's Content-Range, and a cookie jar line (which a cookie read back
// the same way). A redirect is followed only to http or https, never from https down to http, and
// credentials never travel to another origin. Split at its first NUL, the input is also a proxy
// setting and a libcurl message: the setting's password never shows in the message as shown,
// and classifying it never traps. The whole input is also a no_proxy list: reading it never
// traps, and an IPv4 entry (under 128 bytes, as libcurl reads them) exempts the address it names.
@testable import CurlewTransport
@testable import CurlewAgent
import CCurl
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
    checkReceivedHeaders(bytes)
    checkInnerLineFeeds(bytes)
    let location = String(decoding: bytes, as: UTF8.self)
    _ = DownloadWriter.contentRangeStart(location)
    if let cookie = Cookie(netscapeLine: location), !cookie.value.contains("\n"), !cookie.name.contains("\n"),
       Cookie(netscapeLine: cookie.netscapeLine) != cookie {
        fatalError("cookie line \(location.debugDescription) does not read back the same")
    }
    _ = URLPassword.masking(in: location)
    checkProxyMessage(bytes)
    checkNoProxy(location)
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

/// The head in `bytes`, split at each LF, kept as `ReceivedHeaders` must read the same as the
/// fields made line by line: folded lines joined, a status line starting over.
private func checkReceivedHeaders(_ bytes: UnsafeRawBufferPointer) {
    let (kept, expected) = keptHead(bytes, splitAtCRLF: false)
    guard kept.fields == expected, kept.isEmpty == expected.isEmpty else {
        fatalError("kept head reads \(kept.fields), fields made line by line are \(expected)")
    }
    for field in expected {
        let named = expected.filter { ASCII.equalsIgnoringCase($0.name, field.name) }
        let shouted = String(decoding: field.name.utf8.map { $0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0 }, as: UTF8.self)
        guard kept.first(field.name) == named.first?.value, kept.last(shouted) == named.last?.value else {
            fatalError("looking up \(field.name.debugDescription) disagrees with the fields \(expected)")
        }
        // As URL text (a redirect's Location), past its scheme and host a value holds only what a
        // URL holds as it is, so the URL parser has nothing to encode (again).
        if let url = kept.lastAsURLText(field.name) {
            let bytes = Array(url.utf8)
            let start = ReceivedHeaders.authorityEnd(in: bytes)
            let isHex = { (byte: UInt8) in (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte) }
            var hashes = 0
            for index in start..<bytes.count {
                let byte = bytes[index]
                if byte == 0x23 { hashes += 1 }
                guard byte > 0x20, byte < 0x7F, !#""<>[\]^`{|}"#.utf8.contains(byte), hashes <= 1,
                      byte != 0x25 || (index + 2 < bytes.count && isHex(bytes[index + 1]) && isHex(bytes[index + 2])) else {
                    fatalError("\(url.debugDescription) is not URL text past its host")
                }
            }
            let rest = String(decoding: bytes[start...], as: UTF8.self)
            let separator = rest.first.map { "/?#".contains($0) } ?? true ? "" : "/"
            guard URL(string: "http://example.test" + separator + rest, encodingInvalidCharacters: false) != nil else {
                fatalError("\(url.debugDescription) past its host is not a valid URL's path, query and fragment")
            }
        }
    }
    checkLoggedAsFields(kept)
}

/// A debug message holding the fields as received is logged and checked for secrets, from their
/// bytes, exactly as one holding the strings made of them.
private func checkLoggedAsFields(_ kept: ReceivedHeaders) {
    let body = BodySnapshot(data: Data(), contentType: nil, limit: 0)
    func message(_ response: ResponseSnapshot) -> DebugMessage {
        DebugMessage(requestID: 1, name: nil, state: .succeeded, startedAt: Date(timeIntervalSince1970: 0), original: nil, sent: nil,
                     response: response, error: nil, timings: nil, connection: nil, callbackQueue: "q")
    }
    let asReceived = message(ResponseSnapshot(statusCode: 200, statusLine: "HTTP/1.1 200 OK", httpVersion: "1.1", fields: HTTPHeaders(received: kept), body: body))
    let asFields = message(ResponseSnapshot(statusCode: 200, statusLine: "HTTP/1.1 200 OK", httpVersion: "1.1", headers: kept.fields, body: body))
    guard SessionRecordWriter.messageLine(asReceived, custom: nil) == SessionRecordWriter.messageLine(asFields, custom: nil) else {
        fatalError("fields kept as received are logged otherwise than their strings: \(kept.fields)")
    }
    let policy = RedactionPolicy()
    guard policy.redactedIfNeeded(asReceived) == policy.redactedIfNeeded(asFields) else {
        fatalError("fields kept as received are redacted otherwise than their strings: \(kept.fields)")
    }
}

/// The bytes before the first NUL as a proxy setting, those after it as libcurl's message about
/// it: wherever the message repeats the setting up to its password and then the password whole
/// with `@`, or cut short by the message's end, the password is hidden. (A match that runs into
/// the marker put in place of an earlier one would hold `[` or `]`; such settings are not checked.)
private func checkProxyMessage(_ bytes: UnsafeRawBufferPointer) {
    guard let split = bytes.firstIndex(of: 0) else { return }
    let setting = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[..<split]), as: UTF8.self)
    let message = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[(split + 1)...]), as: UTF8.self)
    let proxies = ProxyEnvironment(http: setting, https: setting, noProxy: "")
    let shown = proxies.hidingPasswords(in: message)
    // Classifying reads the setting but never writes it: the message it makes is built from `shown`.
    for code in [CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT, CURLE_PROXY,
                 CURLE_UNSUPPORTED_PROTOCOL, CURLE_OPERATION_TIMEDOUT] {
        let classified = TransferError.classify(code: code, message: shown, connected: false, responseLimitHit: false,
                                                connectTimeoutApplied: false, proxy: setting, target: "http://origin.test:8080/")
        if !shown.isEmpty, Array(classified.message.utf8).firstRange(of: Array(shown.utf8)) == nil { fatalError("classifying \(shown.debugDescription) lost it: \(classified.message.debugDescription)") }
    }
    // libcurl is given the setting with its user and password's delimiters encoded, and repeats that.
    let given = proxies.http
    guard ProxyUserInfo.encoded(given) == given else { fatalError("encoding \(setting.debugDescription) twice changed it again: \(given.debugDescription)") }
    guard let password = ProxyPassword(proxy: given) else { return }
    let written = password.lead + password.password
    guard !written.contains(UInt8(ascii: "[")), !written.contains(UInt8(ascii: "]")) else { return }
    let output = Array(shown.utf8)
    if output.firstRange(of: written + [UInt8(ascii: "@")]) != nil {
        fatalError("the password of \(given.debugDescription) shows in \(shown.debugDescription)")
    }
    for kept in 1...password.password.count where output.count >= password.lead.count + kept
        && output.suffix(password.lead.count + kept).elementsEqual(password.lead + password.password.prefix(kept)) {
        fatalError("the start of the password of \(given.debugDescription) shows at the end of \(shown.debugDescription)")
    }
}

/// `list` as `no_proxy`: read for a name, an IPv4 and an IPv6 host without trapping; each entry
/// that is an IPv4 address, with or without a prefix length from 1 to 32, and shorter than the
/// 128 bytes libcurl reads, exempts the address it names.
private func checkNoProxy(_ list: String) {
    let proxies = ProxyEnvironment(http: "http://proxy.test:1", https: "", noProxy: list)
    for url in ["http://name.test/", "http://10.1.2.3/", "http://[::1]/"] { _ = proxies.mayUseProxy(for: url) }
    for entry in list.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }) {
        var address = in_addr()
        let slash = entry.firstIndex(of: "/")
        guard entry.utf8.count < 128, inet_pton(AF_INET, String(entry[..<(slash ?? entry.endIndex)]), &address) == 1 else { continue }
        let host = UInt32(bigEndian: address.s_addr)
        if slash == nil || entry[entry.index(after: slash!)...].allSatisfy(\.isNumber) && (1...32).contains(Int(entry[entry.index(after: slash!)...]) ?? 0) {
            guard ProxyEnvironment.ipv4Entry(entry, holds: host) else { fatalError("\(entry.debugDescription) does not exempt its own address") }
        }
    }
}

/// The head in `bytes` split at each CRLF, so that a line may hold LFs: kept as `ReceivedHeaders`,
/// it must read as the lines with those LFs made spaces, each classified again.
private func checkInnerLineFeeds(_ bytes: UnsafeRawBufferPointer) {
    let (kept, expected) = keptHead(bytes, splitAtCRLF: true)
    guard kept.fields == expected else {
        fatalError("kept head with inner LFs reads \(kept.fields), its lines read again are \(expected)")
    }
}

/// `bytes` split into lines (at each LF, or at each CRLF so that a line may hold LFs) and kept as
/// the header callback keeps them, with the fields those lines make read one by one: an LF inside
/// a line read as a space (as it is kept), folded lines joined, a status line starting over.
private func keptHead(_ bytes: UnsafeRawBufferPointer, splitAtCRLF: Bool) -> (kept: ReceivedHeaders, expected: [HeaderField]) {
    var kept = ReceivedHeaders()
    var expected: [HeaderField] = []
    var start = 0
    while start < bytes.count {
        var end = start
        while end < bytes.count, bytes[end] != 0x0A || (splitAtCRLF && (end == start || bytes[end - 1] != 0x0D)) { end += 1 }
        end = min(end + 1, bytes.count)
        let line = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
        start = end
        let kind = ResponseHeaderLine(line)
        switch kind {
        case .statusLine:
            kept.removeAll()
            expected.removeAll()
            continue
        case .field, .continuation:
            kept.append(line, as: kind)
        case .other:
            continue
        }
        var spaced = Array(line)
        for index in spaced.indices.dropLast() where spaced[index] == 0x0A { spaced[index] = 0x20 }
        spaced.withUnsafeBytes { read in
            switch ResponseHeaderLine(read) {
            case .field(let name, let value):
                expected.append(HeaderField(name: ResponseHeaderLine.text(read, name), value: ResponseHeaderLine.text(read, value)))
            case .continuation(let more):
                if !expected.isEmpty { expected[expected.count - 1].value += " " + ResponseHeaderLine.text(read, more) }
            case .statusLine, .other:
                break
            }
        }
    }
    return (kept, expected)
}
