/// The types a workspace body is given when it names none: text for `body:`, JSON for `json:`
/// (and the interface's body modes alike). They are read as the guesses they are wherever they
/// appear, so a config default `Content-Type` overrides them (`Request.rawContentTypeIsFallback`);
/// any other type a body names is its own and overrides the default. Earlier versions wrote the
/// text type into every `body:` entry they saved, which is why a written one is a guess too.
public enum GuessedBodyType {
    public static let text = "text/plain; charset=utf-8"
    public static let json = "application/json"

    /// Whether a body's type, given or not (nil), is only a guess.
    public static func isGuess(_ type: String?) -> Bool {
        type.map { $0 == text || $0 == json } ?? true
    }
}
