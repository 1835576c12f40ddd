/// The escape of a `{{` template, read alike wherever templates are filled in (a workspace's
/// templates, a chain's variables): `\{{` stands for a literal `{{`.
public enum TemplateEscape {
    /// `text` written so that it reads back as itself: each `{{` as `\{{` (a `\{{` already there
    /// becomes `\\{{`, which reads back as `\{{`).
    public static func escaping(_ text: String) -> String {
        text.replacingOccurrences(of: "{{", with: "\\{{")
    }

    /// Whether the `{{` at `open` in `text` is escaped: written right after a `\`, which is the
    /// escape's and not part of the text.
    public static func isEscaped(_ text: Substring, openingAt open: Substring.Index) -> Bool {
        open > text.startIndex && text[text.index(before: open)] == "\\"
    }
}
