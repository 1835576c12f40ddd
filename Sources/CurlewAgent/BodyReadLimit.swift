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

    /// Where this reader cuts `bytes`, the first bytes of a body of `size` bytes (the session
    /// log's rule, `BodySnapshot.cut`).
    func cut(of bytes: UnsafeRawBufferPointer, size: Int64) -> BodySnapshot.Cut {
        BodySnapshot.cut(of: bytes, truncated: Int64(bytes.count) < size, textLimit: text, binaryLimit: binary)
    }
}

/// Who reads one debug message's bodies: the observers' declared limits, and a request's `debug`
/// callback (which reads everything) when it has one. The message keeps what its most demanding
/// reader reads, never more than the agent's `debugBodyLimit`, and never a cut that would make
/// another reader judge the body differently than it would on the whole body.
struct BodyReaders: Sendable {
    /// Distinct limits, the most text first.
    var limits: [BodyReadLimit]
    var readsEverything: Bool
    /// `NetworkConfig.debugBodyLimit`.
    var cap: Int

    /// Bytes of `bytes`, the first bytes of a body of `size` bytes, that the message keeps.
    func bytesKept(of bytes: UnsafeRawBufferPointer, size: Int64) -> Int {
        let most = min(bytes.count, cap)
        if readsEverything { return most }
        // What some reader reads of any body, without a text test: all of a short body.
        var kept = limits.reduce(0) { max($0, min(most, $1.text, $1.binary)) }
        guard kept < most else { return kept }
        let bytes = UnsafeRawBufferPointer(rebasing: bytes[0..<most])
        let cuts = limits.map { limit -> BodySnapshot.Cut? in
            let capped = BodyReadLimit(text: min(limit.text, cap), binary: min(limit.binary, cap))
            return capped.text > kept ? capped.cut(of: bytes, size: size) : nil
        }
        kept = cuts.reduce(kept) { max($0, $1?.count ?? 0) }
        // A reader that judged the body binary on its first `tested` bytes must see all of them
        // again, or it would judge a shorter cut, which may read as text, and write that.
        var raised = true
        while raised {
            raised = false
            for case let cut? in cuts where cut.count < cut.tested && kept > cut.count && kept < cut.tested {
                kept = cut.tested
                raised = true
            }
        }
        return kept
    }

    /// The most bytes any reader may read of a body (of a download, read back from its file).
    var mostBytes: Int {
        readsEverything ? cap : min(cap, limits.reduce(0) { max($0, $1.text) })
    }
}
