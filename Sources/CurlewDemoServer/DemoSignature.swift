import Crypto
import Foundation

/// The demo server's check of an HMAC-SHA256 request signature, the scheme Curlew's
/// `HMACSigner` produces. The string signed is
/// `METHOD \n TARGET \n TIMESTAMP \n hex(SHA-256(body))`, TARGET being the request line's
/// path and query; headers: `X-Curlew-Key` (key id), `X-Curlew-Timestamp` (Unix seconds, within
/// five minutes of the server's clock) and `X-Curlew-Signature` (lowercase hex).
public enum DemoSignature {
    /// The key the demo server knows: id and secret.
    public static let keyID = "demo"
    public static let secret = "curlew-demo-signing-secret"

    struct Failure: Error {
        var reason: String
        var canonical: String
    }

    static func verify(_ request: DemoRequest, now: Date = Date()) -> Result<String, Failure> {
        let timestamp = request.header("X-Curlew-Timestamp") ?? ""
        let canonical = [request.method, request.uri, timestamp, SHA256.hash(data: request.body).hex].joined(separator: "\n")
        guard let keyID = request.header("X-Curlew-Key") else { return .failure(Failure(reason: "no X-Curlew-Key header", canonical: canonical)) }
        guard keyID == Self.keyID else { return .failure(Failure(reason: "unknown key id \(keyID)", canonical: canonical)) }
        guard let seconds = Double(timestamp), abs(now.timeIntervalSince1970 - seconds) <= 300 else {
            return .failure(Failure(reason: "X-Curlew-Timestamp missing or more than 300 s from the server's clock", canonical: canonical))
        }
        let expected = HMAC<SHA256>.authenticationCode(for: Data(canonical.utf8), using: SymmetricKey(data: Data(secret.utf8))).hex
        guard let given = request.header("X-Curlew-Signature"), given.lowercased() == expected else {
            return .failure(Failure(reason: "signature does not match", canonical: canonical))
        }
        return .success(keyID)
    }
}

extension Sequence where Element == UInt8 {
    var hex: String { map { String(format: "%02x", $0) }.joined() }
}
