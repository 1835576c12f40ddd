import Crypto
import CurlewAgent
import Foundation

/// Signs requests with HMAC-SHA256. The string signed is
/// `METHOD \n TARGET \n TIMESTAMP \n hex(SHA-256(body))`, TARGET being the path and query as the
/// request line carries them; the signature and its inputs travel in three headers:
/// `X-Curlew-Key` (the key id), `X-Curlew-Timestamp` (Unix seconds) and `X-Curlew-Signature`
/// (lowercase hex), named in `HMACSignatureHeaders`. The demo server's `/signed` endpoint checks
/// exactly this scheme.
public struct HMACSigner: RequestSigner {
    public var keyID: String
    private let secret: Data
    private let clock: @Sendable () -> Date

    public init(keyID: String, secret: Data, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.keyID = keyID
        self.secret = secret
        self.clock = clock
    }

    public func sign(_ input: SigningInput) throws -> SigningOutput {
        let timestamp = String(Int64(clock().timeIntervalSince1970))
        let canonical = Self.canonicalString(method: input.method, target: input.target, timestamp: timestamp, body: input.body)
        let signature = HMAC<SHA256>.authenticationCode(for: Data(canonical.utf8), using: SymmetricKey(data: secret))
        return SigningOutput(headers: [
            HeaderField(name: HMACSignatureHeaders.keyID, value: keyID),
            HeaderField(name: HMACSignatureHeaders.timestamp, value: timestamp),
            HeaderField(name: HMACSignatureHeaders.signature, value: Self.hex(signature)),
        ])
    }

    /// The exact text the signature covers.
    public static func canonicalString(method: String, target: String, timestamp: String, body: Data) -> String {
        [method, target, timestamp, hex(SHA256.hash(data: body))].joined(separator: "\n")
    }

    private static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
