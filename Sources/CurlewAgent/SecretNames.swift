/// Names whose values are secrets (query and form parameters, JSON members), matched as APIs
/// spell one name several ways: in any ASCII case and without `_` and `-`, so `access_token`
/// also covers `accessToken`, `AccessToken` and `access-token`. Redaction, the cache key and the
/// workspace writer's moving of credentials to secrets all decide by this one rule.
public struct SecretNames: Sendable, Equatable, ExpressibleByArrayLiteral {
    private let names: ByteNameSet

    public init(_ names: some Sequence<String>) {
        self.names = ByteNameSet(names, ignoringCase: true, ignoringSeparators: true)
    }

    public init(arrayLiteral names: String...) {
        self.init(names)
    }

    /// Whether `name` is one of the names, spelt in any of the ways above.
    public func contains(_ name: String) -> Bool {
        names.contains(name)
    }

    /// `contains` for a name given as bytes.
    func contains(_ name: UnsafeRawBufferPointer.SubSequence) -> Bool {
        names.contains(name)
    }

    /// A name as the rule compares it: lowercased, without `_` and `-`.
    public static func folded(_ name: String) -> String {
        String(name.lowercased().unicodeScalars.filter { $0 != "_" && $0 != "-" })
    }
}
