/// A text an error message quotes, cut to its first characters: a megabyte URL or header name
/// quoted whole would fill the screen and the log line. Cut by Unicode scalars, so that a run
/// of combining marks cannot make one character of any length.
public enum ClippedText {
    /// `text` quoted as Swift writes a string literal, its first `limit` scalars and `…` when longer.
    public static func quoted(_ text: String, limit: Int = 200) -> String {
        guard let cut = cut(text, limit) else { return text.debugDescription }
        return String(text.unicodeScalars[..<cut]).debugDescription + "…"
    }

    /// `text` as it is, its first `limit` scalars and `…` when longer.
    public static func plain(_ text: String, limit: Int = 200) -> String {
        guard let cut = cut(text, limit) else { return text }
        return String(text.unicodeScalars[..<cut]) + "…"
    }

    /// `word` as an error may name it when what follows its first `=` is a value that may be a
    /// credential (`--user=bob:pw`, `password=pw`, a cookie `sid=…`): up to the `=`, through
    /// `name` (which hides what else is secret there), then `…`; nil without a `=`.
    public static func nameOnly(_ word: Substring, _ name: (String) -> String = { $0 }) -> String? {
        guard let equals = word.firstIndex(of: "=") else { return nil }
        return name(String(word[..<equals])) + "=…"
    }

    /// Where `text` is cut after `limit` scalars; nil when it is not longer.
    private static func cut(_ text: String, _ limit: Int) -> String.UnicodeScalarView.Index? {
        let scalars = text.unicodeScalars
        guard let cut = scalars.index(scalars.startIndex, offsetBy: limit, limitedBy: scalars.endIndex), cut < scalars.endIndex else { return nil }
        return cut
    }
}
