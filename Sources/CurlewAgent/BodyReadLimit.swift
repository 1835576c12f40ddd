/// How much of a body a reader of debug messages reads: its first `text` bytes, or only its first
/// `binary` bytes when those `text` bytes do not read as text (a binary body is a preview to most
/// readers: nobody reads a megabyte of base64). The text test is the session log's
/// (`BodySnapshot.keptPart`), so a debug message kept for the file logger holds what it writes.
public struct BodyReadLimit: Sendable, Hashable {
    /// Bytes read of any body.
    public var text: Int
    /// Bytes read of a body that is not text, when fewer than `text`.
    public var binary: Int

    public init(text: Int, binary: Int) {
        self.text = max(0, text)
        self.binary = max(0, binary)
    }

    /// The same bytes of any body.
    public init(bytes: Int) {
        self.init(text: bytes, binary: bytes)
    }

    /// Every byte the agent keeps.
    public static let all = BodyReadLimit(bytes: .max)

    /// How many of `bytes`, the first bytes of a body of `size` bytes, this reader reads. A body
    /// that is not text is turned away at its first bytes; a text body longer than `binary` is
    /// checked up to `text` bytes.
    func bytesRead(of bytes: UnsafeRawBufferPointer, size: Int64) -> Int {
        let first = min(bytes.count, text)
        guard first > binary else { return first }
        let isText = BodySnapshot.textLength(of: UnsafeRawBufferPointer(rebasing: bytes[0..<first]), truncated: Int64(first) < size) != nil
        return isText ? first : binary
    }
}

/// Who reads one debug message's bodies: the observers' declared limits, and a request's `debug`
/// callback (which reads everything) when it has one. The message keeps what its most demanding
/// reader reads, never more than the agent's `debugBodyLimit`.
struct BodyReaders: Sendable {
    var limits: [BodyReadLimit]
    var readsEverything: Bool
    /// `NetworkConfig.debugBodyLimit`.
    var cap: Int

    /// Bytes of `bytes`, the first bytes of a body of `size` bytes, that the message keeps.
    func bytesKept(of bytes: UnsafeRawBufferPointer, size: Int64) -> Int {
        let most = min(bytes.count, cap)
        if readsEverything { return most }
        var kept = 0
        for limit in limits where kept < most {
            let capped = BodyReadLimit(text: min(limit.text, cap), binary: min(limit.binary, cap))
            kept = max(kept, capped.bytesRead(of: bytes, size: size))
        }
        return kept
    }

    /// The most bytes any reader may read of a body (of a download, read back from its file).
    var mostBytes: Int {
        readsEverything ? cap : min(cap, limits.reduce(0) { max($0, $1.text, $1.binary) })
    }
}
