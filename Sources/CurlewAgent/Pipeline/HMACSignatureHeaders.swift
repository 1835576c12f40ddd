/// The headers of Curlew's HMAC signing scheme, which `CurlewSigning.HMACSigner` writes and the
/// demo server's `/signed` checks: the key id, the time signed and the signature. The signature
/// is a credential (a server accepts it for a while, for the same request), so logs and exports
/// of a session that signs hide it as they hide `Authorization`.
public enum HMACSignatureHeaders {
    public static let keyID = "X-Curlew-Key"
    public static let timestamp = "X-Curlew-Timestamp"
    public static let signature = "X-Curlew-Signature"
}
