import CurlewAgent
import Foundation

/// Logged exchanges as an `.http` file (JetBrains HTTP Client, VS Code REST Client): each request
/// after a `###` line with its name, the request line, the headers as sent and a text body.
public enum HTTPFileExport {
    /// The `.http` text of the messages that have a request.
    public static func text(_ messages: [DebugMessage]) -> String {
        messages.compactMap(request).joined(separator: "\n")
    }

    static func request(_ message: DebugMessage) -> String? {
        guard let original = message.original else { return nil }
        var lines = ["### \(message.name ?? "\(original.method) \(original.url)")".replacingOccurrences(of: "\n", with: " ")]
        if let name = message.name { lines.append("# @name \(name.replacingOccurrences(of: "\n", with: " "))") }
        lines.append("\(original.method) \(original.url)")
        lines += message.sentHeaders.filter { !["host", "content-length"].contains($0.name.lowercased()) }.map { "\($0.name): \($0.value)" }
        if let body = message.sent?.body ?? original.body, body.size > 0 {
            let multipart = message.sentHeaders.contains { $0.name.lowercased() == "content-type" && $0.value.lowercased().hasPrefix("multipart/") }
            if let text = writable(body.text, multipart: multipart) {
                lines += ["", text]
            } else {
                // Among the headers, where an import reads it as the comment it is, not as a body.
                lines.append("# " + Self.bodyLeftOut(size: body.size))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The comment an export writes among a request's headers for a body it leaves out.
    static func bodyLeftOut(size: Int64) -> String {
        "a body of \(size) bytes that an .http file cannot hold as sent is not written"
    }

    /// The size a comment's text (after its `#`) names when `bodyLeftOut` wrote it; nil for any
    /// other comment.
    static func sizeLeftOut(saidBy comment: String) -> Int64? {
        let (prefix, suffix) = ("a body of ", " bytes that an .http file cannot hold as sent is not written")
        guard comment.hasPrefix(prefix), comment.hasSuffix(suffix), comment.count > prefix.count + suffix.count else { return nil }
        return Int64(comment.dropFirst(prefix.count).dropLast(suffix.count))
    }

    /// A body as the file holds it, or nil for one it cannot hold so that an import sends the
    /// same bytes: binary, holding a `###` line, or multipart with line ends other than CRLF
    /// (an import ends every line of a multipart body with CRLF, as the .http clients send it,
    /// so one is written with the file's own line ends).
    private static func writable(_ text: String?, multipart: Bool) -> String? {
        guard let text, !text.contains("\n###"), !text.hasPrefix("###") else { return nil }
        guard multipart else { return text }
        // `\r\n` is one Character: a multipart body ends in one, and holds no bare `\r` or `\n`.
        guard text.hasSuffix("\r\n"), !text.contains(where: { $0 == "\n" || $0 == "\r" }) else { return nil }
        return String(text.dropLast()).replacingOccurrences(of: "\r\n", with: "\n")
    }
}
