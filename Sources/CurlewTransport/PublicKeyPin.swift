import CCurl
import Foundation

/// Public-key pins as curl writes them: `sha256//` and the base64 SHA-256 of a certificate's
/// SubjectPublicKeyInfo.
public enum PublicKeyPin {
    /// The pin of the first certificate in a PEM or DER file; nil when the file holds none.
    public static func ofCertificate(at path: String) -> String? {
        var digest = [UInt8](repeating: 0, count: 32)
        guard curlew_certificate_file_spki_sha256(path, &digest) == 1 else { return nil }
        return "sha256//" + Data(digest).base64EncodedString()
    }

    /// Whether `text` looks like a pin: `sha256//` and 44 characters of base64.
    public static func isPin(_ text: String) -> Bool {
        text.hasPrefix("sha256//") && Data(base64Encoded: String(text.dropFirst(8)))?.count == 32
    }
}
