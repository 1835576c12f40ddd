import CurlewAgent
import Foundation

/// The `Cookies` block `curlew send --cookie-jar` prints: one line per cookie with its domain,
/// path, expiry and flags; values hidden unless `--no-redact`.
enum CookieListing {
    static func text(_ cookies: [Cookie], revealsValues: Bool) -> String {
        var lines = ["", "Cookies (\(cookies.count) in the jar)"]
        let formatter = ISO8601DateFormatter()
        for cookie in cookies {
            var flags: [String] = []
            if cookie.includesSubdomains { flags.append("subdomains") }
            if cookie.secure { flags.append("secure") }
            if cookie.httpOnly { flags.append("httpOnly") }
            let expiry = cookie.expires.map { "expires \(formatter.string(from: $0))" } ?? "session"
            let value = revealsValues ? cookie.value : RedactionPolicy.marker
            lines.append("  \(cookie.name)=\(value)  \(cookie.domain)\(cookie.path)  \(expiry)\(flags.isEmpty ? "" : "  " + flags.joined(separator: " "))")
        }
        return lines.joined(separator: "\n")
    }
}
