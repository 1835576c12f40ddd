import Foundation
import CurlewTransport

/// A body as recorded in a debug message: whole up to a limit, else a preview plus the full size.
///
/// Encoded as UTF-8 text when the kept bytes are valid UTF-8 and as base64 otherwise.
public struct BodySnapshot: Sendable, Equatable, Codable {
    /// Size of the body in bytes as it was sent or received. Redaction, which may make the kept
    /// bytes longer or shorter, leaves it as it is: a log shows the size the live view shows.
    public var size: Int64
    public var contentType: String?
    /// The kept bytes: all of them, or the first `limit` when the body was larger.
    public var data: Data
    /// The kept bytes are the first part of a longer body (a preview), not all of it. Decided
    /// when the snapshot is made and kept through redaction.
    public private(set) var isTruncated: Bool

    public init(data: Data, contentType: String?, limit: Int) {
        self.init(kept: data.count > limit ? Data(data.prefix(limit)) : data, size: Int64(data.count), contentType: contentType)
    }

    /// The part of `data` its readers read (a debug message's body).
    init(data: Data, contentType: String?, readers: BodyReaders) {
        self.init(prefix: data, size: Int64(data.count), contentType: contentType, readers: readers)
    }

    /// The part of `prefix`, the first bytes of a body of `size` bytes, that its readers read.
    init(prefix: Data, size: Int64, contentType: String?, readers: BodyReaders) {
        let kept = prefix.withUnsafeBytes { readers.bytesKept(of: $0, size: size) }
        self.init(kept: kept < prefix.count ? Data(prefix.prefix(kept)) : prefix, size: size, contentType: contentType)
    }

    public init(kept: Data, size: Int64, contentType: String?) {
        self.init(kept: kept, size: size, truncated: Int64(kept.count) < size, contentType: contentType)
    }

    /// A snapshot whose kept bytes need not be as long as the body's first `size` bytes: a
    /// redacted one, whose kept bytes are the original's with its secrets hidden.
    public init(kept: Data, size: Int64, truncated: Bool, contentType: String?) {
        self.data = kept
        self.size = size
        self.isTruncated = truncated
        self.contentType = contentType
    }

    /// The kept bytes as text, when they are UTF-8 (a preview cut inside a character still reads).
    public var text: String? {
        data.withUnsafeBytes { kept in
            Self.textLength(of: kept, truncated: isTruncated).map { String(decoding: kept[0..<$0], as: UTF8.self) }
        }
    }

    /// How many of the kept bytes read as UTF-8 text: all of them, or for a preview cut inside a
    /// character, all but the cut character's first bytes; nil when they are not text. ASCII,
    /// nearly every body, is recognised eight bytes at a time without building a string.
    static func textLength(of kept: UnsafeRawBufferPointer, truncated: Bool) -> Int? {
        if ASCII.isASCII(kept) || isUTF8(kept[...]) { return kept.count }
        guard truncated else { return nil }
        for cut in 1...3 where kept.count >= cut {
            if isUTF8(kept.dropLast(cut)) { return kept.count - cut }
        }
        return nil
    }

    /// What a log keeps of a body's bytes: at most `textLimit` of them when those read as text,
    /// else at most `binaryLimit` (written as base64). Decided on the bytes in place, without a
    /// copy of the kept part or a string of it.
    struct KeptPart: Equatable {
        /// Bytes kept, from the start.
        var count: Int
        /// Bytes written as text (all kept bytes, or fewer when the cut falls inside a
        /// character); nil when the kept bytes are not text and are written as base64.
        var textLength: Int?
        /// Fewer bytes kept than the body has.
        var truncated: Bool
    }

    /// The part of `bytes`, a body's kept bytes (`truncated` when they are the first of a longer
    /// body), that a log writes.
    static func keptPart(of bytes: UnsafeRawBufferPointer, truncated keptInPart: Bool, textLimit: Int, binaryLimit: Int) -> KeptPart {
        let cut = cut(of: bytes, truncated: keptInPart, textLimit: textLimit, binaryLimit: binaryLimit)
        let truncated = keptInPart || cut.count < bytes.count
        let length = cut.tested > 0 && cut.tested == cut.count ? cut.testedTextLength
            : textLength(of: UnsafeRawBufferPointer(rebasing: bytes[0..<cut.count]), truncated: truncated)
        return KeptPart(count: cut.count, textLength: length, truncated: truncated)
    }

    /// Where a reader of `textLimit` bytes of text and `binaryLimit` bytes of anything else cuts
    /// a body: the one rule the log's writer and a debug message's cut (`BodyReadLimit`) share.
    struct Cut: Equatable {
        /// Bytes read, from the start: the first `textLimit` when they read as text, else the
        /// first `binaryLimit` (never more than `textLimit`).
        var count: Int
        /// Bytes the text test read; 0 when the bytes fit `binaryLimit` and no test was needed.
        var tested: Int
        /// The test's answer (`textLength` of the tested bytes).
        var testedTextLength: Int?
    }

    /// The cut of `bytes`, a body's first bytes (`truncated` when the body is longer).
    static func cut(of bytes: UnsafeRawBufferPointer, truncated: Bool, textLimit: Int, binaryLimit: Int) -> Cut {
        let first = min(bytes.count, textLimit)
        guard first > binaryLimit else { return Cut(count: first, tested: 0, testedTextLength: nil) }
        let length = textLength(of: UnsafeRawBufferPointer(rebasing: bytes[0..<first]), truncated: truncated || first < bytes.count)
        return Cut(count: length == nil ? binaryLimit : first, tested: first, testedTextLength: length)
    }

    /// Validated in place, without building a string of the bytes (where the standard library
    /// has `UTF8Span`; elsewhere through a string).
    private static func isUTF8(_ bytes: UnsafeRawBufferPointer.SubSequence) -> Bool {
        guard #available(macOS 26.0, *) else { return String(validating: bytes, as: UTF8.self) != nil }
        let typed = UnsafeRawBufferPointer(rebasing: bytes).assumingMemoryBound(to: UInt8.self)
        return (try? UTF8Span(validating: typed.span)) != nil
    }

    private enum CodingKeys: String, CodingKey {
        case size, contentType, encoding, content, truncated
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(size, forKey: .size)
        try container.encodeIfPresent(contentType, forKey: .contentType)
        if let text {
            try container.encode("utf8", forKey: .encoding)
            try container.encode(text, forKey: .content)
        } else {
            try container.encode("base64", forKey: .encoding)
            try container.encode(data.base64EncodedString(), forKey: .content)
        }
        try container.encode(isTruncated, forKey: .truncated)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        size = try container.decode(Int64.self, forKey: .size)
        guard size >= 0 else {
            throw DecodingError.dataCorruptedError(forKey: .size, in: container, debugDescription: "a body's size is negative")
        }
        contentType = try container.decodeIfPresent(String.self, forKey: .contentType)
        let content = try container.decode(String.self, forKey: .content)
        switch try container.decode(String.self, forKey: .encoding) {
        case "utf8":
            data = Data(content.utf8)
        case "base64":
            guard let decoded = Data(base64Encoded: content) else {
                throw DecodingError.dataCorruptedError(forKey: .content, in: container, debugDescription: "content is not base64")
            }
            data = decoded
        case let other:
            throw DecodingError.dataCorruptedError(forKey: .encoding, in: container, debugDescription: "unknown body encoding \(other)")
        }
        // What the writer said; a record without it is read as its sizes say.
        isTruncated = try container.decodeIfPresent(Bool.self, forKey: .truncated) ?? (Int64(data.count) < size)
    }
}
