/// `name=value` pairs as Curlew reads them wherever it decides by name which values are secret
/// (the cache key, a refusal's URL, what an import or a save moves to the secrets file), by the
/// rules redaction's own walk follows (`RedactionPolicy`), so that what a log hides a workspace
/// file or a cache entry never holds:
///
/// - a name ends at `=`; a name without one ends where a value shown would;
/// - a shown value ends at `&`, `;` (which some servers read as `&`), a space, a tab, `+` (a
///   space in a query) or `#`, and in a URL's query at `?` too: each may start a pair of its own
///   (`?page=1;token=…`, `?a=1+token=…`); a name goes on past `+` (`api+key`);
/// - a secret's value runs on to the `&` (and in a URL to the `#`), past spaces, `;` and `?`,
///   so that no part of it stays whichever way a server splits the pairs (`token=ab;cd`);
/// - a secret's value that opens a JSON object or array (`token={"a":"x&y"}`) ends only after it
///   closes; a shown one's JSON is read as pairs (`payload={"a":"x&token=…"}` moves the token).
///
/// Values redaction hides for what they hold (an encoded URL with a token, JSON with a secret
/// member) are not judged here: only names are.
public enum QueryPairs {
    /// Where pairs stand: a URL's query or fragment, or a form body.
    public enum Place: Sendable {
        case url
        case form
    }

    /// `text` with each value `replacement` gives one for replaced, and the rest written as
    /// `kept` writes it. `isSecret` is asked first, of each name as written; `replacement` then
    /// gets the name, the value as far as it runs (to the `&` for a secret) and the answer.
    public static func mapping(_ text: Substring, in place: Place = .url, kept: (Substring) -> String = { String($0) },
                               isSecret: (_ name: Substring) -> Bool,
                               _ replacement: (_ name: Substring, _ value: Substring, _ isSecret: Bool) -> String?) -> String {
        let bytes = Array(text.utf8)
        func index(_ offset: Int) -> String.Index { text.utf8.index(text.utf8.startIndex, offsetBy: offset) }
        var output = ""
        var pieceStart = 0
        var offset = 0
        var containerBudget = RedactionPolicy.containerBudget(for: bytes.count)
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte == UInt8(ascii: "=") {
                let name = text[index(pieceStart)..<index(offset)]
                let secret = isSecret(name)
                let valueStart = offset + 1
                let valueEnd = end(ofValueIn: bytes, from: valueStart, secret: secret, place: place, budget: &containerBudget)
                let value = text[index(valueStart)..<index(valueEnd)]
                output += kept(text[index(pieceStart)..<index(valueStart)]) + (replacement(name, value, secret) ?? kept(value))
                // The byte that ended the value, if any, starts what follows.
                offset = valueEnd
                if offset < bytes.count {
                    output.unicodeScalars.append(UnicodeScalar(bytes[offset]))
                    offset += 1
                }
                pieceStart = offset
            } else if endsName(byte, place: place) {
                output += kept(text[index(pieceStart)..<index(offset)])
                output.unicodeScalars.append(UnicodeScalar(byte))
                offset += 1
                pieceStart = offset
            } else {
                offset += 1
            }
        }
        return output + kept(text[index(pieceStart)...])
    }

    /// Whether `byte` ends a name without a value, and may start a pair of its own: `&`, `;`,
    /// `#`, a space, a tab, and in a URL `?`. Not `+`, which PHP reads inside a name as `_`
    /// (`api+key=` is `api_key`).
    @inline(__always)
    public static func endsName(_ byte: UInt8, place: Place) -> Bool {
        byte == UInt8(ascii: "&") || byte == UInt8(ascii: ";") || byte == UInt8(ascii: "#") || byte == 0x20 || byte == 0x09
            || (place == .url && byte == UInt8(ascii: "?"))
    }

    /// Whether `byte` ends a value that is shown, and may start a pair of its own: what ends a
    /// name, and `+`, a space in a query or a form (`a=1+token=…`).
    @inline(__always)
    public static func endsShownValue(_ byte: UInt8, place: Place) -> Bool {
        endsName(byte, place: place) || byte == UInt8(ascii: "+")
    }

    /// Whether `byte` ends a secret's value, which runs on past what ends a shown one.
    @inline(__always)
    public static func endsHiddenValue(_ byte: UInt8, place: Place) -> Bool {
        byte == UInt8(ascii: "&") || (place == .url && byte == UInt8(ascii: "#"))
    }

    /// Where the value starting at `start` ends: the first byte that ends it, for a secret's
    /// past a JSON object or array it opens (hidden whole). A shown value's JSON is read as
    /// pairs, as a server splitting at `&` reads it (`payload={"a":"x&token=…"}`).
    private static func end(ofValueIn bytes: [UInt8], from start: Int, secret: Bool, place: Place, budget: inout Int) -> Int {
        var offset = secret ? JSONMemberRedactor.containerEnd(bytes, from: start, budget: &budget) ?? start : start
        while offset < bytes.count {
            let byte = bytes[offset]
            if secret ? endsHiddenValue(byte, place: place) : endsShownValue(byte, place: place) { return offset }
            offset += 1
        }
        return bytes.count
    }
}
