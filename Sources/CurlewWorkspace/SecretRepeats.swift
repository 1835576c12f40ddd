import CurlewAgent
import CurlewSessions
import Foundation

/// The secrets an entry names, put as a `{{name}}` where the entry repeats their values
/// elsewhere: a token typed into an `Authorization` header and again into a URL's path, a
/// parameter no secret name marks, another header or the body. A credential with a scheme
/// (`Bearer …`, `Basic …`) is looked for as a log hides it (`RedactionPolicy.hiddenForms`): its
/// token alone, a `Basic` one's password; a cookie header's values pair by pair. Such a part
/// becomes a secret of its own where it is repeated. The entry reads back the same; the
/// workspace file, which is committed, no longer holds them in clear.
///
/// Only forms of eight bytes or more, the length at which a log hides a credential wherever it
/// appears: a shorter one (`1234`) would turn a port or a count into a reference. Forms holding
/// a template's braces or a backslash stay out, since the text they would be found in may write
/// them escaped, and so does a JSON body with an escape in it, whose strings a reference would
/// have written again with other escapes.
struct SecretRepeats {
    /// Each form, longest first, with the secret holding it when there is one already.
    private var forms: [(text: String, secret: String?)] = []
    private let request: String

    /// The secrets of `collection` that `entry` (already moved) names, and those added from
    /// `first` on, for the entry `request`.
    init(movedFrom request: String, entry: Request, in collection: inout ImportedCollection, from first: Int) {
        self.request = request
        let named = collection.secretPositions(named: Self.referencedNames(in: entry)).filter { $0 < first }
        let secrets = named.map { collection.secrets[$0] } + collection.secrets[first...]
        var seen: Set<String> = []
        for secret in secrets {
            for (form, whole) in Self.forms(of: secret.value)
            where form.utf8.count >= 8 && !form.contains("{{") && !form.contains("}}") && !form.contains("\\") && seen.insert(form).inserted {
                forms.append((form, whole ? secret.name : nil))
            }
        }
        forms.sort { $0.text.utf8.count > $1.text.utf8.count }
    }

    /// The forms of a credential's value looked for, and whether each is the value whole: a
    /// cookie header's pairs' values, else the forms a log hides.
    private static func forms(of value: String) -> [(String, Bool)] {
        let pairs = value.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        let isCookie = pairs.count > 1 || pairs.first.map { pair in pair.firstIndex(of: "=").map { !pair[..<$0].contains(" ") } ?? false } ?? false
        if isCookie {
            return [(value, true)] + pairs.compactMap { pair in pair.firstIndex(of: "=").map { (String(pair[pair.index(after: $0)...]), false) } }
        }
        return RedactionPolicy.hiddenForms(ofCredential: value).enumerated().map { ($0.element, $0.offset == 0 && $0.element == value) }
    }

    /// The `{{name}}`s an entry's URL, path, headers, parameters and text body use.
    private static func referencedNames(in request: Request) -> Set<String> {
        var names = Set(Template.names(in: request.customURL ?? "") + Template.names(in: request.path))
        for field in request.headers { names.formUnion(Template.names(in: field.value)) }
        func collect(_ value: JSONValue) {
            switch value {
            case .string(let text): names.formUnion(Template.names(in: text))
            case .array(let elements): elements.forEach(collect)
            case .object(let members): members.forEach { collect($0.value) }
            default: break
            }
        }
        collect(.object(request.params.entries))
        if case .raw(let data, _) = request.requestSerializer { names.formUnion(Template.names(in: String(decoding: data, as: UTF8.self))) }
        return names
    }

    /// `request` with the forms' repeats as references, in its URL, path, headers, parameters
    /// and text body; `collection` holds any form that became a secret of its own.
    mutating func replacing(in request: Request, into collection: inout ImportedCollection, avoiding taken: Set<String>) -> Request {
        guard !forms.isEmpty else { return request }
        var request = request
        request.customURL = request.customURL.map { replacing($0, into: &collection, avoiding: taken) }
        request.path = replacing(request.path, into: &collection, avoiding: taken)
        var headers = HTTPHeaders()
        for field in request.headers { headers.add(field.name, replacing(field.value, into: &collection, avoiding: taken)) }
        request.headers = headers
        request.params = replacing(in: request.params, into: &collection, avoiding: taken)
        if case .raw(let data, let contentType) = request.requestSerializer, let text = String(data: data, encoding: .utf8),
           !(text.contains("\\") && (contentType.lowercased().contains("json") || text.first(where: { !$0.isWhitespace }).map({ $0 == "{" || $0 == "[" }) == true)) {
            let replaced = replacing(text, into: &collection, avoiding: taken)
            if replaced != text { request.requestSerializer = .raw(Data(replaced.utf8), contentType: contentType) }
        }
        return request
    }

    /// `parameters` with the forms' repeats in their strings as references.
    mutating func replacing(in parameters: Parameters, into collection: inout ImportedCollection, avoiding taken: Set<String>) -> Parameters {
        guard !forms.isEmpty else { return parameters }
        return Parameters(parameters.entries.map { JSONMember($0.key, replacing(in: $0.value, into: &collection, avoiding: taken)) })
    }

    private mutating func replacing(in value: JSONValue, into collection: inout ImportedCollection, avoiding taken: Set<String>) -> JSONValue {
        value.mappingStrings(namesToo: false) { replacing($0, into: &collection, avoiding: taken) }
    }

    /// `text` with each form's repeats as a reference, longest form first, except inside a
    /// `{{…}}` already there (a reference just made among them) and right after a `{` or a `\`,
    /// where a reference would read as `{{{name}}}` or as escaped text. A search that meets such
    /// a place goes on past it, so each byte is compared a bounded number of times.
    private mutating func replacing(_ text: String, into collection: inout ImportedCollection, avoiding taken: Set<String>) -> String {
        guard forms.contains(where: { text.contains($0.text) }) else { return text }
        let bytes = Data(text.utf8)
        var covered = [Bool](repeating: false, count: bytes.count)
        for range in Template.templatedRanges(in: text) { for offset in range.clamped(to: 0..<bytes.count) { covered[offset] = true } }
        var references: [(range: Range<Int>, name: String)] = []
        for index in forms.indices {
            let needle = Array(forms[index].text.utf8)
            var from = 0
            while let found = bytes.firstRange(of: needle, in: from..<bytes.count) {
                if let lastCovered = found.last(where: { covered[$0] }) {
                    from = lastCovered + 1
                    continue
                }
                let before = found.lowerBound > 0 ? bytes[found.lowerBound - 1] : 0
                guard before != UInt8(ascii: "{"), before != UInt8(ascii: "\\") else {
                    from = found.lowerBound + 1
                    continue
                }
                let name = forms[index].secret ?? collection.keepSecret(forms[index].text, request: request, field: "credential", avoiding: taken)
                forms[index].secret = name
                references.append((found, name))
                for offset in found { covered[offset] = true }
                from = found.upperBound
            }
        }
        guard !references.isEmpty else { return text }
        var output = Data()
        var copied = 0
        for reference in references.sorted(by: { $0.range.lowerBound < $1.range.lowerBound }) {
            output.append(bytes[copied..<reference.range.lowerBound])
            output.append(contentsOf: "{{\(reference.name)}}".utf8)
            copied = reference.range.upperBound
        }
        output.append(bytes[copied...])
        return String(decoding: output, as: UTF8.self)
    }
}
