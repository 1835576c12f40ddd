import CurlewAgent
import Foundation

/// Multipart parts written one per line, as curl's `-F` takes them: `name=value`,
/// `name=@path;type=image/png;filename=me.png` for a file (read when the request is sent), and
/// `name=\@text` (or `\<`, `\\`) for a value that starts with one of those characters.
/// Compose edits a multipart body this way; the curl reader and `curlew send` read `-F` as curl
/// does (`part(_:literal:escapes:)` without escapes), which also reads a value's `;type=`.
public enum MultipartText {
    /// One line read.
    public enum Part: Sendable, Equatable {
        /// A value; curl's reading gives it a file name or a type when `;filename=` or `;type=` follow it.
        case value(name: String, String, filename: String? = nil, mimeType: String? = nil)
        /// `@path`: the file is sent as a file part.
        case file(name: String, path: String, filename: String?, mimeType: String?)
        /// `<path`: the file's text is sent as the value (curl's `-F name=<file`).
        case fileContent(name: String, path: String, mimeType: String?)

        /// The part of a form this line sends; a `<path` part's file is read by `readFile`.
        public func formPart<E: Error>(readingFile readFile: (String) throws(E) -> Data) throws(E) -> MultipartForm.Part {
            switch self {
            case .value(let name, let value, let filename, let mimeType):
                return MultipartForm.Part(name: name, content: .data(Data(value.utf8)), filename: filename, mimeType: mimeType)
            case .file(let name, let path, let filename, let mimeType):
                return MultipartForm.Part(name: name, content: .file(path: path), filename: filename, mimeType: mimeType)
            case .fileContent(let name, let path, let mimeType):
                return MultipartForm.Part(name: name, content: .data(try readFile(path)), mimeType: mimeType)
            }
        }
    }

    /// Why a line does not read as a part.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public var reason: String
        public var description: String { reason }
    }

    /// Reads one `-F` argument. `literal` (curl's `--form-string`) takes the value as it is;
    /// without `escapes` (curl's own reading) a backslash is text like any other.
    public static func part(_ line: String, literal: Bool = false, escapes: Bool = true) throws(Failure) -> Part {
        guard let equals = line.firstIndex(of: "=") else { throw Failure(reason: "\(shown(line)): a part is name=value or name=@file") }
        let name = String(line[..<equals])
        guard !name.trimmingCharacters(in: .whitespaces).isEmpty else { throw Failure(reason: "\(shown(line)): the part needs a name before =") }
        let rest = String(line[line.index(after: equals)...])
        if literal { return .value(name: name, rest) }
        if escapes, rest.hasPrefix("\\@") || rest.hasPrefix("\\<") || rest.hasPrefix("\\\\") { return .value(name: name, String(rest.dropFirst())) }
        guard let first = rest.first, first == "@" || first == "<" else { return escapes ? .value(name: name, rest) : try curlValue(rest, name: name, line: line) }
        let fields = rest.dropFirst().split(separator: ";", omittingEmptySubsequences: false).map(String.init)
        let path = fields.first ?? ""
        guard !path.isEmpty else { throw Failure(reason: "\(shown(line)): \(first) needs a file path") }
        var mimeType: String?
        var filename: String?
        for field in fields.dropFirst() {
            let option = field.trimmingCharacters(in: .whitespaces)
            if isOption(option, "type") {
                mimeType = String(option.dropFirst(5))
            } else if isOption(option, "filename") {
                filename = String(option.dropFirst(9)).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            } else if escapes {
                throw Failure(reason: "\(shown(line)): unknown option \(shown(option: option[...]).debugDescription) (type= or filename=)")
            } else {
                try refuseUnsent(option, line: line)
            }
        }
        try checkMediaType(mimeType, line: line, asCurlReads: !escapes)
        return first == "@" ? .file(name: name, path: path, filename: filename, mimeType: mimeType) : .fileContent(name: name, path: path, mimeType: mimeType)
    }

    /// A value as curl reads it after `name=`: past leading white space, a quoted word (`"a;b"`,
    /// with `\\"` and `\\\\` read; what follows it up to `;` is passed over, as curl warns) or
    /// the text up to the first `;` without trailing white space; then `;type=…` (with what
    /// follows it up to the next option, `type=text/plain;charset=utf-8`) and `;filename=…`
    /// (quoted, it may hold `;`). curl's `headers=` and `encoder=` are refused: the part would
    /// not be sent as curl sends it.
    private static func curlValue(_ written: String, name: String, line: String) throws(Failure) -> Part {
        let rest = written.drop { $0.isWhitespace }
        var value: String?
        var options = rest[rest.endIndex...]
        if rest.first == "\"" {
            var unescaped = ""
            var index = rest.index(after: rest.startIndex)
            while index < rest.endIndex {
                let character = rest[index]
                let next = rest.index(after: index)
                if character == "\\", next < rest.endIndex, rest[next] == "\"" || rest[next] == "\\" {
                    unescaped.append(rest[next])
                    index = rest.index(after: next)
                } else if character == "\"" {
                    value = unescaped
                    options = rest[(rest[next...].firstIndex(of: ";") ?? rest.endIndex)...]
                    break
                } else {
                    unescaped.append(character)
                    index = next
                }
            }
        }
        if value == nil {
            // Unquoted, or a quote that does not close: the text up to `;`.
            let semicolon = rest.firstIndex(of: ";") ?? rest.endIndex
            var word = rest[..<semicolon]
            while word.last?.isWhitespace == true { word = word.dropLast() }
            value = String(word)
            options = rest[semicolon...]
        }
        var filename: String?
        var mimeType: String?
        var afterType = false
        for field in curlOptions(options) {
            if isOption(field, "type") {
                mimeType = field.dropFirst(5).trimmingCharacters(in: .whitespaces)
                afterType = true
            } else if isOption(field, "filename") {
                filename = String(field.dropFirst(9)).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                afterType = false
            } else if isOption(field, "headers") || isOption(field, "encoder") {
                try refuseUnsent(field, line: line)
            } else if afterType {
                // curl reads what follows a type up to the next option as its parameters (`type=text/plain;charset=utf-8`).
                mimeType = (mimeType ?? "") + ";" + field
            }
        }
        try checkMediaType(mimeType, line: line, asCurlReads: true)
        return .value(name: name, value ?? "", filename: filename, mimeType: mimeType)
    }

    /// Refuses a `type=` that is empty or holds spaces or control characters, and, read as curl
    /// reads `-F`, one curl refuses ("Illegally formatted content-type field"): curl 7.88 wants up
    /// to 127 bytes other than `/` and space, a `/`, then at least one byte other than `;`, `,`,
    /// space and LF. The editor's lines take any other type, as the workspace does.
    private static func checkMediaType(_ mimeType: String?, line: String, asCurlReads: Bool) throws(Failure) {
        guard let mimeType else { return }
        var refused = mimeType.isEmpty || mimeType.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F })
        if asCurlReads {
            let bytes = Array(mimeType.utf8)
            let major = bytes.prefix { $0 != UInt8(ascii: "/") && $0 != 0x20 }
            let minor = bytes.dropFirst(major.count + 1).prefix { !";, \n".utf8.contains($0) }
            let hasSlash = bytes.count > major.count && bytes[major.count] == UInt8(ascii: "/")
            refused = refused || !(1...127).contains(major.count) || !hasSlash || minor.isEmpty
        }
        guard refused else { return }
        throw Failure(reason: "\(shown(line)): type= needs a media type such as image/png")
    }

    /// How a refusal quotes a part: a value hidden (it may be a password, and a log would hide
    /// it); a file's path, `type=` and `filename=` as written, and its other options by name.
    private static func shown(_ line: String) -> String {
        guard let equals = line.firstIndex(of: "=") else { return "\"…\" (a part of \(line.count) characters)" }
        let rest = line[line.index(after: equals)...]
        guard rest.first == "@" || rest.first == "<" else { return (ClippedText.nameOnly(line[...]) ?? line).debugDescription }
        let fields = rest.split(separator: ";", omittingEmptySubsequences: false)
        let options = fields.dropFirst().map(shown(option:))
        return ([String(line[...equals] + (fields.first ?? ""))] + options).joined(separator: ";").debugDescription
    }

    /// A part's option as a refusal names it: `type=` and `filename=` whole, another by its name
    /// (`headers=…`: a header's value may be a credential).
    private static func shown(option: Substring) -> String {
        let trimmed = String(option).trimmingCharacters(in: .whitespaces)
        return isOption(trimmed, "type") || isOption(trimmed, "filename") ? String(option) : ClippedText.nameOnly(option) ?? String(option)
    }

    /// Whether `option` is `name=…`, its name in any case (as curl compares them).
    private static func isOption(_ option: String, _ name: String) -> Bool {
        option.count > name.count && option.lowercased().hasPrefix(name + "=")
    }

    /// Refuses curl's `headers=` and `encoder=`: Curlew sends a part with its type and file name
    /// only, so the part would not go out as curl sends it.
    private static func refuseUnsent(_ option: String, line: String) throws(Failure) {
        let name = option.prefix { $0 != "=" }.lowercased()
        guard name == "headers" || name == "encoder" else { return }
        throw Failure(reason: "\(shown(line)): curl's \(name)= is not supported (Curlew sends a part's type and file name only)")
    }

    /// `;option;option…` split at each `;` outside double quotes (`filename="a;b.txt"` is one),
    /// each trimmed of white space.
    private static func curlOptions(_ text: Substring) -> [String] {
        var fields: [String] = []
        var current = ""
        var quoted = false
        for character in text {
            if character == "\"" { quoted.toggle() }
            if character == ";", !quoted {
                fields.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
            } else {
                current.append(character)
            }
        }
        fields.append(current.trimmingCharacters(in: .whitespaces))
        return fields.filter { !$0.isEmpty }
    }

    /// A form of every non-empty line, each text field passed through `expand` (templates).
    /// `<file` parts are refused: the editor sends files as file parts.
    public static func form<E: Error>(_ text: String, expand: (String) throws(E) -> String) throws -> MultipartForm {
        var form = MultipartForm()
        for line in text.split(whereSeparator: \.isNewline) where !line.trimmingCharacters(in: .whitespaces).isEmpty {
            switch try editorPart(String(line)) {
            case .value(let name, let value, _, _): form.append(name: try expand(name), value: try expand(value))
            case .file(let name, let path, let filename, let mimeType):
                form.append(name: try expand(name), fileAt: try expand(path), filename: try filename.map(expand), mimeType: mimeType)
            case .fileContent: break
            }
        }
        return form
    }

    /// A line of a body the editor holds: a value or a file part; `<file` (which would copy a
    /// file's text in) is refused.
    public static func editorPart(_ line: String) throws(Failure) -> Part {
        let read = try part(line)
        if case .fileContent = read { throw Failure(reason: "\(shown(line)): <file is not sent from the editor; name=@file attaches the file") }
        return read
    }

    /// The lines of a form, or nil when a part cannot be written as one (a value with a line
    /// break or bytes that are not text, a value part with a file name or type, extra headers).
    public static func text(of form: MultipartForm) -> String? {
        try? lines(of: form).get()
    }

    /// Why a form's part cannot be written as a line, naming the part; nil when every one can.
    public static func unwritablePart(of form: MultipartForm) -> String? {
        if case .failure(let reason) = lines(of: form) { return reason.text }
        return nil
    }

    /// A reason a part cannot be a line.
    public struct Unwritable: Error {
        public let text: String
    }

    private static func lines(of form: MultipartForm) -> Result<String, Unwritable> {
        var lines: [String] = []
        for part in form.parts {
            let named = "the part " + ClippedText.plain(part.name).debugDescription
            guard part.headers.isEmpty else { return .failure(Unwritable(text: "\(named) has headers of its own")) }
            guard !part.name.contains("="), !part.name.contains(where: \.isNewline) else {
                return .failure(Unwritable(text: "\(named) has a name with \"=\" or a line break"))
            }
            switch part.content {
            case .data(let data):
                guard let value = String(validating: data, as: UTF8.self) else { return .failure(Unwritable(text: "\(named) holds bytes that are not text")) }
                guard !value.contains(where: \.isNewline) else { return .failure(Unwritable(text: "\(named) has a value of several lines")) }
                guard part.filename == nil, part.mimeType == nil else {
                    let given = [part.mimeType.map { "a type (\($0))" }, part.filename.map { "a file name (\($0))" }].compactMap { $0 }.joined(separator: " and ")
                    return .failure(Unwritable(text: "\(named) gives its text value \(ClippedText.plain(given))"))
                }
                let escaped = value.hasPrefix("@") || value.hasPrefix("<") || value.hasPrefix("\\") ? "\\" + value : value
                lines.append("\(part.name)=\(escaped)")
            case .file(let path):
                guard !path.contains(";"), !path.contains(where: \.isNewline), part.filename.map({ !$0.contains(";") && !$0.contains(where: \.isNewline) }) ?? true,
                      part.mimeType.map({ !$0.contains(";") }) ?? true else {
                    return .failure(Unwritable(text: "\(named) names a file, a file name or a type with \";\" or a line break"))
                }
                lines.append("\(part.name)=@\(path)" + (part.mimeType.map { ";type=\($0)" } ?? "") + (part.filename.map { ";filename=\($0)" } ?? ""))
            }
        }
        return .success(lines.joined(separator: "\n"))
    }
}
