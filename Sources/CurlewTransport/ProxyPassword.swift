/// A proxy's password as its setting writes it, found and hidden in libcurl's messages, which
/// repeat a proxy they cannot use as written ("Unsupported proxy syntax in 'http://user:…'").
/// Read and matched as bytes: a combining mark after a `:` or `@` must not hide either.
struct ProxyPassword: Sendable, Equatable {
    /// The setting up to the password: `http://user:`, or `user:` without a scheme.
    let lead: [UInt8]
    let password: [UInt8]

    /// The password of `proxy`: after any scheme (a letter, then letters, digits and `+.-`, then
    /// `://`), from the first `:` to the last `@` (a password may hold `/`, `#`, `@` or `://`
    /// unescaped); nil when it has none.
    init?(proxy: String) {
        let bytes = Array(proxy.utf8)
        let start = ProxyUserInfo.authorityStart(of: bytes)
        guard let at = bytes[start...].lastIndex(of: UInt8(ascii: "@")),
              let colon = bytes[start..<at].firstIndex(of: UInt8(ascii: ":")), colon + 1 < at else { return nil }
        lead = Array(bytes[..<(colon + 1)])
        password = Array(bytes[(colon + 1)..<at])
    }

    /// `text` with the password hidden wherever the lead is followed by it, whole and then `@`,
    /// or cut short by the end of the text (libcurl's messages stop at 255 bytes).
    func hiding(in text: String) -> String {
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        var from = 0
        var searched = 0
        while let found = bytes[searched...].firstRange(of: lead)?.lowerBound {
            let after = found + lead.count
            var common = 0
            while common < password.count, after + common < bytes.count, bytes[after + common] == password[common] { common += 1 }
            let end = after + common
            let whole = common == password.count && end < bytes.count && bytes[end] == UInt8(ascii: "@")
            let cut = common > 0 && end == bytes.count
            if whole || cut {
                output += bytes[from..<after]
                output += Array(HiddenText.marker.utf8)
                from = end
            }
            // Past a hidden password; else one byte on, for a lead can start inside another
            // (`http://xhttp:` starts again at its second `http`).
            searched = whole || cut ? end : found + 1
        }
        guard from > 0 else { return text }
        output += bytes[from...]
        return String(decoding: output, as: UTF8.self)
    }
}
