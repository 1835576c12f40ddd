// Fuzzes redaction on bodies and URLs from the network, whole or cut at the debug body limit: any
// bytes are redacted without trapping, and neither a declared secret value nor a URL password
// survives. With the default policy (no declared values, so the quick checks decide whether
// anything is hidden), a secret JSON member beside any string, a credential header after any
// header line, and a secret parameter (after HTML's escaped `&`, or percent-encoded in another
// parameter's value) after any text, form or JSON string are hidden too; and a long Basic
// password, however escaped, in a row's URL before its record exists. A member secret only by its
// path (`{"api": {"key": …}}`) is hidden after any objects too.
@testable import CurlewAgent
import Foundation
import FuzzSupport

private let policy = RedactionPolicy(secretValues: ["s3cr3t-value", "s3cr3t value"])
private let defaults = RedactionPolicy()

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
            for hidden in [redacted.original?.body, redacted.sent?.body, redacted.response?.body] {
                guard let hidden, hidden.size == body.size, hidden.isTruncated == body.isTruncated else {
                    fatalError("redaction changed a body's size on the wire or whether it was kept whole")
                }
            }
        }
    }
    checkQuickChecks(text)
    checkEscapedSecret(Array(data), text)
    checkCutURLs(text)
    checkTrailingPairs(text)
    checkChecksAgainstRewrites(data, text)
    checkQueryPairs(text)
    return 0
}

/// `QueryPairs`, which an import and the cache key read pairs with, never traps, writes back
/// what it replaced nothing in byte for byte, and leaves no secret parameter's value where it
/// replaces each.
private func checkQueryPairs(_ text: String) {
    for place in [QueryPairs.Place.url, .form] {
        let same = QueryPairs.mapping(Substring(text), in: place, isSecret: { defaults.isSecretName(String($0)) }) { _, _, _ in nil }
        if same != text { fatalError("QueryPairs changed text it replaced nothing in") }
        var values: [Substring] = []
        let hidden = QueryPairs.mapping(Substring(text), in: place, isSecret: { defaults.isSecretName(String($0)) }) { _, value, secret in
            guard secret else { return nil }
            values.append(value)
            return "\u{1}"
        }
        // Each replacement stands where its value stood: the marks count as the text's, less
        // those the replaced values held, plus one a value.
        let marks = { (text: Substring) in text.unicodeScalars.filter { $0 == "\u{1}" }.count }
        let replaced = values.reduce(0) { $0 + marks($1) }
        if marks(Substring(hidden)) != marks(Substring(text)) - replaced + values.count {
            fatalError("QueryPairs lost a replacement, or wrote one where no value stood")
        }
    }
}

/// The quick checks and the rewrites must read a message alike: one the checks leave as it is
/// comes out of every rewrite, run regardless, as it went in. A difference is something a
/// rewrite would hide and a check waved through: a leak.
private func checkChecksAgainstRewrites(_ data: Data, _ text: String) {
    let line = text.filter { $0 != "\r" && $0 != "\n" }
    for contentType in ["application/json", "application/x-www-form-urlencoded", "text/html"] {
        for limit in [data.count, max(1, data.count / 2)] {
            let body = BodySnapshot(data: data, contentType: contentType, limit: limit)
            let message = DebugMessage(
                requestID: 1, name: nil, state: .succeeded, startedAt: Date(timeIntervalSince1970: 0),
                original: ComposedRequest(method: "GET", url: "http://h.test/x?" + line, headers: [HeaderField(name: "Referer", value: line)],
                                          params: .object([]), body: nil, timeoutMilliseconds: 1),
                sent: WireRequest(head: "GET /x?\(line) HTTP/1.1\r\nReferer: \(line)\r\n\r\n", body: nil),
                response: ResponseSnapshot(statusCode: 200, statusLine: "HTTP/1.1 200 OK", httpVersion: "1.1", headers: [], body: body),
                error: nil, timings: nil, connection: nil, callbackQueue: "q"
            )
            guard defaults.redact(message) == message else { continue }
            let forced = defaults.redactingEverything(message)
            if forced != message {
                fatalError("a rewrite hides what the checks waved through: \(String(reflecting: forced.response?.body.text)) \(String(reflecting: forced.original?.url))")
            }
        }
    }
}

/// A secret parameter after anything must be hidden: the quick check and the rewrite have to
/// read the text the same way, or the check waves through what the rewrite would have hidden.
private func checkTrailingPairs(_ text: String) {
    guard !text.contains("Zq8") else { return }
    let encoded = "next=https%3A%2F%2Fh%2Fcb%3Fa%3D1%26token%3DZq8-enc"
    let bodies: [(String, String)] = [
        (text + " <a href=\"/cb?a=1&amp;token=Zq8-html\"> " + encoded, "text/html"),
        (text + "&token=Zq8-form&" + encoded, "application/x-www-form-urlencoded"),
        (#"{"x":"# + JSONValue.string(text).serialized() + #","u":"/cb?a=1&access_token=Zq8-json","v":""# + encoded + #""}"#, "application/json"),
    ]
    for (content, type) in bodies {
        let body = BodySnapshot(data: Data(content.utf8), contentType: type, limit: 1 << 20)
        let message = DebugMessage(
            requestID: 1, name: nil, state: .succeeded, startedAt: Date(timeIntervalSince1970: 0), original: nil, sent: nil,
            response: ResponseSnapshot(statusCode: 200, statusLine: "HTTP/1.1 200 OK", httpVersion: "1.1", headers: [], body: body),
            error: nil, timings: nil, connection: nil, callbackQueue: "q"
        )
        // A body that is not text (control bytes) keeps its bytes; only text is judged here.
        guard let shown = defaults.redact(message).response?.body.text, body.text != nil else { continue }
        if shown.contains("Zq8") { fatalError("a secret parameter after \(type) text survived redaction: \(shown)") }
    }
}

/// A body cut anywhere inside a URL's user info, after any string, plain or quoted inside a
/// string (an echo server's copy), never shows the password or a part of it, whatever its
/// characters (written with escapes, as Python's and Go's encoders write them, or with a space).
private func checkCutURLs(_ text: String) {
    guard !text.contains("Zq"), !text.contains("ada:") else { return }
    for password in ["Zq9pw7", #"Zq9p\u00e4w7"#, "Zq9p w7", #"Zq9p\u0026w7"#] {
        let member = #"{"x":"# + JSONValue.string(text).serialized() + #","u":"https://ada:"# + password + #"@h/"}"#
        // Quoted inside a string, the password's own escapes are escaped again.
        let quoted = #"{"data":"# + JSONValue.string(member).serialized() + "}"
        for json in [member, quoted] {
            let bytes = Array(json.utf8)
            guard let at = bytes.lastIndex(of: UInt8(ascii: "@")) else { continue }
            for cut in max(0, at - 20)...min(bytes.count - 1, at + 2) {
                let body = BodySnapshot(kept: Data(bytes[..<cut]), size: Int64(bytes.count), contentType: "application/json")
                let message = DebugMessage(
                    requestID: 1, name: nil, state: .succeeded, startedAt: Date(timeIntervalSince1970: 0), original: nil, sent: nil,
                    response: ResponseSnapshot(statusCode: 200, statusLine: "HTTP/1.1 200 OK", httpVersion: "1.1", headers: [], body: body),
                    error: nil, timings: nil, connection: nil, callbackQueue: "q"
                )
                let shown = defaults.redact(message).response?.body.text ?? ""
                if shown.contains("ada:Z") { fatalError("a URL password cut by the body limit survived: \(shown)") }
            }
        }
    }
}

/// The default policy's quick checks must never wave through a message that holds a secret.
private func checkQuickChecks(_ text: String) {
    guard !text.contains("Zq9-hidden") else { return }
    let json = #"{"x":"# + JSONValue.string(text).serialized() + #","password":"Zq9-hidden"}"#
    let body = BodySnapshot(data: Data(json.utf8), contentType: "application/json", limit: 1 << 20)
    let line = text.filter { $0 != "\r" && $0 != "\n" }
    let message = DebugMessage(
        requestID: 1, name: nil, state: .succeeded, startedAt: Date(timeIntervalSince1970: 0),
        original: nil,
        sent: WireRequest(head: "GET / HTTP/1.1\r\nX-Any: \(line)\r\nAuthorization: Zq9-hidden\r\n\r\n", body: nil),
        response: ResponseSnapshot(statusCode: 200, statusLine: "HTTP/1.1 200 OK", httpVersion: "1.1", headers: [], body: body),
        error: nil, timings: nil, connection: nil, callbackQueue: "q"
    )
    let redacted = defaults.redact(message)
    if redacted.sent?.head.contains("Zq9-hidden") == true { fatalError("a credential header survived redaction") }
    if redacted.response?.body.text?.contains("Zq9-hidden") != false { fatalError("a secret JSON member survived redaction") }
    // A member secret only by its path (`api[key]`), after objects and arrays of any string,
    // itself as a parent name, closed before it.
    let quoted = JSONValue.string(text).serialized()
    let nested = #"{"# + quoted + #":{"a":["# + quoted + #"]},"api":{"# + quoted + #":{},"key":"Zq9-hidden"}}"#
    let nestedBody = BodySnapshot(data: Data(nested.utf8), contentType: "application/json", limit: 1 << 20)
    var nestedMessage = message
    nestedMessage.response = ResponseSnapshot(statusCode: 200, statusLine: "HTTP/1.1 200 OK", httpVersion: "1.1", headers: [], body: nestedBody)
    if defaults.redact(nestedMessage).response?.body.text?.contains("Zq9-hidden") != false { fatalError("a member secret by its path survived redaction") }
}

/// A declared value written with any of its bytes percent-encoded (the input's bits choose which,
/// and the escapes' case) and its space as `+` or not, after any text, in a URL's path and a text
/// body, never survives; and every range the decoded view reports reads back as the value it was
/// asked for. The text before it has no `%`: a `%` and two hex digits read as an escape, as a URL
/// reads them, so `100%ab%63…` does not hold the value `abc…`.
private func checkEscapedSecret(_ bytes: [UInt8], _ text: String) {
    let secret = Array("s3cr3t value".utf8)
    var written = ""
    for (index, byte) in secret.enumerated() {
        let bits = bytes.isEmpty ? 0 : bytes[index % bytes.count]
        if byte == 0x20, bits & 4 != 0 {
            written += "+"
        } else if bits & 1 == 0 {
            written.append(Character(Unicode.Scalar(byte)))
        } else {
            let hex = String(byte, radix: 16, uppercase: bits & 2 == 0)
            written += "%" + (hex.count == 1 ? "0" + hex : hex)
        }
    }
    let line = text.filter { $0 != "\r" && $0 != "\n" && $0 != "%" }
    let body = BodySnapshot(data: Data((line + " " + written).utf8), contentType: "text/plain", limit: 1 << 20)
    let message = DebugMessage(
        requestID: 1, name: nil, state: .succeeded, startedAt: Date(timeIntervalSince1970: 0),
        original: ComposedRequest(method: "GET", url: "http://h.test/" + written + "/x", headers: [], params: .object([]),
                                  body: nil, timeoutMilliseconds: 1),
        sent: nil,
        response: ResponseSnapshot(statusCode: 200, statusLine: "HTTP/1.1 200 OK", httpVersion: "1.1", headers: [], body: body),
        error: nil, timings: nil, connection: nil, callbackQueue: "q"
    )
    let redacted = policy.redact(message)
    if redacted.original?.url.contains(written) == true { fatalError("an escaped secret survived in a URL: \(written)") }
    if let shown = redacted.response?.body.text, shown.contains(written) { fatalError("an escaped secret survived in a body: \(written)") }
    // A row in flight hides a long Basic password in its URL wherever it is, as the record does.
    let basic = HeaderField(name: "Authorization", value: "Basic " + Data("u:s3cr3t value".utf8).base64EncodedString())
    let row = RedactionPolicy.hidingPasswords(in: "http://h.test/?q=" + line + written, sentWith: [basic])
    if row.contains(written) { fatalError("an escaped Basic password survived in a row's URL: \(written)") }
    for value in [secret, Array(" ".utf8), bytes.prefix(3).map { $0 }] {
        for range in PercentDecodedView.occurrences(of: value, in: bytes) {
            let found = Array(bytes[range])
            let decoded = PercentDecodedView(found)?.bytes ?? found
            let spaced = PercentDecodedView(found, plusAsSpace: true)?.bytes ?? found
            guard decoded == value || spaced == value else { fatalError("a decoded range does not read as its value") }
        }
    }
}
