import CurlewAgent
import Foundation

/// A url-encoded form as the editor shows it: `name=value&…`, percent-encoded except for the
/// `{{templates}}` in it, which stay readable and are filled in when the form is sent.
enum FormText {
    /// The text of a form's fields.
    static func text(of params: Parameters) -> String {
        params.map { encoded($0.key) + "=" + encoded($0.value.textValue) }.joined(separator: "&")
    }

    /// The fields of a form's text, decoded (`+` is a space), templates as written.
    static func fields(of text: String) -> [(name: String, value: String)] {
        text.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decoded(_ part: Substring) -> String {
                let spaced = part.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            return (decoded(parts[0]), parts.count > 1 ? decoded(parts[1]) : "")
        }
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
