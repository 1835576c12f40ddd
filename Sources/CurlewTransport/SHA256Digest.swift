import CCurl
import Foundation

/// SHA-256 from the OpenSSL libcurl is built with: a collision-resistant name for a request key
/// or a body, which no two different inputs share, even when someone chooses one of them.
public enum SHA256Digest {
    /// The digest of `data` in lowercase hex (64 characters).
    public static func hex(of data: Data) -> String {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        data.withUnsafeBytes { bytes in
            _ = SHA256(bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count, &digest)
        }
        var text = ""
        text.reserveCapacity(2 * digest.count)
        for byte in digest {
            text.unicodeScalars.append(digits[Int(byte >> 4)])
            text.unicodeScalars.append(digits[Int(byte & 0x0F)])
        }
        return text
    }

    private static let digits = Array("0123456789abcdef".unicodeScalars)
}
