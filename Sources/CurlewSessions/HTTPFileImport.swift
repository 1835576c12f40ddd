import CurlewAgent
import Foundation

/// Reads `.http` files (JetBrains HTTP Client and VS Code REST Client): requests separated by
/// `###`, `@name = value` variables, `# @name` names, `#` and `//` comments, headers, bodies and
/// `< file` bodies. A `{{login.response.body.$.token}}` reference becomes a chain: `login`
/// captures the value and the request that uses it reads `{{login_token}}`.
public enum HTTPFileImport {
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public var line: Int
        public var reason: String
        public var description: String { "line \(line): \(reason)" }
    }

    static let methods: Set<String> = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE", "CONNECT"]

    /// `line` with each `{{` that no `}}` closes before the next `{{` on the same line (or that
    /// only `}}` closes, naming nothing) written `\{{`: the .http clients take a variable within
    /// one line, unnested, and send such a `{{` as it is, so the workspace reads it as text (`@pw = Sup3r{{cret`, `{{ {{x}}`, a body's
    /// `{{` closed lines later) instead of failing on a template without its end. What is left
    /// unescaped never nests, so the workspace's templates pair it as the clients do.
    static func literalUnclosedTemplates(_ line: String) -> String {
        guard line.contains("{{") else { return line }
        var written = ""
        var rest = Substring(line)
        // The first `}}` not before where the search stands, found again only once passed: a
        // line of many `{{` and one late `}}` (or none) is read once, not once per `{{`.
        var close = rest.firstRange(ofASCII: "}}")
        while let open = rest.firstRange(ofASCII: "{{") {
            let after = rest[open.upperBound...]
            if let found = close, found.lowerBound < open.upperBound { close = after.firstRange(ofASCII: "}}") }
            // `{{}}` names nothing: the clients send it as it is.
            if let close, after.firstRange(ofASCII: "{{").map({ close.lowerBound <= $0.lowerBound }) ?? true,
               !rest[open.upperBound..<close.lowerBound].allSatisfy(\.isWhitespace) {
                written += rest[..<close.upperBound]
                rest = rest[close.upperBound...]
            } else {
                written += rest[..<open.lowerBound] + "\\{{"
                rest = after
            }
        }
        return written + rest
    }

    /// `directory` resolves `< file` bodies.
    public static func parse(_ text: String, directory: String = ".") throws(Failure) -> ImportedCollection {
        var collection = ImportedCollection()
        let lines = text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false)
        var blocks: [(title: String?, lines: [(number: Int, text: String)])] = [(nil, [])]
        for (index, line) in lines.enumerated() {
            // A title is a name, not a template: read before `{{` is made text.
            if line.hasPrefix("###") { blocks.append((separatorTitle(String(line)), [])); continue }
            blocks[blocks.count - 1].lines.append((index + 1, literalUnclosedTemplates(String(line))))
        }
        var found: [(item: ImportedCollection.Item, line: Int, named: Bool)] = []
        for block in blocks {
            guard let request = try request(in: block.lines, titled: block.title, directory: directory,
                                            variables: &collection.variables, notes: &collection.notes) else { continue }
            found.append(request)
        }
        // A variable set again takes the place of the one before, at the end: kept once, where
        // it was last set.
        var set: Set<String> = []
        collection.variables = collection.variables.reversed().filter { set.insert($0.name).inserted }.reversed()
        // `# @name`s first, as references use them; titles and made-up names after, numbered
        // where one is taken.
        var names = UniqueNames(taken: [])
        let written = found.map(\.item.name)
        for index in found.indices where found[index].named { found[index].item.name = names.claim(found[index].item.name) }
        for index in found.indices where !found[index].named { found[index].item.name = names.claim(found[index].item.name) }
        for index in found.indices where found[index].named && found[index].item.name != written[index] {
            let (given, imported) = (ImportedCollection.shown(written[index]), ImportedCollection.shown(found[index].item.name))
            collection.notes.append("line \(found[index].line): a second request named \(given) is imported as \(imported); "
                                    + "\(given).response after it reads this one's answer, as the file runs")
        }
        var references: [(user: String, source: String, path: String, variable: String)] = []
        var firstLines: [String: Int] = [:]
        // A captured value never takes a name the file gives a variable of its own.
        let fileVariables = Set(collection.variables.map(\.name))
        var referenceNames = ReferenceNames(avoiding: fileVariables)
        // The request last `# @name`d so above the one being read, by the name as written.
        var nearestNamed: [String: Int] = [:]
        for (index, (block, requestLine, named)) in found.enumerated() {
            var item = block
            firstLines[item.name] = requestLine
            let before = references.count
            item.request = rewriteReferences(in: item.request, user: item.name, references: &references, naming: &referenceNames)
            // A name given twice: its response is the latest one received before this request,
            // from the request `# @name`d so nearest above it.
            for reference in before..<references.count {
                if let nearest = nearestNamed[references[reference].source] {
                    references[reference].source = collection.items[nearest].name
                }
            }
            if named { nearestNamed[written[index]] = index }
            collection.items.append(item)
        }
        // A response can only be used after the request that receives it.
        var positions: [String: Int] = [:]
        for (index, item) in collection.items.enumerated() where positions[item.name] == nil { positions[item.name] = index }
        for reference in references {
            guard let source = positions[reference.source],
                  source < positions[reference.user] ?? collection.items.count else {
                throw Failure(line: firstLines[reference.user] ?? 1,
                              reason: "\(reference.user) uses \(reference.source).response, but no request before it is named \(reference.source) (# @name \(reference.source))")
            }
        }
        if !references.isEmpty {
            // One chain in file order, up to the last request that uses a captured value.
            let lastUser = references.compactMap { positions[$0.user] }.max() ?? 0
            var bySource: [String: [(path: String, variable: String)]] = [:]
            for reference in references { bySource[reference.source, default: []].append((reference.path, reference.variable)) }
            var steps: [(request: String, captures: [Capture])] = []
            for item in collection.items[...lastUser] {
                var captures: [Capture] = []
                var captured: Set<String> = []
                for reference in bySource[item.name] ?? [] where captured.insert(reference.variable).inserted {
                    captures.append(capture(reference.variable, reference.path))
                }
                steps.append((item.name, captures))
            }
            collection.chains.append(.init(name: "chain", steps: steps))
        }
        return collection
    }

    /// The title a `###` separator gives the request after it (`### Log in`), as the JetBrains
    /// client names it; a `# @name` in the block wins. A rule of only `#`, `-`, `=`, `*`, `~` or
    /// `_` (`### -----`) names nothing, and neither does a request line (`### GET /x`, a method
    /// in capitals as a request line writes it; `### Get all users` is a title) or any title
    /// holding a URL (`### GET http://h/x`, as an export titles an unnamed request), which may
    /// hold a password or a token: such a request is named from its method and path, its URL's
    /// password left out.
    static func separatorTitle(_ line: String) -> String? {
        let title = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)
        guard title.contains(where: { !"#-=*~_".contains($0) && !$0.isWhitespace }), !title.contains("://"),
              title.split(separator: " ", maxSplits: 1).first.map({ methods.contains(String($0)) }) != true else { return nil }
        return title
    }

    /// The request a block holds, with the number of its request line and whether a `# @name`
    /// named it (else its separator's `title` or its method and path do); nil for a block of
    /// comments and variables only.
    private static func request(in block: [(number: Int, text: String)], titled title: String?, directory: String,
                                variables: inout [(name: String, value: String)], notes: inout [String]) throws(Failure) -> (item: ImportedCollection.Item, line: Int, named: Bool)? {
        var name: String?
        var index = 0
        // Comments, names and variables before the request line.
        while index < block.count {
            let line = block[index].text.trimmingCharacters(in: .whitespaces)
            if line.isEmpty { index += 1; continue }
            if line.hasPrefix("#") || line.hasPrefix("//") {
                let comment = line.drop { $0 == "#" || $0 == "/" }.trimmingCharacters(in: .whitespaces)
                if comment.hasPrefix("@name") {
                    let rest = comment.dropFirst(5).trimmingCharacters(in: CharacterSet(charactersIn: " =")).trimmingCharacters(in: .whitespaces)
                    if !rest.isEmpty { name = rest }
                }
                index += 1
                continue
            }
            if line.hasPrefix("@") {
                guard let equals = line.firstIndex(of: "=") else {
                    throw Failure(line: block[index].number, reason: "a variable needs a value: @name = value")
                }
                let variable = line[line.index(after: line.startIndex)..<equals].trimmingCharacters(in: .whitespaces)
                guard !variable.isEmpty, !variable.contains(where: \.isWhitespace) else {
                    throw Failure(line: block[index].number, reason: "a variable needs a name without spaces: @name = value")
                }
                variables.append((variable, line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)))
                index += 1
                continue
            }
            break
        }
        guard index < block.count else { return nil }
        let requestLineNumber = block[index].number
        var words = block[index].text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        index += 1
        var method = "GET"
        // A known method in any case; any other method in capitals before a URL (`PROPFIND`,
        // `MKCALENDAR`, as an export writes what a log holds).
        if let first = words.first, methods.contains(first.uppercased()) {
            method = first.uppercased()
            words.removeFirst()
        } else if words.count >= 2, let first = words.first, first == first.uppercased(), first.contains(where: \.isLetter),
                  (try? HTTPMethod(rawValue: first).validate()) != nil {
            method = first
            words.removeFirst()
        } else if words.count >= 2, let first = words.first, first.allSatisfy({ $0.isASCII && $0.isLetter }),
                  URLText.startsWithScheme(words[1]) || words[1].hasPrefix("/") || words[1].hasPrefix("{{") {
            // Any other method in small letters, before what can only be a URL (`purge http://h/`),
            // in capitals, as the common ones are read.
            method = first.uppercased()
            words.removeFirst()
        }
        if words.count > 1, words.last!.uppercased().hasPrefix("HTTP/") { words.removeLast() }
        guard words.count == 1 else { throw Failure(line: requestLineNumber, reason: "expected METHOD URL [HTTP/version], found \(ImportQuote.quoted(block[index - 1].text, limit: 60))") }
        var url = words[0]
        // Query lines that continue the URL (`?a=1`, `&b=2`).
        while index < block.count {
            let line = block[index].text.trimmingCharacters(in: .whitespaces)
            guard line.hasPrefix("?") || line.hasPrefix("&") else { break }
            url += line
            index += 1
        }
        var headers = HTTPHeaders()
        while index < block.count {
            let line = block[index].text
            index += 1
            if line.trimmingCharacters(in: .whitespaces).isEmpty { break }
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("#") || trimmed.hasPrefix("//") {
                // An export that could not hold the body said so: the request comes without it.
                if let size = HTTPFileExport.sizeLeftOut(saidBy: trimmed.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)) {
                    notes.append("line \(block[index - 1].number): the file says its body of \(size) bytes was not written (an .http file cannot hold it as sent); "
                                 + "the request is imported without a body")
                }
                continue
            }
            guard let colon = line.firstIndex(of: ":") else {
                throw Failure(line: block[index - 1].number, reason: "expected a header (Name: value) or a blank line before the body")
            }
            headers.add(String(line[..<colon]).trimmingCharacters(in: .whitespaces), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var bodyLines: [String] = []
        var inHandler = false
        while index < block.count {
            let line = block[index].text
            index += 1
            if line.hasPrefix("> {%") { inHandler = !line.contains("%}"); notes.append("line \(block[index - 1].number): a response handler script is not imported"); continue }
            if inHandler { if line.contains("%}") { inHandler = false }; continue }
            if line.hasPrefix("<> ") || line.hasPrefix(">> ") { continue }
            bodyLines.append(line)
        }
        while let last = bodyLines.last, last.trimmingCharacters(in: .whitespaces).isEmpty { bodyLines.removeLast() }
        var request = Request(HTTPMethod(rawValue: method), "")
        request.customURL = ImportedCollection.translatingBuiltins(url)
        request.headers = HTTPHeaders(headers.map { HeaderField(name: $0.name, value: ImportedCollection.translatingBuiltins($0.value)) })
        if bodyLines.count == 1, bodyLines[0].hasPrefix("< ") {
            let path = String(bodyLines[0].dropFirst(2)).trimmingCharacters(in: .whitespaces)
            request.uploadFile = path.hasPrefix("/") ? path : (directory as NSString).appendingPathComponent(path)
        } else if !bodyLines.isEmpty {
            let contentType = headers["Content-Type"] ?? "text/plain; charset=utf-8"
            // A multipart body's lines end in CRLF on the wire, as the .http clients send them
            // (and as an export of one wrote them), its last line too.
            let text = contentType.lowercased().hasPrefix("multipart/") ? bodyLines.joined(separator: "\r\n") + "\r\n" : bodyLines.joined(separator: "\n")
            request.requestSerializer = .raw(Data(ImportedCollection.translatingBuiltins(text).utf8), contentType: contentType)
        }
        return (.init(name: name ?? title ?? ImportedCollection.defaultName(method: method, url: url, sentWith: request.headers.fields), request: request),
                requestLineNumber, name != nil)
    }

    /// `{{name.response.body.$.a}}` and `{{name.response.headers.X}}` become `{{name_a}}` and
    /// `{{name_X}}`, noted for the chain.
    /// The variables references are captured into: one for each request's name and path as
    /// written, numbered where another path spells the same (`$.a.b` and `$.ab` are both `ab`),
    /// never a name the file gives a variable of its own.
    private struct ReferenceNames {
        private var variableOf: [String: String] = [:]
        private var names: UniqueNames

        init(avoiding fileVariables: Set<String>) {
            names = UniqueNames(taken: fileVariables, separator: "_")
        }

        mutating func variable(source: String, path: String, base: String) -> String {
            let key = source + "\u{0}" + path
            if let known = variableOf[key] { return known }
            let variable = names.claim(base)
            variableOf[key] = variable
            return variable
        }
    }

    private static func rewriteReferences(in request: Request, user: String,
                                          references: inout [(user: String, source: String, path: String, variable: String)],
                                          naming names: inout ReferenceNames) -> Request {
        func rewrite(_ text: String) -> String {
            guard text.contains(".response.") else { return text }
            var output = ""
            var rest = Substring(text)
            while let open = rest.firstRange(ofASCII: "{{") {
                // A `{{` the import made text (`\{{`) starts no reference.
                if open.lowerBound > rest.startIndex, rest[rest.index(before: open.lowerBound)] == "\\" {
                    output += rest[..<open.upperBound]
                    rest = rest[open.upperBound...]
                    continue
                }
                guard let close = rest[open.upperBound...].firstRange(ofASCII: "}}") else { break }
                output += rest[..<open.lowerBound]
                let inner = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
                if let marker = inner.range(of: ".response.") {
                    let source = String(inner[..<marker.lowerBound])
                    let path = String(inner[marker.upperBound...])
                    let tail = path.hasPrefix("body.") ? String(path.dropFirst(5)) : path
                    let slug = tail.replacingOccurrences(of: "headers.", with: "").filter { $0.isLetter || $0.isNumber || $0 == "_" }
                    let base = "\(source.filter { $0.isLetter || $0.isNumber || $0 == "_" })_\(slug.isEmpty ? "value" : slug)"
                    let variable = names.variable(source: source, path: path, base: base)
                    references.append((user, source, path, variable))
                    output += "{{\(variable)}}"
                } else {
                    output += rest[open.lowerBound..<close.upperBound]
                }
                rest = rest[close.upperBound...]
            }
            return output + rest
        }
        var request = request
        request.customURL = request.customURL.map(rewrite)
        request.headers = HTTPHeaders(request.headers.map { HeaderField(name: $0.name, value: rewrite($0.value)) })
        if case .raw(let data, let type) = request.requestSerializer, let text = String(data: data, encoding: .utf8) {
            request.requestSerializer = .raw(Data(rewrite(text).utf8), contentType: type)
        }
        return request
    }

    private static func capture(_ variable: String, _ path: String) -> Capture {
        if path.hasPrefix("headers.") { return Capture(variable, from: .header(String(path.dropFirst(8)))) }
        let body = path.hasPrefix("body.") ? String(path.dropFirst(5)) : path
        return .json(variable, body.hasPrefix("$") ? body : "$." + body)
    }
}
