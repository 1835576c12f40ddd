import Crypto
import Foundation

/// The parts of a `multipart/form-data` body, as the echo endpoints report them: text fields by
/// name, and file parts (those with a `filename`) by name with their file name, type, size and
/// SHA-256, so a test can check a file arrived byte for byte without echoing it.
struct MultipartFormParser {
    struct FilePart: Equatable {
        var filename: String
        var contentType: String?
        var size: Int
        var sha256: String
        var headers: [String: String]
    }

    var fields: [String: String] = [:]
    var files: [String: FilePart] = [:]

    /// Parses `body` split by the `boundary` of `contentType`; nil when it is not well formed.
    init?(body: [UInt8], contentType: String) {
        guard let boundary = Self.boundary(in: contentType), !boundary.isEmpty, boundary.utf8.count <= 200 else { return nil }
        let delimiter = Array("--\(boundary)".utf8)
        guard var position = Self.find(delimiter, in: body, from: 0) else { return nil }
        while true {
            position += delimiter.count
            if body.count >= position + 2, body[position] == UInt8(ascii: "-"), body[position + 1] == UInt8(ascii: "-") { return }
            guard body.count >= position + 2, body[position] == 13, body[position + 1] == 10 else { return nil }
            position += 2
            guard let headEnd = Self.find([13, 10, 13, 10], in: body, from: position),
                  let next = Self.find([13, 10] + delimiter, in: body, from: headEnd + 4) else { return nil }
            let head = String(decoding: body[position..<headEnd], as: UTF8.self)
            let content = body[(headEnd + 4)..<next]
            guard add(head: head, content: content) else { return nil }
            position = next + 2
        }
    }

    private mutating func add(head: String, content: ArraySlice<UInt8>) -> Bool {
        var headers: [String: String] = [:]
        for line in head.components(separatedBy: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { return false }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        guard let disposition = headers["content-disposition"], let name = Self.parameter("name", in: disposition) else { return false }
        if let filename = Self.parameter("filename", in: disposition) {
            let digest = SHA256.hash(data: Data(content)).map { String(format: "%02x", $0) }.joined()
            files[name] = FilePart(filename: filename, contentType: headers["content-type"], size: content.count, sha256: digest,
                                   headers: headers.filter { $0.key != "content-disposition" && $0.key != "content-type" })
        } else {
            fields[name] = String(validating: content, as: UTF8.self) ?? "(\(content.count) bytes that are not UTF-8)"
        }
        return true
    }

    static func boundary(in contentType: String) -> String? {
        parameter("boundary", in: contentType)
    }

    /// A `key=value` or `key="value"` parameter of a header value.
    static func parameter(_ key: String, in value: String) -> String? {
        for piece in value.split(separator: ";").dropFirst() {
            let pair = piece.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == key else { continue }
            var text = pair[1]
            if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") { text = String(text.dropFirst().dropLast()) }
            return text
        }
        return nil
    }

    /// The first position of `needle` in `haystack` at or after `start`.
    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        var index = start
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == needle[0], haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
