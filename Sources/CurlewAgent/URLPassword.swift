import CurlewTransport

/// Hides the password of a URL's `user:password@` part. Debug messages carry URLs with it hidden,
/// so no observer (log, interface, export) ever holds it; only the transport gets the real URL.
public enum URLPassword {
    static let marker = HiddenText.marker
    private static let markerBytes = Array(marker.utf8)

    /// `text` with the password of every URL in it replaced by the marker (also a URL inside
    /// another's query, or one written in JSON with escaped slashes), and with every other
    /// occurrence of such a password too (a server's path may repeat it: `/basic-auth/user/PASS`),
    /// when it is at least `RedactionPolicy.minimumHiddenCredential` bytes long; unchanged, and
    /// not copied, when it has none.
    public static func masking(in text: String) -> String {
        guard ASCII.contains(UInt8(ascii: "@"), in: text) else { return text }
        let bytes = Array(text.utf8)
        var userInfoPasswords: [Range<Int>] = []
        forEachPassword(in: bytes) { userInfoPasswords.append($0) }
        guard !userInfoPasswords.isEmpty else { return text }
        var repeated: [ArraySlice<UInt8>] = []
        for range in userInfoPasswords where range.count >= RedactionPolicy.minimumHiddenCredential {
            let password = bytes[range]
            if !repeated.contains(where: { $0.elementsEqual(password) }) { repeated.append(password) }
        }
        // Longest first, so a password inside another does not leave the rest of the longer one.
        repeated.sort { $0.count > $1.count }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var nextUserInfo = 0
        var index = 0
        while index < bytes.count {
            if nextUserInfo < userInfoPasswords.count, userInfoPasswords[nextUserInfo].lowerBound == index {
                output += markerBytes
                index = userInfoPasswords[nextUserInfo].upperBound
                nextUserInfo += 1
                continue
            }
            if let password = repeated.first(where: { bytes[index...].starts(with: $0) }) {
                output += markerBytes
                index += password.count
                // A repeat that runs into a userinfo password hides that one whole too.
                while nextUserInfo < userInfoPasswords.count, userInfoPasswords[nextUserInfo].lowerBound < index {
                    index = max(index, userInfoPasswords[nextUserInfo].upperBound)
                    nextUserInfo += 1
                }
                continue
            }
            output.append(bytes[index])
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    static func hasPassword(_ text: String) -> Bool {
        guard ASCII.contains(UInt8(ascii: "@"), in: text) else { return false }
        var found = false
        forEachPassword(in: Array(text.utf8)) { _ in found = true }
        return found
    }

    /// Calls `body` with the byte range of each password, in order: after "scheme://user:" (or
    /// ":\/\/" as JSON writes it) and before the "@" that ends the authority.
    private static func forEachPassword(in bytes: [UInt8], _ body: (Range<Int>) -> Void) {
        var index = 0
        while index < bytes.count {
            let separator = separatorLength(bytes, at: index)
            guard separator > 0 else { index += 1; continue }
            let authorityStart = index + separator
            var end = authorityStart
            var colon: Int?
            var at: Int?
            while end < bytes.count {
                let byte = bytes[end]
                if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
                // A backslash ends the authority only as JSON's escape of a slash (`\/`): libcurl
                // reads any other as part of the user information, password included (found by a
                // new user's trial: `u:pa\ss@` went to the log in clear).
                if byte == UInt8(ascii: "\\"), end + 1 < bytes.count, bytes[end + 1] == UInt8(ascii: "/") { break }
                if byte == UInt8(ascii: "@") { at = end }
                if byte == UInt8(ascii: ":"), colon == nil, at == nil { colon = end }
                end += 1
            }
            if let at, let colon, colon < at, !bytes[(colon + 1)..<at].elementsEqual(markerBytes) {
                body((colon + 1)..<at)
            }
            index = end
        }
    }

    /// 3 for "://" at `index`, 5 for ":\/\/", else 0.
    private static func separatorLength(_ bytes: [UInt8], at index: Int) -> Int {
        guard bytes[index] == UInt8(ascii: ":") else { return 0 }
        if index + 2 < bytes.count, bytes[index + 1] == UInt8(ascii: "/"), bytes[index + 2] == UInt8(ascii: "/") { return 3 }
        if index + 4 < bytes.count, bytes[index + 1] == UInt8(ascii: "\\"), bytes[index + 2] == UInt8(ascii: "/"),
           bytes[index + 3] == UInt8(ascii: "\\"), bytes[index + 4] == UInt8(ascii: "/") { return 5 }
        return 0
    }
}
