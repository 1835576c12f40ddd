import CurlewAgent
import CurlewSessions

/// What the editor says about a body while it is being written: valid, or where it is not.
/// `{{name}}` templates count as values, since they are filled in when the request is sent.
enum BodyCheck {
    /// A multipart body's parts counted, or the first line that does not read as a part.
    static func multipartSummary(_ text: String) -> (text: String, style: Style) {
        var values = 0
        var files = 0
        for (number, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated()
            where !line.trimmingCharacters(in: .whitespaces).isEmpty {
            do {
                switch try MultipartText.editorPart(String(line)) {
                case .value: values += 1
                case .file, .fileContent: files += 1
                }
            } catch {
                return ("✗ line \(number + 1): \(error.reason)", .bad)
            }
        }
        return ("✓ \(values + files) part\(values + files == 1 ? "" : "s") (\(files) file\(files == 1 ? "" : "s")) · name=value, name=@file;type=…;filename=…", .good)
    }

    /// A form body's fields counted, or why the text is no form of `name=value` pairs (JSON or
    /// text left from another mode, a piece without `=`, a line break), which would still be
    /// sent as fields.
    static func formSummary(_ text: String) -> (text: String, style: Style) {
        let fields = FormText.fields(of: text)
        let pieces = text.split(separator: "&", omittingEmptySubsequences: true)
        let problem = text.contains(where: \.isNewline) ? "it has a line break"
            : text.first == "{" || text.first == "[" ? "it reads like JSON"
            : pieces.first { !$0.contains("=") }.map { "\(ClippedText.quoted(String($0), limit: 30)) has no =" }
        guard let problem else { return ("✓ \(fields.count) field\(fields.count == 1 ? "" : "s") · name=value&…, percent-encoded", .good) }
        return ("✗ not name=value pairs (\(problem)): it would go out as \(fields.count) field\(fields.count == 1 ? "" : "s"); raw sends it as it is", .bad)
    }

    /// Nil when the text is JSON (with its templates taken as values), else the line, column
    /// and reason of the first mistake.
    static func jsonProblem(_ text: String) -> String? {
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return nil }
        let standIn = withTemplatesAsValues(text)
        do {
            _ = try JSONValue.parse(standIn)
            return nil
        } catch {
            let (line, column) = position(ofByte: error.offset, in: standIn)
            return "line \(line), column \(column): \(error.reason)"
        }
    }

    /// The body pretty-printed, when it is JSON without templates outside strings: indented,
    /// each number and string as typed.
    static func prettyJSON(_ text: String) -> String? {
        JSONLayout.indented(text)
    }

    /// Each `{{…}}` as `0` padded to its length, so offsets still point into the text as typed
    /// and a template stands for a value wherever one may be. An escaped `\{{` is the `{{` it
    /// sends, its backslash a space: text inside a string, a mistake outside one. In JSON's
    /// text a run of backslashes before `{{` escapes it only when it is odd: `\\` is JSON's own
    /// escaped backslash, and the template after it stands.
    private static func withTemplatesAsValues(_ text: String) -> String {
        var output = ""
        var rest = Substring(text)
        while let open = rest.firstRange(ofASCII: "{{") {
            let backslashes = rest[..<open.lowerBound].reversed().prefix { $0 == "\\" }.count
            if backslashes % 2 == 1 {
                output += rest[..<rest.index(before: open.lowerBound)] + " {{"
                rest = rest[open.upperBound...]
                continue
            }
            guard let close = rest[open.upperBound...].firstRange(ofASCII: "}}") else { break }
            output += rest[..<open.lowerBound]
            let length = rest[open.lowerBound..<close.upperBound].utf8.count
            output += "0" + String(repeating: " ", count: length - 1)
            rest = rest[close.upperBound...]
        }
        return output + rest
    }

    /// 1-based line and column (in characters) of a byte offset.
    static func position(ofByte offset: Int, in text: String) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        var consumed = 0
        for character in text {
            let size = character.utf8.count
            if consumed + size > offset { break }
            consumed += size
            if character.isNewline { line += 1; column = 1 } else { column += 1 }
        }
        return (line, column)
    }
}
