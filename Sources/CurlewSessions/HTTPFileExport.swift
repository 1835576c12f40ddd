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
            lines.append("")
            if let text = body.text, !text.contains("\n###"), !text.hasPrefix("###") {
                // A multipart body's CRLFs as the file's own line ends (its last, one Character, dropped): an import sends them again.
                let multipart = message.sentHeaders.contains { $0.name.lowercased() == "content-type" && $0.value.lowercased().hasPrefix("multipart/") }
                lines.append(multipart && text.hasSuffix("\r\n") ? String(text.dropLast()).replacingOccurrences(of: "\r\n", with: "\n") : text)
            } else {
                lines.append("# a binary body of \(body.size) bytes is not written")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
