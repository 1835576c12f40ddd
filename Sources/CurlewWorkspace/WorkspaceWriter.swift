import CurlewAgent
import CurlewSessions
import Foundation
import Yams

/// Adds requests to a workspace file. New entries go at the end of its `requests:` block as text,
/// so the user's order, comments and every other field stay exactly as written; names already
/// taken get a numbered suffix. The result is loaded again before it replaces the file.
public enum WorkspaceWriter {
    /// What an addition did: the names given to new requests and groups, and what was left out.
    public struct Summary: Sendable {
        public var requests: [String] = []
        public var groups: [String] = []
        public var variables: [String] = []
        public var environments: [String] = []
        public var secrets: [String] = []
        /// Names already in the workspace, left as they were.
        public var kept: [String] = []
    }

    /// Adds an imported collection: requests, chains as groups, variables and environments not
    /// already defined, and secret values to the secrets file beside the workspace.
    public static func add(_ collection: ImportedCollection, to path: String) throws(WorkspaceError) -> Summary {
        let exists = FileManager.default.fileExists(atPath: path)
        let existing = exists ? try Workspace.load(path: path) : nil
        var summary = Summary()
        let original = exists ? try YAMLDocument.readText(path: path) : "# Curlew workspace: see the README's Workspaces section.\n"
        // Lines are edited with `\n` ends; a CRLF (or CR) file gets its own ends back when written.
        var document = normalizingLineEnds(original)
        let secretsPath = secretsPath(for: path, existing: existing)
        let storedSecrets = try WorkspaceSecrets.load(path: secretsPath)
        var collection = collection
        // Files the import named from where it ran, named from where the workspace reads them.
        collection.relocateLocalFiles(from: FileManager.default.currentDirectoryPath, to: existing?.directory ?? LocalFile.directory(of: path))
        // Names a new credential must not take: every variable and secret already defined.
        let definedNames = definedNames(existing, storedSecrets)
        keepingReferencedCredentials(in: &collection)
        renamingGeneratedSecrets(in: &collection, avoiding: definedNames)

        // A generated secret's name must not be one of the import's own variables either.
        let takenNames = definedNames.union(collection.variables.map(\.name)).union(collection.environments.flatMap { $0.variables.map(\.name) })
        movingURLCredentialsOfVariables(in: &collection, existing: existing, definedNames: definedNames, avoiding: takenNames)
        var requestNames = UniqueNames(taken: existing?.requests.map(\.name) ?? [])
        var renamed: [String: String] = [:]
        var entries: [(Node, Node)] = []
        for item in collection.items {
            func moved(named name: String, into target: inout ImportedCollection) -> (request: Request, query: Parameters) {
                let request = movingCredentials(of: target.isLiteral ? escapingTemplates(in: item.request) : item.request, named: name,
                                                into: &target, avoiding: takenNames)
                let movedQuery = movingCredentials(in: item.query, named: name, into: &target, avoiding: takenNames)
                var repeats = SecretRepeats(movedFrom: name, entry: request, in: &target, from: target.secrets.count)
                return (request, repeats.replacing(in: movedQuery, into: &target, avoiding: takenNames))
            }
            var name = requestNames.claim(item.name)
            // A name made from a path that repeats a credential the entry carries (`GET /k/TOKEN`
            // beside `X-Api-Key: TOKEN`) hides it, and so do the secrets' names made from it
            // (found by a new user's trial). Which values move is learnt by moving them into a
            // collection of the entry's alone first: undoing a move in the import's own would copy
            // its secrets for each entry.
            var alone = ImportedCollection()
            alone.isLiteral = collection.isLiteral
            _ = moved(named: name, into: &alone)
            let values = alone.secrets.map(\.value).filter { $0.utf8.count >= RedactionPolicy.minimumHiddenCredential }
            if values.contains(where: { name.contains($0) }) {
                name = requestNames.claim(values.reduce(name) { $0.replacingOccurrences(of: $1, with: RedactionPolicy.marker) })
            }
            let entry = moved(named: name, into: &collection)
            renamed[item.name] = name
            summary.requests.append(name)
            entries.append((text(name), node(for: entry.request, folder: item.folder, query: entry.query)))
        }
        if !entries.isEmpty { document = try insert(try serialize(entries), under: ["requests"], into: document, file: path) }

        var groupNames = UniqueNames(taken: existing?.groups.map(\.name) ?? [])
        var groups: [(Node, Node)] = []
        for chain in collection.chains {
            let name = groupNames.claim(chain.name)
            summary.groups.append(name)
            let steps = chain.steps.map { step -> Node in
                let request = renamed[step.request] ?? step.request
                guard !step.captures.isEmpty else { return text(request) }
                return .mapping(Node.Mapping([(Node("request"), text(request)),
                                              (Node("capture"), .mapping(Node.Mapping(step.captures.map { (text($0.name), text(captureSource($0.source))) })))]))
            }
            groups.append((text(name), .mapping(Node.Mapping([(Node("chain"), .sequence(Node.Sequence(steps)))]))))
        }
        if !groups.isEmpty { document = try insert(try serialize(groups), under: ["groups"], into: document, file: path) }

        let definedVariables = Set((existing?.variables.map(\.name) ?? []) + (existing?.secretNames ?? []))
        let variables = collection.variables.filter { pair in
            guard definedVariables.contains(pair.name) else { return true }
            let kept = existing?.variables.first { $0.name == pair.name }?.value ?? storedSecrets.shared.first { $0.name == pair.name }?.value
            let differs = kept.map { $0 != pair.value } ?? true
            summary.kept.append("variable \(pair.name)" + (differs ? Self.keptOverImport : ""))
            return false
        }
        if !variables.isEmpty {
            summary.variables = variables.map(\.name)
            document = try insert(try serialize(variables.map { (text($0.name), text($0.value)) }), under: ["variables"], into: document, file: path)
        }
        var environments: [(Node, Node)] = []
        for environment in collection.environments {
            if existing?.environmentNames.contains(environment.name) == true || summary.environments.contains(environment.name) {
                summary.kept.append("environment \(environment.name)")
                continue
            }
            summary.environments.append(environment.name)
            environments.append((Node(environment.name), .mapping(Node.Mapping(environment.variables.map { (text($0.name), text($0.value)) }))))
        }
        if !environments.isEmpty { document = try insert(try serialize(environments), under: ["environments"], into: document, file: path) }

        try write(document, original: original, to: path, existing: existing, secrets: collection.secrets,
                  stored: storedSecrets, at: secretsPath, summary: &summary)
        return summary
    }

    /// Credentials a request carries in clear (curl -u, a browser's cookies, a token typed into
    /// a header, a password or an `api_key` in the URL, a `password` in its body) moved to
    /// `collection`'s secrets; the workspace, which is committed, names them as variables.
    /// Headers and the URL of a literal collection are escaped as they are kept; its body comes
    /// here escaped already (see `escapingTemplates(in:)`).
    static func movingCredentials(of request: Request, named name: String, into collection: inout ImportedCollection,
                                  avoiding definedNames: Set<String>, secrets: RedactionPolicy = RedactionPolicy()) -> Request {
        let before = collection.secrets.count
        let moved = movingCredentialsWhereNamed(of: request, named: name, into: &collection, avoiding: definedNames, secrets: secrets)
        var repeats = SecretRepeats(movedFrom: name, entry: moved, in: &collection, from: before)
        return repeats.replacing(in: moved, into: &collection, avoiding: definedNames)
    }

    /// `movingCredentials(of:)` for the values that stand where a secret's name says so: a
    /// credential header, the URL's password and secret parameters, secret body members.
    private static func movingCredentialsWhereNamed(of request: Request, named name: String, into collection: inout ImportedCollection,
                                                    avoiding definedNames: Set<String>, secrets: RedactionPolicy) -> Request {
        var request = request
        // The password of a `Basic` credential about to become a secret (curl's `-u`), as it is and
        // percent-encoded, which the URL may repeat (`/basic-auth/user/PASS`, found by a new
        // user's trial: it stayed in clear).
        let basicForms = secrets.isSecretName("Authorization") ? request.headers["Authorization"].map(RedactionPolicy.basicPasswordForms) ?? [] : []
        request.customURL = request.customURL.map {
            movingCredentials(inURL: $0, named: name, into: &collection, avoiding: definedNames, secrets: secrets,
                              repeating: basicForms)
        }
        request.path = movingCredentials(inURL: request.path, named: name, into: &collection, avoiding: definedNames, secrets: secrets,
                                         repeating: basicForms)
        var headers = HTTPHeaders()
        for field in request.headers {
            // A credential header, or one named as the log hides a value (`Access-Token`, `ApiKey`).
            guard secrets.isSecretName(field.name),
                  let reference = secretReference(field.value, literal: collection.isLiteral, field: field.name, named: name,
                                                  into: &collection, avoiding: definedNames) else {
                let value = collection.isLiteral ? TemplateEscape.escaping(field.value) : field.value
                // A URL as the value (`Referer`, `Origin`) has its password and secret
                // parameters moved as the request's own URL has (found by a new user's trial).
                let isURL = ["http://", "https://"].contains { value.lowercased().hasPrefix($0) }
                headers.add(field.name, isURL ? movingCredentials(inURL: value, named: name, into: &collection, avoiding: definedNames, secrets: secrets) : value)
                continue
            }
            headers.add(field.name, reference)
        }
        request.headers = headers
        return movingBodyCredentials(of: request, named: name, into: &collection, avoiding: definedNames, secrets: secrets)
    }

    /// `url` with the password of its user info and the values of its secret query parameters
    /// (`secrets.isSecretName`) moved to secrets as `{{name}}`; values already holding a
    /// `{{template}}` stay, unless the collection is literal. Values are kept as written in the URL
    /// (percent-encoded), since `{{name}}` is put back verbatim. `basicForms`, the forms of the
    /// request's `Basic` credential (`RedactionPolicy.basicPasswordForms`: its password as it is
    /// and percent-encoded), are moved where the URL's path, query or fragment repeats them, each
    /// form that occurs to a secret holding that form's text, as the password of the URL's user
    /// info is.
    static func movingCredentials(inURL url: String, named name: String, into collection: inout ImportedCollection,
                                  avoiding taken: Set<String>, secrets: RedactionPolicy, depth: Int = 0,
                                  repeating basicForms: [String] = []) -> String {
        let literal = collection.isLiteral
        func kept(_ text: Substring) -> String { literal ? TemplateEscape.escaping(String(text)) : String(text) }
        var result = ""
        var rest = Substring(url)
        // The password moved, and its reference, for where the rest of the URL repeats it.
        var moved: (password: String, reference: String)?
        if let (authority, password) = authority(of: url, literal: literal) {
            result += kept(rest[..<authority.lowerBound])
            if let password, let hidden = secretReference(url[password], literal: literal, field: "password", named: name,
                                                          into: &collection, avoiding: taken) {
                result += kept(url[authority.lowerBound..<password.lowerBound]) + hidden + kept(url[password.upperBound..<authority.upperBound])
                moved = (kept(url[password]), hidden)
            } else {
                result += kept(url[authority])
            }
            rest = rest[authority.upperBound...]
        }
        // The query's pairs, and the fragment's (`#access_token=…`, as OAuth's implicit flow writes it).
        func movingPairs(_ pairs: Substring) -> String {
            WorkspaceWriter.movingPairs(pairs, literal: literal, named: name, into: &collection, avoiding: taken,
                                        secrets: secrets, depth: depth)
        }
        let hash = rest.firstIndex(of: "#") ?? rest.endIndex
        var tail: String
        if let question = rest[..<hash].firstIndex(of: "?") {
            tail = kept(rest[...question]) + movingPairs(rest[rest.index(after: question)..<hash])
        } else {
            tail = kept(rest[..<hash])
        }
        if hash < rest.endIndex { tail += "#" + movingPairs(rest[rest.index(after: hash)...]) }
        // A path or query that repeats the password (`/basic-auth/user/PASS`) names the same
        // secret, when the password is long enough to be looked for as a log looks for it. The
        // templates in it (the user's, and the references just made) are left whole (found by
        // review: a password inside a reference's name broke the reference). So are the forms of
        // the request's `Basic` password, each form's secret made only where it is replaced.
        // `secret`: a `Basic` form's value, whose secret is made at its first repeat (nil for the
        // user info's password, whose reference exists already, and once made).
        var passwords: [(text: String, secret: String?, reference: String?)] = moved.map { [($0.password, nil, $0.reference)] } ?? []
        for form in basicForms where !passwords.contains(where: { $0.text == kept(Substring(form)) }) {
            passwords.append((kept(Substring(form)), form, nil))
        }
        passwords.removeAll { $0.text.utf8.count < RedactionPolicy.minimumHiddenCredential }
        guard !passwords.isEmpty else { return result + tail }
        // A repeat with only some bytes percent-encoded (`p@ss%20w0rd`) is a form of its own:
        // its secret holds it as written, so the URL put back is the same bytes. Looked for: the
        // `Basic` forms as they are (curl's `-u` decodes nothing), and the user info's password
        // as it decodes; a hostile import's many spellings make at most `maximumSpelledForms`.
        let tailBytes = Array(tail.utf8)
        var searched = basicForms.map { Array($0.utf8) }
        if let moved {
            let written = Array(moved.password.utf8)
            searched.append(PercentDecodedView(written)?.bytes ?? written)
        }
        searched.removeAll { $0.count < RedactionPolicy.minimumHiddenCredential }
        // A spelling holding `{{` is left out: in the URL it is (or escapes) a template's start.
        var spelled = 0
        var unnamed = Set<String>()
        for range in PercentDecodedView.occurrences(of: searched, in: tailBytes) {
            let written = String(decoding: tailBytes[range], as: UTF8.self)
            guard !written.contains("{{"), !passwords.contains(where: { $0.text == written }) else { continue }
            guard spelled < Self.maximumSpelledForms else {
                unnamed.insert(written)
                continue
            }
            passwords.append((written, written, nil))
            spelled += 1
        }
        if !unnamed.isEmpty {
            collection.notes.append("\(name): the URL repeats a password in more than \(Self.maximumSpelledForms) spellings; "
                                    + "\(unnamed.count) of them stay in the URL as written (edit it before sharing the workspace)")
        }
        let texts = passwords.map(\.text)
        tail = Template.mappingLiteralRuns(in: tail) { run in
            var bytes: [UInt8] = []
            var copied = run.utf8.startIndex
            for found in Self.repeats(of: texts, in: run) {
                if let secret = passwords[found.which].secret {
                    passwords[found.which].secret = nil
                    passwords[found.which].reference = secretReference(secret, literal: literal, field: "password", named: name,
                                                                       into: &collection, avoiding: taken)
                }
                guard let reference = passwords[found.which].reference else { continue }
                bytes += run.utf8[copied..<found.range.lowerBound]
                bytes += reference.utf8
                copied = found.range.upperBound
            }
            bytes += run.utf8[copied...]
            return String(decoding: bytes, as: UTF8.self)
        }
        return result + tail
    }

    /// How many spellings of a URL's repeated password an import names beyond the forms it
    /// knows (`p@ss%20w0rd` beside `p%40ss%20w0rd`), so a hostile file cannot make thousands.
    static let maximumSpelledForms = 32

    /// Where `run` repeats one of `passwords`, in order: at each position the longest that starts
    /// there, none right after `{` or `\` (a reference put there would read as part of another
    /// template, `{{{name}}}`, or as escaped text, `\{{name}}`).
    static func repeats(of passwords: [String], in run: Substring) -> [(range: Range<Substring.Index>, which: Int)] {
        let utf8 = run.utf8
        let longestFirst = passwords.indices.sorted { passwords[$0].utf8.count > passwords[$1].utf8.count }
        var found: [(range: Range<Substring.Index>, which: Int)] = []
        var index = utf8.startIndex
        var previous: UInt8?
        while index < utf8.endIndex {
            if previous != UInt8(ascii: "{"), previous != UInt8(ascii: "\\"),
               let which = longestFirst.first(where: { utf8[index...].starts(with: passwords[$0].utf8) }) {
                let end = utf8.index(index, offsetBy: passwords[which].utf8.count)
                found.append((index..<end, which))
                previous = utf8[utf8.index(before: end)]
                index = end
            } else {
                previous = utf8[index]
                index = utf8.index(after: index)
            }
        }
        return found
    }

    /// `name=value&…` pairs of a URL (its query or fragment) with the values of secret
    /// parameters moved to secrets, kept as written (percent-encoded) since `{{name}}` is put back
    /// verbatim. A URL as a value (`next=http://bob:pw@h/`) has its own credentials moved, a few
    /// levels deep (a crafted import cannot nest it without end). With `literal`, kept text has
    /// its `{{` escaped.
    static func movingPairs(_ pairs: Substring, literal: Bool, named name: String, into collection: inout ImportedCollection,
                            avoiding taken: Set<String>, secrets: RedactionPolicy, depth: Int = 0) -> String {
        mappingPairs(pairs, in: .url, kept: { literal ? TemplateEscape.escaping(String($0)) : String($0) },
                     isSecret: { secrets.isSecretName($0) }) { key, value, secret in
            if secret, let hidden = secretReference(value, literal: literal, field: key, named: name, into: &collection, avoiding: taken) {
                return hidden
            }
            guard depth < 4, schemePart(of: String(value), literal: literal) != nil else { return nil }
            return movingCredentials(inURL: String(value), named: name, into: &collection, avoiding: taken,
                                     secrets: secrets, depth: depth + 1)
        }
    }

    /// `{{name}}` for a credential written in clear, whose value now goes to `collection`'s
    /// secrets. Nil for an empty value, one a log hid (`[REDACTED]`, from a HAR), left for the
    /// user to fill in, and one holding a `{{template}}`. Unless `literal`, an escaped `\{{` is
    /// literal text, kept in the secrets file as the text it stands for.
    static func secretReference(_ value: some StringProtocol, literal: Bool, field: String, named name: String,
                                into collection: inout ImportedCollection, avoiding taken: Set<String>) -> String? {
        guard !value.isEmpty, !value.contains(RedactionPolicy.marker),
              let text = literal ? String(value) : Template.textWithoutTemplates(in: String(value)) else { return nil }
        return "{{\(collection.keepSecret(text, request: name, field: field, avoiding: taken))}}"
    }

    /// Where `url`'s `scheme://` ends: a scheme as written (`https://`), or, in a collection that
    /// expands templates, one variables give in whole or in part (`{{proto}}://`,
    /// `http{{s}}://`), whose authority can carry a password just the same. Nil when the URL
    /// starts with no scheme (a path, `{{base}}/x`).
    private static func schemePart(of url: String, literal: Bool) -> Range<String.Index>? {
        guard let separator = url.range(of: "://") else { return nil }
        if URLText.startsWithScheme(url) { return separator }
        guard !literal else { return nil }
        // Scheme characters and `{{…}}` templates only, at least one template.
        var rest = url[..<separator.lowerBound]
        var templates = 0
        while !rest.isEmpty {
            if rest.hasPrefix("{{"), let close = rest.range(of: "}}") {
                // `{{ proto }}` is a variable too: its name is read trimmed.
                guard !rest[..<close.lowerBound].contains(where: { $0 == "/" || $0 == "?" || $0 == "#" || $0 == "@" }) else { return nil }
                templates += 1
                rest = rest[close.upperBound...]
            } else if let first = rest.first, first.isASCII, first.isLetter || first.isNumber || first == "+" || first == "-" || first == "." {
                rest = rest.dropFirst()
            } else {
                return nil
            }
        }
        return templates > 0 ? separator : nil
    }

    /// Every variable and secret name a workspace and its secrets file define.
    static func definedNames(_ workspace: Workspace?, _ stored: WorkspaceSecrets) -> Set<String> {
        Set((workspace?.variables.map(\.name) ?? []) + (workspace?.secretNames ?? []) + stored.shared.map(\.name)
            + stored.byEnvironment.values.flatMap { $0.map(\.name) })
    }

    /// Said of a name the workspace already defines with another value than the import's.
    static let keptOverImport = " (the import's value differs: the workspace's is used)"

    /// The secrets file beside a workspace file.
    static func secretsPath(for path: String, existing: Workspace?) -> String {
        let directory = existing?.directory ?? LocalFile.directory(of: path)
        return (directory as NSString).appendingPathComponent(Workspace.secretsFileName)
    }

    /// Declares and stores new secrets, checks the workspace as it will be, and writes both
    /// files: the workspace first, with the line ends of `original`.
    static func write(_ document: String, original: String, to path: String, existing: Workspace?, secrets: [ImportedCollection.Secret],
                      stored storedSecrets: WorkspaceSecrets, at secretsPath: String, summary: inout Summary, action: String = "the import") throws(WorkspaceError) {
        var document = document
        // A secret already stored in the same place (shared, or the same environment) is kept:
        // the first value of each place and name, looked up rather than searched for each secret
        // (an import of thousands of credentials is input).
        struct Place: Hashable {
            let environment: String?
            let name: String
        }
        var kept: [Place: String] = [:]
        for (name, value) in storedSecrets.shared where kept[Place(environment: nil, name: name)] == nil { kept[Place(environment: nil, name: name)] = value }
        for (environment, values) in storedSecrets.byEnvironment {
            for (name, value) in values where kept[Place(environment: environment, name: name)] == nil { kept[Place(environment: environment, name: name)] = value }
        }
        var newSecrets: [ImportedCollection.Secret] = []
        for secret in secrets {
            let place = Place(environment: secret.environment, name: secret.name)
            if let value = kept[place] {
                // Only that the values differ is said: neither is shown.
                summary.kept.append("secret \(secret.name)" + (secret.environment.map { " (\($0))" } ?? "") + (value != secret.value ? Self.keptOverImport : ""))
            } else {
                newSecrets.append(secret)
                kept[place] = secret.value
            }
        }
        let declared = Set(existing?.secretNames ?? [])
        var undeclaredNames: Set<String> = []
        let undeclared = newSecrets.map(\.name).filter { !declared.contains($0) && undeclaredNames.insert($0).inserted }
        if !undeclared.isEmpty { document = try appendSecretNames(undeclared, to: document, file: path) }
        summary.secrets = newSecrets.map { $0.name + ($0.environment.map { " (\($0))" } ?? "") }
        // Both files are checked before either is written; the secrets go first, so a failure
        // leaves at worst a secret no workspace names yet, never a workspace naming a secret
        // that has no value.
        let secretsText = newSecrets.isEmpty ? nil : try secretsFileText(adding: newSecrets, at: secretsPath)
        // A file the next load would refuse as too large is not written (JSON nested deep grows
        // by its indentation as YAML).
        guard document.utf8.count <= YAMLDocument.maxFileBytes else {
            throw WorkspaceError(.invalid, at: nil, "nothing was written: \(action) would make the workspace larger than \(YAMLDocument.maxFileBytes >> 20) MiB, more than a workspace may be")
        }
        do { _ = try Workspace.parse(document, path: path) } catch {
            // The lines are those of the workspace as the import would have written it.
            throw WorkspaceError(error.kind, at: nil, keyPath: error.keyPath,
                                 "nothing was written: \(action) would make an invalid workspace (at line \(error.position?.line ?? 0) of the result): \(error.message)")
        }
        // A workspace that cannot be written gets no secrets written for it either.
        try checkWritable(path)
        if let secretsText { try replace(secretsPath, with: secretsText, mode: 0o600) }
        try replace(path, with: restoringLineEnds(document, of: original))
    }

    /// `text` with every line ending in `\n`.
    static func normalizingLineEnds(_ text: String) -> String {
        text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
    }

    /// `text` (with `\n` ends) with the line ends `original` uses.
    static func restoringLineEnds(_ text: String, of original: String) -> String {
        if original.contains("\r\n") { return text.replacingOccurrences(of: "\n", with: "\r\n") }
        if original.contains("\r") { return text.replacingOccurrences(of: "\n", with: "\r") }
        return text
    }

    /// The password of a URL (with its scheme) a variable holds (`base = http://u:PASS@h`, a
    /// server's URL, an environment's) and its secret query parameters, moved to secrets as a request's URL has
    /// them moved; the variable keeps the rest with a `{{name}}` in their place. Only for the
    /// variables and environments the import writes (those already defined stay as they are).
    private static func movingURLCredentialsOfVariables(in collection: inout ImportedCollection, existing: Workspace?,
                                                        definedNames: Set<String>, avoiding taken: Set<String>) {
        let secrets = RedactionPolicy()
        for index in collection.variables.indices where !definedNames.contains(collection.variables[index].name) {
            let (name, value) = collection.variables[index]
            guard value.contains("://") else { continue }
            collection.variables[index].value = movingCredentials(inURL: value, named: name, into: &collection, avoiding: taken, secrets: secrets)
        }
        for environment in collection.environments.indices where existing?.environmentNames.contains(collection.environments[environment].name) != true {
            for index in collection.environments[environment].variables.indices {
                let (name, value) = collection.environments[environment].variables[index]
                guard value.contains("://") else { continue }
                let before = collection.secrets.count
                let moved = movingCredentials(inURL: value, named: name, into: &collection, avoiding: taken, secrets: secrets)
                collection.environments[environment].variables[index].value = moved
                // Stored under that environment, as its other secrets are (found by a new user's trial).
                for secret in before..<collection.secrets.count { collection.secrets[secret].environment = collection.environments[environment].name }
            }
        }
    }

    /// Where a URL's authority lies, and the password of its user info within it: after
    /// `scheme://`, or at the start of a URL typed without a scheme that holds an `@`
    /// (`bob:pw@host/x`, which `curlew send` reads as a host with credentials); nil for a URL
    /// without either.
    static func authority(of url: String, literal: Bool) -> (range: Range<String.Index>, password: Range<String.Index>?)? {
        let schemeEnd = schemePart(of: url, literal: literal)
        let start = schemeEnd?.upperBound ?? url.startIndex
        let end = schemeEnd == nil ? (url.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? url.endIndex)
            : URLText.afterAuthority(url).startIndex
        let authority = url[start..<end]
        guard schemeEnd != nil || authority.contains("@") else { return nil }
        guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else { return (start..<end, nil) }
        return (start..<end, authority.index(after: colon)..<at)
    }

    /// Variables of the import that hold a credential in clear (`@token = abc` used as
    /// `Bearer {{token}}`, a Postman variable behind an API key in the query) become secrets,
    /// so their values go to the secrets file instead of `variables:`; so do those named as
    /// the logs name secrets (`password`, `api_token`, `client_secret`) whose value is text, used
    /// anywhere (`?u={{password}}`, found by a new user's trial). A number, `true`, `false` or
    /// `null` under such a name (`max_token: 100`) stays a variable: declared secret, it would be
    /// hidden in every log wherever it appears.
    private static func keepingReferencedCredentials(in collection: inout ImportedCollection) {
        let secrets = RedactionPolicy()
        var referenced = Set<String>()
        for item in collection.items {
            // A header the logs hide (`X-Token` too, by its last word): the same rule.
            for field in item.request.headers where secrets.hidesValue(ofHeader: field.name) {
                referenced.formUnion(Template.names(in: field.value))
            }
            let url = item.request.customURL ?? item.request.path
            // The password of the URL's user info (`http://user:{{pass}}@h`, found by a new
            // user's trial).
            if let password = authority(of: url, literal: collection.isLiteral)?.password { referenced.formUnion(Template.names(in: String(url[password]))) }
            _ = mappingPairs(url.split(separator: "?", maxSplits: 1).dropFirst().first ?? "", in: .url, kept: String.init,
                             isSecret: { secrets.isSecretName($0) }) { _, value, secret in
                if secret { referenced.formUnion(Template.names(in: String(value))) }
                return nil
            }
            // Query parameters kept apart from the URL (OpenAPI's), a request's parameters and its body.
            var request = item.request
            request.params = Parameters(item.query.entries + item.request.params.entries)
            referenced.formUnion(variablesInSecretBodyValues(of: request, secrets: secrets))
        }
        // By its name alone when every value it has is text (one `password: 123` keeps the name
        // a variable everywhere: a secret of that name would make its variables an error).
        let allVariables = collection.variables + collection.environments.flatMap(\.variables)
        var valuesByName: [String: [String]] = [:]
        for variable in allVariables where !variable.value.isEmpty { valuesByName[variable.name, default: []].append(variable.value) }
        for (name, values) in valuesByName where secrets.isSecretName(name) && values.allSatisfy(isText) { referenced.insert(name) }
        guard !referenced.isEmpty else { return }
        // A value with a template stays a variable; an escaped `\{{` is text, and the secret keeps it as its `{{`.
        func credential(_ variable: (name: String, value: String)) -> String? {
            guard referenced.contains(variable.name), !variable.value.isEmpty else { return nil }
            return Template.textWithoutTemplates(in: variable.value)
        }
        func isCredential(_ variable: (name: String, value: String)) -> Bool { credential(variable) != nil }
        for variable in collection.variables { if let text = credential(variable) { collection.secrets.append(.init(name: variable.name, value: text)) } }
        collection.variables.removeAll(where: isCredential)
        for index in collection.environments.indices {
            let environment = collection.environments[index]
            for variable in environment.variables {
                if let text = credential(variable) { collection.secrets.append(.init(name: variable.name, value: text, environment: environment.name)) }
            }
            collection.environments[index].variables.removeAll(where: isCredential)
        }
    }

    /// Whether a value is text a credential could be: not empty, not `true`, `false` or `null`,
    /// and not a number as JSON writes one (`100`, `1.5`; `0012345`, `0x1F`, `+123` and `1e3` are
    /// text, as a PIN or a hex key is; found by a new user's trial).
    private static func isText(_ value: String) -> Bool {
        !value.isEmpty && JSONValue.canonicalScalar(value) == nil
    }

    /// Names the importer gave to credentials, numbered where the workspace (or the import's
    /// own variables) already uses them, with the requests' references renamed to match.
    private static func renamingGeneratedSecrets(in collection: inout ImportedCollection, avoiding definedNames: Set<String>) {
        var taken = definedNames.union(collection.variables.map(\.name))
            .union(collection.environments.flatMap { $0.variables.map(\.name) })
            .union(collection.secrets.filter { !$0.isGenerated }.map(\.name))
        var renames: [String: String] = [:]
        for index in collection.secrets.indices where collection.secrets[index].isGenerated {
            let name = collection.secrets[index].name
            if taken.contains(name) {
                var number = 2
                while taken.contains("\(name)_\(number)") { number += 1 }
                renames[name] = "\(name)_\(number)"
                collection.secrets[index].name = "\(name)_\(number)"
            }
            taken.insert(collection.secrets[index].name)
        }
        guard !renames.isEmpty else { return }
        func renamed(_ text: String) -> String {
            renames.reduce(text) { $0.replacingOccurrences(of: "{{\($1.key)}}", with: "{{\($1.value)}}") }
        }
        for index in collection.items.indices {
            var request = collection.items[index].request
            request.headers = HTTPHeaders(request.headers.map { HeaderField(name: $0.name, value: renamed($0.value)) })
            request.customURL = request.customURL.map(renamed)
            request.path = renamed(request.path)
            collection.items[index].request = request
        }
    }

    /// A literal request with the `{{` escaped wherever the reader expands templates: parameters
    /// and JSON members (names and values), a text body, multipart parts and an upload's path
    /// (headers and the URL are escaped as their credentials are moved).
    private static func escapingTemplates(in request: Request) -> Request {
        var request = request
        request.params = Parameters(request.params.entries.map { JSONMember(TemplateEscape.escaping($0.key), $0.value.mappingStrings(TemplateEscape.escaping)) })
        if case .raw(let data, let type) = request.requestSerializer, let text = String(data: data, encoding: .utf8), text.contains("{{") {
            // Escaped as the writer will write it: JSON members when it writes `json:`, else text.
            if let json = jsonMembers(of: data, contentType: type) {
                request.requestSerializer = .raw(Data(json.mappingStrings(TemplateEscape.escaping).serialized().utf8), contentType: type)
            } else {
                request.requestSerializer = .raw(Data(TemplateEscape.escaping(text).utf8), contentType: type)
            }
        }
        if let form = request.form {
            var escaped = MultipartForm()
            for part in form.parts {
                let headers = HTTPHeaders(part.headers.map { HeaderField(name: $0.name, value: TemplateEscape.escaping($0.value)) })
                let filename = part.filename.map(TemplateEscape.escaping), mimeType = part.mimeType.map(TemplateEscape.escaping)
                switch part.content {
                case .data(let data):
                    escaped.append(name: TemplateEscape.escaping(part.name), data: Data(TemplateEscape.escaping(String(decoding: data, as: UTF8.self)).utf8),
                                   filename: filename, mimeType: mimeType, headers: headers)
                case .file(let path):
                    escaped.append(name: TemplateEscape.escaping(part.name), fileAt: TemplateEscape.escaping(path), filename: filename, mimeType: mimeType, headers: headers)
                }
            }
            request.form = escaped
        }
        request.uploadFile = request.uploadFile.map(TemplateEscape.escaping)
        return request
    }

    /// A capture's source as a workspace writes it: a JSON path, `header NAME` or `status`.
    public static func captureSource(_ source: Capture.Source) -> String {
        switch source {
        case .jsonPath(let path): path
        case .header(let name): "header \(name)"
        case .status: "status"
        }
    }

    static func serialize(_ entries: [(Node, Node)]) throws(WorkspaceError) -> String {
        do {
            return try Yams.serialize(node: .mapping(Node.Mapping(entries)), width: -1, allowUnicode: true)
        } catch {
            throw WorkspaceError(.invalid, at: nil, "cannot write YAML: \(error)")
        }
    }

    /// Declares names secret: `secrets: [a, b]` gains them, or a `secrets:` line is added.
    private static func appendSecretNames(_ names: [String], to text: String, file: String) throws(WorkspaceError) -> String {
        var lines = text.components(separatedBy: "\n")
        guard let index = lines.firstIndex(where: { $0.hasPrefix("secrets:") }) else {
            return text + (text.hasSuffix("\n") || text.isEmpty ? "" : "\n") + "secrets: [\(names.joined(separator: ", "))]\n"
        }
        let rest = lines[index].dropFirst("secrets:".count).trimmingCharacters(in: .whitespaces)
        if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
            let inside = rest[rest.index(after: rest.startIndex)..<close].trimmingCharacters(in: .whitespaces)
            lines[index] = "secrets: [" + (inside.isEmpty ? "" : inside + ", ") + names.joined(separator: ", ") + "]" + rest[rest.index(after: close)...]
            return lines.joined(separator: "\n")
        }
        return try insert(names.map { "- \($0)" }.joined(separator: "\n") + "\n", under: ["secrets"], into: text, file: file)
    }

    /// The secrets file's text with `values` added under `variables:` (shared ones) or
    /// `environments: <name>:`, checked, with the file's own line ends.
    private static func secretsFileText(adding values: [ImportedCollection.Secret], at secretsPath: String) throws(WorkspaceError) -> String {
        let existing = FileManager.default.fileExists(atPath: secretsPath) ? try YAMLDocument.readText(path: secretsPath) : ""
        var updated = normalizingLineEnds(existing)
        var scopes: [String?] = []
        for secret in values where !scopes.contains(secret.environment) { scopes.append(secret.environment) }
        for scope in scopes {
            let block = try serialize(values.filter { $0.environment == scope }.map { (Node($0.name), text($0.value)) })
            updated = try insert(block, under: scope.map { ["environments", $0] } ?? ["variables"], into: updated, file: secretsPath)
        }
        _ = try WorkspaceSecrets.parse(updated, path: secretsPath)
        return restoringLineEnds(updated, of: existing)
    }

    /// A mapping key as YAML writes it: plain when that reads back as the name, else quoted
    /// (`"QA: EU"`, `"[dev]"`).
    private static func keyText(_ name: String) -> String {
        guard let line = try? serialize([(text(name), Node("x"))]), line.hasSuffix(": x\n") else { return name }
        return String(line.dropLast(": x\n".count))
    }

    /// `text` with `block` (YAML) added at the end of the block at `path` (`["environments",
    /// "prod"]` is `prod:` inside the top-level `environments:`), made where it is missing.
    /// Only the lines around the insertion change, so comments and layout stay as written.
    static func insert(_ block: String, under path: [String], into text: String, file: String) throws(WorkspaceError) -> String {
        var lines = text.components(separatedBy: "\n")
        var range = 0..<lines.count
        var width = 0
        for (depth, key) in path.enumerated() {
            // The key as written here, in any of the ways YAML may spell it.
            let padding = String(repeating: " ", count: width)
            let spellings = Set([key, keyText(key), "\"\(key)\"", "'\(key)'"]).map { padding + $0 + ":" }
            guard let keyLine = range.first(where: { index in spellings.contains { lines[index].hasPrefix($0) } }),
                  let keyPrefix = spellings.first(where: { lines[keyLine].hasPrefix($0) }) else {
                // The missing keys, each nested two columns further than its parent.
                var added: [String] = []
                for (offset, name) in path[depth...].enumerated() { added.append(String(repeating: " ", count: width + 2 * offset) + "\(keyText(name)):") }
                added += indent(block, by: width + 2 * (path.count - depth)).components(separatedBy: "\n")
                if depth == 0 {
                    let separator = text.isEmpty || text.hasSuffix("\n") ? "" : "\n"
                    return text + separator + added.joined(separator: "\n") + "\n"
                }
                lines.insert(contentsOf: added, at: range.upperBound)
                return lines.joined(separator: "\n")
            }
            let rest = lines[keyLine].dropFirst(keyPrefix.count).trimmingCharacters(in: .whitespaces)
            if !(rest.isEmpty || rest.hasPrefix("#")) {
                // A one-line (flow) value, `variables: {a: 1}`, is rewritten as a block first.
                guard rest.hasPrefix("{") || rest.hasPrefix("["), let node = try? Yams.compose(yaml: "\(keyText(key)): \(rest)"),
                      let expanded = try? Yams.serialize(node: node, width: -1, allowUnicode: true) else {
                    throw WorkspaceError(.invalid, at: SourcePosition(file: file, line: keyLine + 1, column: width + 1), keyPath: path[...depth].joined(separator: "."),
                                         "\(key) is written on one line in a way that cannot be extended; write it as an indented block")
                }
                var blockLines = indent(expanded, by: width).components(separatedBy: "\n")
                if blockLines.count == 1, blockLines[0].hasSuffix("{}") || blockLines[0].hasSuffix("[]") { blockLines = [keyPrefix] }
                lines.replaceSubrange(keyLine...keyLine, with: blockLines)
                range = range.lowerBound..<(range.upperBound + blockLines.count - 1)
            }
            // The block is the lines after the key that are blank, comments or indented further.
            var end = keyLine + 1
            while end < range.upperBound, isInsideBlock(lines[end], indentedMoreThan: width) { end += 1 }
            // Entries take the indentation of the block's first entry (two more columns in a new block).
            let firstEntry = lines[(keyLine + 1)..<end].first { !isBlankOrComment($0) }
            let entryWidth = firstEntry.map(indentation) ?? width + 2
            // Trailing blank lines and comments belong to what follows; a `#` line indented
            // deeper than the entries is the end of one of them (a block scalar's last line).
            while end > keyLine + 1, isBlankOrComment(lines[end - 1]), indentation(lines[end - 1]) <= entryWidth || isBlank(lines[end - 1]) { end -= 1 }
            width = entryWidth
            range = (keyLine + 1)..<end
        }
        lines.insert(contentsOf: indent(block, by: max(1, width)).components(separatedBy: "\n"), at: range.upperBound)
        return lines.joined(separator: "\n")
    }

    static func isBlankOrComment(_ line: String) -> Bool {
        let content = line.drop { $0 == " " || $0 == "\t" }
        return content.isEmpty || content.hasPrefix("#")
    }

    private static func isBlank(_ line: String) -> Bool {
        line.allSatisfy { $0 == " " || $0 == "\t" }
    }

    private static func indentation(_ line: String) -> Int {
        line.prefix { $0 == " " }.count
    }

    private static func isInsideBlock(_ line: String, indentedMoreThan width: Int) -> Bool {
        isBlankOrComment(line) || line.prefix { $0 == " " || $0 == "\t" }.count > width
    }

    static func indent(_ block: String, by width: Int) -> String {
        let padding = String(repeating: " ", count: width)
        return block.trimmingCharacters(in: .newlines).split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.isEmpty ? "" : padding + $0 }.joined(separator: "\n")
    }

    /// Writes a file atomically (a fresh temporary file renamed over it), into the file a
    /// symbolic link points to, keeping the file's permissions (`mode` for a new one).
    static func replace(_ path: String, with text: String, mode newMode: mode_t = 0o644) throws(WorkspaceError) {
        try checkWritable(path)
        let target = followingLinks(path)
        var status = stat()
        let exists = stat(target, &status) == 0
        let mode = exists ? status.st_mode & 0o777 : newMode
        do {
            try OwnerOnlyFile.write(Data(text.utf8), to: target)
        } catch {
            throw WorkspaceError(.unreadable, at: nil, "\(path): \(error.reason)")
        }
        chmod(target, mode)
    }

    /// Refuses a file made read-only, which stays as it is, as an editor leaves it (even for
    /// root), and one whose folder does not let a new file be made there.
    static func checkWritable(_ path: String) throws(WorkspaceError) {
        let target = followingLinks(path)
        var status = stat()
        if stat(target, &status) == 0, status.st_mode & 0o200 == 0 || access(target, W_OK) != 0 {
            throw WorkspaceError(.unreadable, at: nil, "\(path) is read-only; nothing was written (chmod u+w \(path) to allow it)")
        }
        let directory = LocalFile.directory(of: target)
        if access(directory, W_OK) != 0 {
            throw WorkspaceError(.unreadable, at: nil, "\(path): its folder \(directory) cannot be written to; nothing was written")
        }
    }

    /// The file a path names after following symbolic links (relative ones from the link's own
    /// directory), so a linked workspace or secrets file is written where it lives.
    static func followingLinks(_ path: String) -> String {
        var current = path
        for _ in 0..<40 {
            guard let destination = try? FileManager.default.destinationOfSymbolicLink(atPath: current) else { return current }
            current = destination.hasPrefix("/") ? destination
                : (LocalFile.directory(of: current) as NSString).appendingPathComponent(destination)
        }
        return current
    }

    /// `fields` with each name once, as a mapping holds them: a repeated field's values joined
    /// where the first stood, with ", " as HTTP combines field lines (RFC 9110 §5.3), or "; "
    /// for Cookie; of a field with one value (`HTTPHeaders.singleValuedNames`), the last.
    /// (`-H 'X-A: 1' -H 'X-A: 2'` made a mapping with one key twice, refused.)
    static func combiningRepeats(_ fields: some Sequence<HeaderField>) -> [HeaderField] {
        var combined: [HeaderField] = []
        var positions: [String: Int] = [:]
        for field in fields {
            let key = field.name.lowercased()
            if let position = positions[key] {
                if HTTPHeaders.singleValuedNames.contains(key) {
                    combined[position].value = field.value
                } else {
                    combined[position].value += (key == "cookie" ? "; " : ", ") + field.value
                }
            } else {
                positions[key] = combined.count
                combined.append(field)
            }
        }
        return combined
    }

    /// One request as a workspace entry, with only the fields that differ from the defaults;
    /// `query` is written under `query:` beside the request's own URL parameters.
    static func node(for request: Request, folder: String? = nil, query: Parameters = Parameters()) -> Node {
        var pairs: [(Node, Node)] = []
        func add(_ key: String, _ value: Node) { pairs.append((Node(key), value)) }
        if let folder { add("folder", text(folder)) }
        add("url", text(request.customURL ?? request.path))
        if let base = request.baseURL { add("baseURL", text(base)) }
        // A body written as `json:` members: read once, for its type header and for the body itself.
        let jsonBody: JSONValue? = if case .raw(let data, let contentType) = request.requestSerializer { jsonMembers(of: data, contentType: contentType) } else { nil }
        let fields = request.headers.filter { $0.name.lowercased() != "content-type" || jsonBody == nil }
        if !fields.isEmpty {
            add("headers", .mapping(Node.Mapping(combiningRepeats(fields).map { (text($0.name), text($0.value)) })))
        }
        // Parameters go where the agent sends them: the query, a form body or a JSON body.
        var queryEntries = query.entries
        switch request.requestSerializer {
        case .raw(let data, let contentType):
            queryEntries = request.params.entries + queryEntries
            if let json = jsonBody {
                add("json", node(for: json))
                // `json:` alone reads back as `application/json`; any other JSON type (a `+json`
                // one, a charset) is written beside it.
                if contentType != GuessedBodyType.json { add("contentType", text(contentType)) }
            } else {
                add("body", text(String(decoding: data, as: UTF8.self)))
                // The guessed text type is what `body:` alone reads back as.
                if contentType != GuessedBodyType.text { add("contentType", text(contentType)) }
            }
        case _ where request.params.isEmpty: break
        case _ where request.method.encodesParametersInQuery || request.form != nil || request.uploadFile != nil:
            queryEntries = request.params.entries + queryEntries
        case .urlEncodedForm:
            add("form", textNode(for: request.params.jsonObject))
        case .json:
            add("json", node(for: request.params.jsonObject))
        }
        if !queryEntries.isEmpty { add("query", textNode(for: .object(queryEntries))) }
        if let form = request.form {
            add("multipart", .sequence(Node.Sequence(form.parts.map { part in
                var fields: [(Node, Node)] = [(Node("name"), text(part.name))]
                switch part.content {
                case .data(let data): fields.append((Node("value"), text(String(decoding: data, as: UTF8.self))))
                case .file(let path): fields.append((Node("file"), text(path)))
                }
                if let filename = part.filename { fields.append((Node("filename"), text(filename))) }
                if let type = part.mimeType { fields.append((Node("type"), text(type))) }
                if !part.headers.isEmpty {
                    fields.append((Node("headers"), .mapping(Node.Mapping(combiningRepeats(part.headers).map { (text($0.name), text($0.value)) }))))
                }
                return .mapping(Node.Mapping(fields))
            })))
        }
        if let file = request.uploadFile { add("bodyFile", text(file)) }
        if let timeout = request.timeout { add("timeout", Node("\(timeout.wholeMilliseconds)ms")) }
        if let follow = request.followRedirects { add("followRedirects", Node(follow ? "true" : "false", Tag(.bool))) }
        if request.tls?.allowInvalidCertificates == true { add("tls", .mapping(Node.Mapping([(Node("insecure"), Node("true", Tag(.bool)))]))) }
        if let version = request.httpVersion { add("httpVersion", Node(version.rawValue)) }
        // The method is written when it is not what the reader infers (POST with a body, else GET).
        let hasBody = pairs.contains { ["json", "form", "body", "multipart", "bodyFile"].contains($0.0.string ?? "") }
        if request.method != (hasBody ? .post : .get) { pairs.insert((Node("method"), text(request.method.rawValue)), at: folder == nil ? 0 : 1) }
        return .mapping(Node.Mapping(pairs))
    }

    /// A body as the workspace writes it under `json:`: JSON under a JSON type (`application/json`
    /// or a `+json` type, as the reader takes `json:` under any) that `json:` sends as written
    /// but for its spacing, which the reader sends compact. A number or a string the members
    /// would write otherwise (`1.50`, `1E5`, `12345678901234567890123`, `-0`, `"\u00e9"`, `"\/"`)
    /// keeps the body as text (`body:`, nil here), byte for byte. The one rule for the writer,
    /// its escaping and the credentials it moves.
    /// A body that is not UTF-8, or has an object with a key twice (YAML takes a key once, and
    /// compares keys as Swift strings do), is text too.
    public static func jsonMembers(of data: Data, contentType: String) -> JSONValue? {
        guard MIMEType.isJSON(contentType), let text = String(validating: data, as: UTF8.self), let json = try? JSONValue.parse(data),
              JSONLayout.compacted(text) == json.serialized(), !hasRepeatedKeys(json) else { return nil }
        return json
    }

    /// Whether an object anywhere in `value` has a key twice, compared as Swift strings.
    private static func hasRepeatedKeys(_ value: JSONValue) -> Bool {
        switch value {
        case .object(let members):
            var keys = Set<String>()
            for member in members {
                guard keys.insert(member.key).inserted, !hasRepeatedKeys(member.value) else { return true }
            }
            return false
        case .array(let elements):
            return elements.contains(where: hasRepeatedKeys)
        case .null, .bool, .int, .double, .string:
            return false
        }
    }

    /// A string as a scalar that reads back as that string: plain when YAML would not take it
    /// for something else (`null`, `~`, `true`, `yes`, a number…), double-quoted otherwise.
    static func text(_ string: String) -> Node {
        let typed = ["", "~", "null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE", "yes", "no", "on", "off", "y", "n"]
        let plainSafe = !typed.contains(string) && Double(string) == nil && Int(string) == nil
            && string.unicodeScalars.allSatisfy { ($0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil)) || " /-_.,()".unicodeScalars.contains($0) }
            && !string.hasPrefix(" ") && !string.hasSuffix(" ") && !string.hasPrefix("-")
        if plainSafe { return Node(string) }
        // Several lines read best as a literal block (`|`); YAML falls back to quotes where one
        // cannot hold the text.
        return Node(string, Tag(.str), string.contains("\n") ? .literal : .doubleQuoted)
    }

    /// A query's or a form's values, which the reader takes as text as written: one that reads
    /// as a number is written plain (`page: 1`, `v: 1.10`), as a user writes it, not quoted.
    static func textNode(for value: JSONValue) -> Node {
        switch value {
        case .string(let text) where isPlainNumber(text):
            Node(text, Tag(text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) ? .float : .int), .plain)
        case .object(let members): .mapping(Node.Mapping(members.map { (Node($0.key), textNode(for: $0.value)) }))
        case .array(let elements): .sequence(Node.Sequence(elements.map(textNode(for:))))
        default: node(for: value)
        }
    }

    /// Digits with at most a sign, a point and an exponent, as YAML reads a number.
    private static func isPlainNumber(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first != "+", Double(text) != nil else { return false }
        return text.unicodeScalars.allSatisfy { ("0"..."9").contains($0) || "-.eE".unicodeScalars.contains($0) }
            && text.unicodeScalars.contains { ("0"..."9").contains($0) }
    }

    static func node(for value: JSONValue) -> Node {
        switch value {
        case .null: Node("null", Tag(.null))
        case .bool(let flag): Node(flag ? "true" : "false", Tag(.bool))
        case .int(let number): Node(String(number), Tag(.int))
        case .double(let number): Node(String(number), Tag(.float))
        case .string(let text): Node(text, Tag(.str), .doubleQuoted)
        case .array(let elements): .sequence(Node.Sequence(elements.map(node(for:))))
        case .object(let members): .mapping(Node.Mapping(members.map { (Node($0.key), node(for: $0.value)) }))
        }
    }
}
