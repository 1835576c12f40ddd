import CurlewAgent

/// Text of an imported file that an import's error or note quotes: its credentials hidden as a
/// log hides them (a URL's password, secret query parameters, `Authorization` values), then
/// cut, so a cut never leaves part of a secret showing.
enum ImportQuote {
    static func quoted(_ text: String, limit: Int) -> String {
        ClippedText.quoted(RedactionPolicy().redactText(text), limit: limit)
    }
}
