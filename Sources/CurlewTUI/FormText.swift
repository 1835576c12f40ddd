import CurlewAgent
import Foundation

/// A url-encoded form as the editor shows it: `name=value&…`, percent-encoded except for the
/// `{{templates}}` in it, which stay readable and are filled in when the form is sent.
enum FormText {
    /// The text of a form's fields.
    static func text(of params: Parameters) -> String {
        params.map { encoded($0.key) + "=" + encoded($0.value.textValue) }.joined(separator: "&")
    }

    /// The fields of a form's text, decoded (`+` is a space, each valid `%XX` its byte, a `%`
    /// that starts none stays as written), templates as written.
    static func fields(of text: String) -> [(name: String, value: String)] {
        text.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (decoded(parts[0]), parts.count > 1 ? decoded(parts[1]) : "")
        }
    }

    /// Whether `text` is a form the editor can hold: it reads back as the same fields.
    static func isForm(_ text: String) -> Bool {
        Self.text(of: Parameters(fields(of: text).map { JSONMember($0.name, .string($0.value)) })) == text
    }

    /// A field's part decoded through the agent's own reading of escapes (`PercentDecodedView`):
    /// a stray `%` (`50% off`) no longer leaves every escape after it undecoded, as a whole-text
    /// decoding did; bytes that are no UTF-8 leave the part as written (`+` a space).
    private static func decoded(_ part: Substring) -> String {
        let written = Array(part.utf8)
        let bytes = PercentDecodedView(written, plusAsSpace: true)?.bytes ?? written
        return String(validating: bytes, as: UTF8.self) ?? part.replacingOccurrences(of: "+", with: " ")
    }

    /// Percent-encoded, with each `{{…}}` kept readable, and so the `\` that escapes one
    /// (`\{{…}}`, a literal `{{`); inside one, only what `fields(of:)` would read otherwise
    /// (`%`, `&`, `=`, `+`) is encoded, so that decoding gives the text back.
    private static func encoded(_ text: String) -> String {
        var output = ""
        var rest = Substring(text)
        while let open = rest.firstRange(ofASCII: "{{"), let close = rest[open.upperBound...].firstRange(ofASCII: "}}") {
            var before = rest[..<open.lowerBound]
            let escape = TemplateEscape.isEscaped(rest, openingAt: open.lowerBound) ? String(before.removeLast()) : ""
            output += Parameters.percentEncode(String(before)) + escape + readable(rest[open.lowerBound..<close.upperBound])
            rest = rest[close.upperBound...]
        }
        return output + Parameters.percentEncode(String(rest))
    }

    /// A template as it is but for the bytes that separate or encode a form's fields.
    private static func readable(_ template: Substring) -> String {
        var output = String.UnicodeScalarView()
        for scalar in template.unicodeScalars {
            switch scalar {
            case "%": output += "%25".unicodeScalars
            case "&": output += "%26".unicodeScalars
            case "=": output += "%3D".unicodeScalars
            case "+": output += "%2B".unicodeScalars
            default: output.append(scalar)
            }
        }
        return String(output)
    }
}
