import CurlewTransport

/// Names whose values are secrets (query and form parameters, JSON members), matched as APIs
/// spell one name several ways: in any ASCII case and without `_`, `-` and `.`, so `access_token`
/// also covers `accessToken`, `AccessToken` and `access-token`. Redaction decides by it, and
/// through `RedactionPolicy.isSecretName` so do the cache key and the workspace writer's moving
/// of credentials to secrets. Equal when made from the same names in the same order.
struct SecretNames: Sendable, Equatable {
    private let names: ByteNameSet

    init(_ names: some Sequence<String>) {
        self.names = ByteNameSet(names, ignoringCase: true, ignoringSeparators: true)
    }

    /// Whether `name` is one of the names, spelt in any of the ways above.
    func contains(_ name: String) -> Bool {
        names.contains(name)
    }

    /// `contains` for a name given as bytes.
    func contains(_ name: UnsafeRawBufferPointer.SubSequence) -> Bool {
        names.contains(name)
    }

    /// Whether a name ends with `byte` (in any case): a name ending otherwise is none, nor is
    /// any of its tails.
    @inline(__always)
    func mayEnd(with byte: UInt8) -> Bool {
        names.mayEnd(with: byte)
    }

    /// The length of the longest name as the rule compares it (folded).
    var longestFoldedLength: Int { names.longestLength }

    /// A name as the rule compares it: ASCII letters lowercased, without `_`, `-` and `.`.
    static func folded(_ name: String) -> String {
        String(decoding: name.utf8.filter { !ByteNameSet.isSeparator($0) }.map(ASCII.lowercase), as: UTF8.self)
    }
}
