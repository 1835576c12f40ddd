import CurlewTransport
import Glibc

/// Hides the password of a URL's `user:password@` part. Debug messages carry URLs with it hidden,
/// so no observer (log, interface, export) ever holds it; only the transport gets the real URL.
public enum URLPassword {
    static let marker = HiddenText.marker
    private static let markerBytes = Array(marker.utf8)

    /// `text` with the password of every URL in it replaced by the marker (also a URL inside
    /// another's query, or one written in JSON with escaped slashes); unchanged, and not copied,
    /// when it has none. Where the text repeats a password outside a URL's scheme and authority
    /// (a server's path may: `/basic-auth/user/PASS`), it is hidden too: one of
    /// `RedactionPolicy.unmistakableCredential` bytes or more wherever it is, as a record hides
    /// the `Authorization` libcurl makes of it; a shorter one of
    /// `RedactionPolicy.minimumHiddenCredential` bytes or more where it stands alone
    /// (`isDelimited`: a path segment, a query value, a quoted string), so a port or a word that
    /// happens to hold it stays. A host keeps its name.
    /// Linear in the text's length (and the repeats found): at most `searchedPasswords`
    /// passwords are looked for, each in one pass over the text and one over its decoded form.
    public static func masking(in text: String) -> String {
        guard ASCII.contains(UInt8(ascii: "@"), in: text) else { return text }
        let bytes = Array(text.utf8)
        var hidden: [Range<Int>] = []
        var kept: [Range<Int>] = []
        var searched = Set<ArraySlice<UInt8>>()
        forEachAuthority(in: bytes) { authority, password in
            kept.append(authority)
            guard let password else { return }
            hidden.append(password)
            if password.count >= RedactionPolicy.minimumHiddenCredential, searched.count < searchedPasswords {
                // As it decodes too, so a repeat escaped otherwise than the user information is found.
                let decoded = PercentDecodedView(Array(bytes[password]))?.bytes ?? []
                searched.insert(decoded.count >= RedactionPolicy.minimumHiddenCredential ? ArraySlice(decoded) : bytes[password])
            }
        }
        guard !hidden.isEmpty else { return text }
        hidden += repeats(of: searched.map { Array($0) }, in: bytes, outside: kept, anywhereFrom: RedactionPolicy.unmistakableCredential)
        return String(decoding: replacing(hidden, in: bytes), as: UTF8.self)
    }

    /// How many different passwords one text's repeats are looked for: a hostile body naming
    /// thousands of URLs with passwords costs passes for this many at most.
    static let searchedPasswords = 16

    /// Where `passwords` occur in `bytes` standing alone (or anywhere, those of `anywhereFrom`
    /// bytes or more), as written or with any of their bytes percent-encoded
    /// (`PercentDecodedView.occurrences`), but for occurrences touching a range of `kept`
    /// (sorted, as found); overlapping occurrences as one range.
    private static func repeats(of passwords: [[UInt8]], in bytes: [UInt8], outside kept: [Range<Int>], anywhereFrom: Int? = nil) -> [Range<Int>] {
        let long = anywhereFrom.map { limit in passwords.filter { $0.count >= limit } } ?? []
        let short = anywhereFrom.map { limit in passwords.filter { $0.count < limit } } ?? passwords
        var candidates = short.isEmpty ? [] : PercentDecodedView.occurrences(of: short, in: bytes).filter { isDelimited($0, in: bytes) }
        if !long.isEmpty {
            candidates = (candidates + PercentDecodedView.occurrences(of: long, in: bytes)).sorted { $0.lowerBound < $1.lowerBound }
        }
        var found: [Range<Int>] = []
        var nextKept = 0
        for range in candidates {
            while nextKept < kept.count, kept[nextKept].upperBound <= range.lowerBound { nextKept += 1 }
            guard nextKept == kept.count || !kept[nextKept].overlaps(range) else { continue }
            // Occurrences come in order: one overlapping the last found extends it.
            if let last = found.last, range.lowerBound <= last.upperBound {
                found[found.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                found.append(range)
            }
        }
        return found
    }

    /// Calls `body` with the start of each occurrence of `needle` in `haystack`, overlapping ones
    /// included, in order: Knuth, Morris and Pratt's search, so time in proportion to the two
    /// lengths whatever they hold (`memchr` skips to the needle's first byte between matches).
    static func forEachOccurrence(of needle: [UInt8], in haystack: [UInt8], _ body: (Int) -> Void) {
        guard !needle.isEmpty, haystack.count >= needle.count else { return }
        // fallback[i]: how much of the needle still matches after a mismatch past its first i + 1 bytes.
        var fallback = [Int](repeating: 0, count: needle.count)
        var matched = 0
        for index in 1..<needle.count {
            while matched > 0, needle[index] != needle[matched] { matched = fallback[matched - 1] }
            if needle[index] == needle[matched] { matched += 1 }
            fallback[index] = matched
        }
        haystack.withUnsafeBytes { all in
            let first = Int32(needle[0])
            var index = 0
            matched = 0
            while index < all.count {
                if matched == 0 {
                    guard let hit = memchr(all.baseAddress! + index, first, all.count - index) else { return }
                    index = all.baseAddress!.distance(to: UnsafeRawPointer(hit))
                }
                let byte = all[index]
                while matched > 0, byte != needle[matched] { matched = fallback[matched - 1] }
                if byte == needle[matched] { matched += 1 }
                if matched == needle.count {
                    body(index + 1 - needle.count)
                    matched = fallback[matched - 1]
                }
                index += 1
            }
        }
    }

    /// `text` with each of `values` (those of `RedactionPolicy.minimumHiddenCredential` bytes or
    /// more) hidden where it stands alone (`isDelimited`), longest first: a password repeated in a
    /// request line, a URL or a name, where `127.0.0.1` keeps its `0.0.1` and `:18700` its port.
    /// A URL's scheme and authority in the text keep their parts (`-u admin:intra
    /// http://intra/x` keeps its host), as `masking` keeps them.
    public static func hidingDelimited(_ values: [String], in text: String) -> String {
        let bytes = Array(text.utf8)
        let hidden = delimitedRepeats(of: values, in: bytes)
        return hidden.isEmpty ? text : String(decoding: replacing(hidden, in: bytes), as: UTF8.self)
    }

    /// `hidingDelimited(_:in:)` for bytes that need not be text (a binary body), whose other
    /// bytes stay as they are.
    static func hidingDelimited(_ values: [String], in bytes: [UInt8]) -> [UInt8] {
        let hidden = delimitedRepeats(of: values, in: bytes)
        return hidden.isEmpty ? bytes : replacing(hidden, in: bytes)
    }

    /// Whether `hidingDelimited(_:in:)` would hide anything in `bytes`, without making the copy.
    static func holdsDelimited(_ values: [String], in bytes: [UInt8]) -> Bool {
        !delimitedRepeats(of: values, in: bytes).isEmpty
    }

    private static func delimitedRepeats(of values: [String], in bytes: [UInt8]) -> [Range<Int>] {
        let wanted = values.filter { $0.utf8.count >= RedactionPolicy.minimumHiddenCredential }
        guard !wanted.isEmpty else { return [] }
        var kept: [Range<Int>] = []
        forEachAuthority(in: bytes) { authority, _ in kept.append(authority) }
        return repeats(of: wanted.map { Array($0.utf8) }, in: bytes, outside: kept)
    }

    /// Whether `range` of `bytes` stands alone: at the text's start or after a delimiter, and at
    /// its end or before one. The delimiters are those around a path segment, a query or form
    /// value and a quoted or escaped string (`/ ? & = # ; ,`, spaces and line ends, quotes, angle
    /// brackets, a backslash); a colon and a dot are not, so a host and a port keep their parts.
    /// A delimiter written percent-encoded counts (`%20`, `%2F`), and so does a `+`, a query's
    /// space.
    static func isDelimited(_ range: Range<Int>, in bytes: [UInt8]) -> Bool {
        func delimits(_ index: Int, escapeAt escape: Int) -> Bool {
            let byte = bytes[index]
            return isDelimiter(byte) || byte == UInt8(ascii: "+") || PercentDecodedView.escapedByte(at: escape, in: bytes).map(isDelimiter) == true
        }
        return (range.lowerBound == 0 || delimits(range.lowerBound - 1, escapeAt: range.lowerBound - 3))
            && (range.upperBound == bytes.count || delimits(range.upperBound, escapeAt: range.upperBound))
    }

    private static func isDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "&"), UInt8(ascii: "="), UInt8(ascii: "#"), UInt8(ascii: ";"),
             UInt8(ascii: ","), 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "<"), UInt8(ascii: ">"),
             UInt8(ascii: "\\"):
            true
        default:
            false
        }
    }

    /// `bytes` with each run covered by `ranges` (in any order, overlapping, touching or apart)
    /// replaced by one marker.
    static func replacing(_ ranges: [Range<Int>], in bytes: [UInt8]) -> [UInt8] {
        var runs: [Range<Int>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = runs.last, range.lowerBound <= last.upperBound {
                runs[runs.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                runs.append(range)
            }
        }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var copied = 0
        for run in runs {
            output += bytes[copied..<run.lowerBound]
            output += markerBytes
            copied = run.upperBound
        }
        output += bytes[copied...]
        return output
    }

    /// `word`, a URL typed with part of its start missing (or any URL an error quotes), with
    /// `hide` applied as to the URL it may have been meant to be, then shown as typed: a scheme
    /// with one slash or none (`http:/user:pw@host`, `https:user:pw@host`) or more than two, or
    /// a leading slash for the scheme (`/user:pw@host`), is read as `scheme://`, so that its
    /// user information is read as such and its password hidden. By bytes: a combining mark
    /// after a slash makes the two one Character. `hide` hides what else is to be hidden (a
    /// redaction policy's secrets), or is `masking(in:)`.
    public static func hiding(inMistyped word: String, by hide: (String) -> String) -> String {
        let bytes = word.utf8
        let typedCount: Int, meant: String
        if bytes.first == UInt8(ascii: "/") {
            (typedCount, meant) = (1, "http://")
        } else if let colon = bytes.firstIndex(of: UInt8(ascii: ":")) {
            let schemeCount = bytes.distance(from: bytes.startIndex, to: colon)
            let slashes = bytes[bytes.index(after: colon)...].prefix { $0 == UInt8(ascii: "/") }.count
            (typedCount, meant) = (schemeCount + 1 + slashes, String(decoding: bytes.prefix(schemeCount), as: UTF8.self) + "://")
        } else {
            return hide(word)
        }
        // The password hidden first, as the URL meant (masking leaves a scheme as it is), then
        // whatever else `hide` hides, as typed: a `hide` that rewrote the scheme could not
        // leave the password to a second look.
        let masked = masking(in: meant + String(decoding: bytes.dropFirst(typedCount), as: UTF8.self))
        guard masked.utf8.starts(with: meant.utf8) else { return marker }
        let typed = Array(bytes.prefix(typedCount)) + Array(masked.utf8.dropFirst(meant.utf8.count))
        return hide(String(decoding: hidingUserInformationLike(typed), as: UTF8.self))
    }

    /// `bytes` with what reads like a password anywhere hidden: in the authority up to its path
    /// (a password holding `#` or `?`, `bob:pa#ss@h`, included), and in each stretch between
    /// `/`, `?`, `#` and spaces, from after its first `:` to its last `@`, as `masking(in:)`
    /// reads a URL's user information. For text typed as a URL and not one
    /// (`/\u{301}/user:pw@host`, a mark among its slashes): hiding too much there costs nothing.
    private static func hidingUserInformationLike(_ bytes: [UInt8]) -> [UInt8] {
        var hidden: [Range<Int>] = []
        // A region whose password `masking(in:)` hid already is left as it is.
        func hidePassword(in region: ArraySlice<UInt8>) {
            guard let colon = region.firstIndex(of: UInt8(ascii: ":")), let at = region.lastIndex(of: UInt8(ascii: "@")), colon + 1 < at,
                  region.firstRange(of: markerBytes) == nil else { return }
            hidden.append((colon + 1)..<at)
        }
        if let separator = bytes.firstRange(of: Array("://".utf8)) {
            hidePassword(in: bytes[separator.upperBound..<(bytes[separator.upperBound...].firstIndex(of: UInt8(ascii: "/")) ?? bytes.count)])
        }
        var start = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex { "/?# ".utf8.contains($0) } ?? bytes.count
            hidePassword(in: bytes[start..<end])
            start = end + 1
        }
        return hidden.isEmpty ? bytes : replacing(hidden, in: bytes)
    }

    static func hasPassword(_ text: String) -> Bool {
        guard ASCII.contains(UInt8(ascii: "@"), in: text) else { return false }
        var found = false
        forEachAuthority(in: Array(text.utf8)) { _, password in found = found || password != nil }
        return found
    }

    /// Calls `body` with each URL's scheme and authority, in order (from the scheme's first
    /// letter to the authority's end, or to a space, quote or angle bracket before it), and the
    /// byte range of its password, if it has one: after "scheme://user:" (or ":\/\/" as JSON
    /// writes it) and before the "@" that ends the authority.
    private static func forEachAuthority(in bytes: [UInt8], _ body: (_ authority: Range<Int>, _ password: Range<Int>?) -> Void) {
        var index = 0
        while index < bytes.count {
            let separator = separatorLength(bytes, at: index)
            guard separator > 0 else { index += 1; continue }
            var schemeStart = index
            while schemeStart > 0, isSchemeByte(bytes[schemeStart - 1]) { schemeStart -= 1 }
            let authorityStart = index + separator
            var end = authorityStart
            var colon: Int?
            var at: Int?
            var wordEnd: Int?
            while end < bytes.count {
                let byte = bytes[end]
                if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
                // A backslash ends the authority only as JSON's escape of a slash (`\/`): libcurl
                // reads any other as part of the user information, password included (found by a
                // new user's trial: `u:pa\ss@` went to the log in clear).
                if byte == UInt8(ascii: "\\"), end + 1 < bytes.count, bytes[end + 1] == UInt8(ascii: "/") { break }
                if byte == UInt8(ascii: "@") { at = end }
                if byte == UInt8(ascii: ":"), colon == nil, at == nil { colon = end }
                if wordEnd == nil, isWordEnd(byte) { wordEnd = end }
                end += 1
            }
            var password: Range<Int>?
            if let at, let colon, colon < at, !bytes[(colon + 1)..<at].elementsEqual(markerBytes) {
                password = (colon + 1)..<at
            }
            body(schemeStart..<max(min(wordEnd ?? end, end), password?.upperBound ?? 0), password)
            index = end
        }
    }

    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") || byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
            || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }

    private static func isWordEnd(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")
            || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">")
    }

    /// 3 for "://" at `index`, 5 for ":\/\/", else 0.
    private static func separatorLength(_ bytes: [UInt8], at index: Int) -> Int {
        guard bytes[index] == UInt8(ascii: ":") else { return 0 }
        if index + 2 < bytes.count, bytes[index + 1] == UInt8(ascii: "/"), bytes[index + 2] == UInt8(ascii: "/") {
            // More slashes than two (`http:////user:pw@host`, which curl and the agent refuse)
            // still lead to what reads as user information: hidden all the same.
            var length = 3
            while index + length < bytes.count, bytes[index + length] == UInt8(ascii: "/") { length += 1 }
            return length
        }
        if index + 4 < bytes.count, bytes[index + 1] == UInt8(ascii: "\\"), bytes[index + 2] == UInt8(ascii: "/"),
           bytes[index + 3] == UInt8(ascii: "\\"), bytes[index + 4] == UInt8(ascii: "/") { return 5 }
        return 0
    }
}
