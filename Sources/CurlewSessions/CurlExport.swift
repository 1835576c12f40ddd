import CurlewAgent
import Foundation

/// A logged exchange as a curl command that sends the same request: the method, the URL, the
/// headers as they went on the wire (less the ones curl adds itself) and the body, each quoted for
/// a POSIX shell. Text in single quotes; bytes a single-quoted string cannot hold in `$'…'`.
public enum CurlExport {
    /// Headers curl writes on its own, left out so the command stays short and exact.
    static let curlOwnHeaders: Set<String> = ["host", "content-length", "accept-encoding", "connection", "expect"]

    /// The command for a logged exchange; nil for a message without a request.
    public static func command(_ message: DebugMessage) -> String? {
        guard let original = message.original else { return nil }
        let headers = message.sentHeaders
        var body = message.sent?.body ?? original.body
        // An empty body on a method that carries none is no body at all.
        if body?.size == 0, ["GET", "HEAD"].contains(original.method) { body = nil }
        return command(method: original.method, url: original.url, headers: headers, body: body?.data, bodyIsComplete: !(body?.isTruncated ?? false))
    }

    /// The command for a request given by parts. `bodyIsComplete: false` notes a body the log
    /// kept only the start of.
    public static func command(method: String, url: String, headers: [HeaderField], body: Data?, bodyIsComplete: Bool = true) -> String {
        var words = ["curl"]
        // An empty body is still a body (curl -d '' sends a POST with Content-Length: 0).
        let hasBody = body != nil
        // -I for HEAD: with -X HEAD curl would wait for a body that never comes.
        if method == "HEAD" && !hasBody {
            words.append("-I")
        } else if method != (hasBody ? "POST" : "GET") {
            words += ["-X", quote(method)]
        }
        words.append(quote(url))
        for header in headers where !curlOwnHeaders.contains(header.name.lowercased()) {
            if header.name.lowercased() == "user-agent", header.value.hasPrefix("curl/") { continue }
            words += ["-H", quote("\(header.name): \(header.value)")]
        }
        if let body {
            // --data-binary reads a file for a body starting with @; --data-raw never does.
            words += [body.first == UInt8(ascii: "@") ? "--data-raw" : "--data-binary", quote(body)]
            if !bodyIsComplete { words.append("# the log kept only the start of this body") }
        }
        return words.joined(separator: " ")
    }

    /// Single quotes for printable UTF-8 (a quote inside becomes `'\''`); `$'…'` with escapes otherwise.
    public static func quote(_ text: String) -> String {
        quote(Data(text.utf8))
    }

    /// Bytes as one shell word: bare when safe, single-quoted text, else `$'…'` with escapes.
    public static func quote(_ data: Data) -> String {
        if let text = String(data: data, encoding: .utf8), !text.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\n" && $0 != "\t" || $0.value == 0x7F }) {
            if !text.isEmpty, text.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) && $0.isASCII || "-_./:=@%+,".unicodeScalars.contains($0) }) {
                return text
            }
            // By scalar: a quote followed by a combining mark is one Character, which a
            // Character-based replacement would miss.
            var quoted = "'"
            for scalar in text.unicodeScalars {
                if scalar == "'" { quoted += "'\\''" } else { quoted.unicodeScalars.append(scalar) }
            }
            return quoted + "'"
        }
        var quoted = "$'"
        for byte in data {
            switch byte {
            case UInt8(ascii: "'"): quoted += "\\'"
            case UInt8(ascii: "\\"): quoted += "\\\\"
            case UInt8(ascii: "\n"): quoted += "\\n"
            case UInt8(ascii: "\t"): quoted += "\\t"
            case UInt8(ascii: "\r"): quoted += "\\r"
            case 0x20..<0x7F: quoted.append(Character(UnicodeScalar(byte)))
            default: quoted += String(format: "\\x%02X", byte)
            }
        }
        return quoted + "'"
    }
}
