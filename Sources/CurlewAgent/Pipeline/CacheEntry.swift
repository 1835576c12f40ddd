import Foundation

/// A stored response and the metadata record beside it.
struct CacheEntry: Sendable, Equatable {
    /// What the disk store writes next to the body, as JSON.
    struct Metadata: Sendable, Equatable, Codable {
        var format: Int
        /// The full key text, compared on every read.
        var key: String
        var version: String
        var storedAt: Date
        var expiresAt: Date
        var statusCode: Int
        var statusLine: String
        var httpVersion: String
        var headers: [HeaderField]
        var url: String
        var bodySize: Int
        var bodyDigest: String

        /// What any entry this agent wrote satisfies: a 2xx, headers that could be sent, a sane
        /// size. An entry edited into something else is treated as corrupt.
        var isPlausible: Bool {
            (200..<300).contains(statusCode) && bodySize >= 0 && (try? HTTPHeaders(headers).validateSyntax()) != nil
                && !statusLine.contains(where: { $0.isNewline })
        }

        var etag: String? { header("ETag") }
        var lastModified: String? { header("Last-Modified") }

        func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

    /// The record's format: 2 since keys and bodies are named by SHA-256 (1 used FNV-1a; its
    /// entries are dropped when read).
    static let format = 2

    var metadata: Metadata
    var body: Data

    func isFresh(at date: Date, version: String) -> Bool {
        metadata.version == version && date < metadata.expiresAt
    }

    /// The response this entry answers with.
    func response(requestID: UInt64) -> Response {
        Response(requestID: requestID, statusCode: metadata.statusCode, statusLine: metadata.statusLine, httpVersion: metadata.httpVersion,
                 headers: HTTPHeaders(metadata.headers), body: body, value: .data(body), url: metadata.url, source: .cache)
    }
}
