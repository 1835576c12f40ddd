/// MIME types guessed from a file's extension, for form parts and uploads that do not name one,
/// and what a content type says a body is.
public enum MIMEType {
    /// Whether a content type names JSON: `application/json` or a `+json` type
    /// (`application/vnd.api+json`, RFC 6839), its parameters aside, ignoring case.
    public static func isJSON(_ contentType: String) -> Bool {
        let media = (contentType.split(separator: ";", omittingEmptySubsequences: false).first ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        return media == "application/json" || (media.hasSuffix("+json") && media.contains("/"))
    }

    /// Whether a body's templates are filled in as JSON: by the body's own type, or by the
    /// `Content-Type` that goes on the wire in its place (`header`, see
    /// `Request.contentTypeOverridingRawBody`).
    public static func isJSON(body bodyType: String, header: String?) -> Bool {
        isJSON(bodyType) || header.map(isJSON) == true
    }

    /// A multipart type's `boundary` parameter (`multipart/form-data; boundary=XX`, quoted or
    /// not); nil when it has none.
    static func boundary(_ contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == "boundary", !pair[1].isEmpty else { continue }
            let value = pair[1].count >= 2 && pair[1].hasPrefix("\"") && pair[1].hasSuffix("\"") ? String(pair[1].dropFirst().dropLast()) : pair[1]
            return value.isEmpty ? nil : value
        }
        return nil
    }

    static func guess(forPath path: String) -> String {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return fallback }
        return byExtension[path[path.index(after: dot)...].lowercased()] ?? fallback
    }

    static let fallback = "application/octet-stream"

    private static let byExtension: [String: String] = [
        "txt": "text/plain", "text": "text/plain", "log": "text/plain", "md": "text/markdown", "csv": "text/csv",
        "html": "text/html", "htm": "text/html", "css": "text/css", "xml": "application/xml",
        "js": "text/javascript", "mjs": "text/javascript", "json": "application/json", "ndjson": "application/x-ndjson",
        "yaml": "application/yaml", "yml": "application/yaml", "toml": "application/toml",
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp",
        "svg": "image/svg+xml", "ico": "image/vnd.microsoft.icon", "heic": "image/heic", "avif": "image/avif",
        "mp3": "audio/mpeg", "wav": "audio/wav", "ogg": "audio/ogg", "mp4": "video/mp4", "mov": "video/quicktime", "webm": "video/webm",
        "pdf": "application/pdf", "zip": "application/zip", "gz": "application/gzip", "tgz": "application/gzip",
        "tar": "application/x-tar", "bz2": "application/x-bzip2", "xz": "application/x-xz", "7z": "application/x-7z-compressed",
        "wasm": "application/wasm", "bin": "application/octet-stream", "har": "application/json",
        "proto": "text/plain", "pb": "application/x-protobuf",
    ]
}
