/// Fills in the templates of a JSON body's text by where they stand: inside a JSON string, or
/// between strings (`{"n": {{n}}}`). The text is told apart by its quotes alone, so a body that
/// reads as JSON only once filled in is filled in all the same. The chain's runner, the editor
/// and a workspace's `body:` entries under a JSON type all fill JSON bodies through it.
public enum JSONTemplateFill {
    /// `text` with each string that holds `{{` read (its escapes decoded), passed whole to
    /// `string`, and written back escaped as JSON writes it: whatever `string` fills in (a quote,
    /// a backslash) stays inside that string. The text between strings is passed to `elsewhere`
    /// where it holds `{{`. Strings without `{{` stay as typed. A string whose escapes do not
    /// read as JSON is passed to `string` as typed, and what comes back is sealed: a quote not
    /// escaped, a control character and a backslash left dangling at the end are escaped, so
    /// that it still ends where it ended.
    ///
    /// When the filled text reads as JSON and two members of one object came to one name (a
    /// captured `role` beside a member `role`), it fails with what `repeatedName` makes of the
    /// name: JSON parsers disagree on which of the two counts.
    public static func fill<Failure: Error>(_ text: String, string: (String) throws(Failure) -> String,
                                            elsewhere: (String) throws(Failure) -> String,
                                            repeatedName: (String) -> Failure) throws(Failure) -> String {
        guard text.contains("{{") else { return text }
        let filled = try filling(text, string: string, elsewhere: elsewhere)
        if let name = (try? JSONValue.parse(filled))?.repeatedMemberName { throw repeatedName(name) }
        return filled
    }

    /// A JSON body's text written so that filling it in (`fill`) gives it back: each string's
    /// `{{` escaped in the string as it reads (`TemplateEscape`, then JSON's escapes again), and
    /// the `{{` between strings as written. A string whose escapes do not read as JSON is
    /// escaped as typed; where that makes it read as JSON (a `\` before `{{`, `"\{{x}}"`), it is
    /// then sent as JSON reads it.
    public static func escapingTemplates(in text: String) -> String {
        guard text.contains("{{") else { return text }
        return filling(text, string: TemplateEscape.escaping, elsewhere: TemplateEscape.escaping)
    }

    /// Why a body whose templates gave two members of one object the same name is refused.
    public static func repeatedNameProblem(_ name: String) -> String {
        "two members are named \"\(ClippedText.plain(name, limit: 80))\" once their templates are filled in"
    }

    private static func filling<Failure: Error>(_ text: String, string: (String) throws(Failure) -> String,
                                                elsewhere: (String) throws(Failure) -> String) throws(Failure) -> String {
        let bytes = text.utf8
        var output = ""
        var segmentStart = bytes.startIndex
        var inString = false
        var escaped = false
        var index = bytes.startIndex
        // Each segment is cut at a quote: the text before a string, or a string's content.
        func flush(upTo end: String.UTF8View.Index) throws(Failure) {
            let segment = String(Substring(bytes[segmentStart..<end]))
            if inString {
                output += try filledString(segment, string)
            } else {
                output += segment.contains("{{") ? try elsewhere(segment) : segment
            }
        }
        while index != bytes.endIndex {
            let byte = bytes[index]
            if inString, escaped {
                escaped = false
            } else if inString, byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                try flush(upTo: index)
                output += "\""
                inString.toggle()
                segmentStart = bytes.index(after: index)
            }
            index = bytes.index(after: index)
        }
        try flush(upTo: bytes.endIndex)
        return output
    }

    /// A string's content (between its quotes) filled in whole and escaped again.
    private static func filledString<Failure: Error>(_ content: String, _ string: (String) throws(Failure) -> String) throws(Failure) -> String {
        guard content.contains("{{") else { return content }
        guard case .string(let decoded)? = try? JSONValue.parse("\"" + content + "\"") else { return sealed(try string(content)) }
        var escaped = ""
        JSONValue.writeStringContents(try string(decoded), to: &escaped)
        return escaped
    }

    /// A string's content with every quote that would end it, every control character and a
    /// dangling final backslash escaped; escapes already there are kept.
    private static func sealed(_ content: String) -> String {
        var output = ""
        var escaping = false
        for scalar in content.unicodeScalars {
            if escaping {
                escaping = false
                output.unicodeScalars.append(scalar)
            } else if scalar == "\\" {
                escaping = true
                output.unicodeScalars.append(scalar)
            } else if scalar == "\"" || scalar.value < 0x20 {
                JSONValue.writeStringContents(String(scalar), to: &output)
            } else {
                output.unicodeScalars.append(scalar)
            }
        }
        if escaping { output += "\\" }
        return output
    }
}
