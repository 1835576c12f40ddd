import CurlewAgent

/// What an import brings into a workspace, whatever the format: requests with names and
/// folders, variables, environments, and chains that carry values from one request to the next.
public struct ImportedCollection: Sendable {
    /// A request with the name and folder it had in its source.
    public struct Item: Sendable {
        public var name: String
        public var folder: String?
        public var request: Request
        /// Parameters that belong in the URL whatever the method (an OpenAPI operation's
        /// required query parameters on a POST), kept apart from a form body's parameters.
        public var query: Parameters

        public init(name: String, folder: String? = nil, request: Request, query: Parameters = Parameters()) {
            self.name = name
            self.folder = folder
            self.request = request
            self.query = query
        }
    }

    /// A chain of requests by name, each with what it captures for the later ones.
    public struct Chain: Sendable {
        public var name: String
        public var steps: [(request: String, captures: [Capture])]

        public init(name: String, steps: [(request: String, captures: [Capture])]) {
            self.name = name
            self.steps = steps
        }
    }

    /// A value that belongs in the secrets file, shared or for one environment.
    public struct Secret: Sendable, Equatable {
        public var name: String
        public var value: String
        public var environment: String?
        /// The importer named it (a credential found in clear), so the workspace writer may
        /// rename it; a secret the source named (a Postman environment's) keeps its name.
        public var isGenerated: Bool

        public init(name: String, value: String, environment: String? = nil, isGenerated: Bool = false) {
            self.name = name
            self.value = value
            self.environment = environment
            self.isGenerated = isGenerated
        }
    }

    public var items: [Item] = []
    public var variables: [(name: String, value: String)] = []
    public var environments: [(name: String, variables: [(name: String, value: String)])] = []
    /// Values marked secret in the source: they go to the secrets file, never the workspace.
    public var secrets: [Secret] = [] { didSet { secretLookup = nil } }
    public var chains: [Chain] = []
    /// What was read but has no place in a workspace (scripts, unsupported auth), for the user.
    public var notes: [String] = []
    /// The requests' text is literal (curl, HAR): a `{{` in it is not a template, and the
    /// workspace writer escapes it.
    public var isLiteral = false
    /// The next number to try for each generated secret name already in use.
    private var nextSecretNumber: [String: Int] = [:]
    /// `secrets` by name and generated value, for `keepSecret`; made again after any other change.
    private var secretLookup: SecretLookup?

    private struct SecretLookup: Sendable {
        /// Where the secrets of each name stand in `secrets`.
        var positions: [String: [Int]] = [:]
        var generatedNames: [String: String] = [:]

        init(_ secrets: [Secret]) {
            for (position, secret) in secrets.enumerated() { add(secret, at: position) }
        }

        mutating func add(_ secret: Secret, at position: Int) {
            positions[secret.name, default: []].append(position)
            if secret.isGenerated, secret.environment == nil, generatedNames[secret.value] == nil { generatedNames[secret.value] = secret.name }
        }
    }

    /// Where the secrets of these names stand in `secrets`, in order, found through the lookup
    /// `keepSecret` keeps rather than by reading every secret.
    public mutating func secretPositions(named names: some Sequence<String>) -> [Int] {
        let lookup = secretLookup ?? SecretLookup(secrets)
        secretLookup = lookup
        return names.flatMap { lookup.positions[$0] ?? [] }.sorted()
    }

    public init() {}

    /// Nothing a workspace would gain: no request, chain, variable, environment or secret.
    public var isEmpty: Bool {
        items.isEmpty && chains.isEmpty && variables.isEmpty && environments.isEmpty && secrets.isEmpty
    }

    /// Drops what no request may send, each named in `notes`, so a workspace never holds a
    /// request that fails every time it runs: an item whose method is not an HTTP token or
    /// whose URL (one without a `{{template}}`) is not http or https, or has a port that is none
    /// or an IPv6 address never closed, with the chains that name it; and from the rest, the
    /// headers no request may send (a name that is not an HTTP token, a control byte in a value,
    /// a Content-Length or Transfer-Encoding, which the body sets), and all but the last of a
    /// field with one value given more than once; and an item whose head would be too long to
    /// send (where no template fills it).
    public mutating func dropUnsendable() {
        var dropped: Set<String> = []
        var said: [String] = []
        items.removeAll { item in
            guard let reason = Self.unsendableReason(method: item.request.method, url: item.request.customURL,
                                                     headers: item.request.headers.fields) else { return false }
            said.append("\(Self.shown(item.name)): left out: \(reason)")
            dropped.insert(item.name)
            return true
        }
        for index in items.indices {
            // A single-valued field given again replaces the one before, marked and left out at
            // the end: one pass however many repeats. Said once for each name.
            var kept: [HeaderField?] = []
            var lastOfName: [String: Int] = [:]
            var seen: Set<String> = []
            var repeated: Set<String> = []
            for field in items[index].request.headers.fields {
                let key = field.name.lowercased()
                if !seen.insert(key).inserted, HTTPHeaders.singleValuedNames.contains(key) {
                    if repeated.insert(key).inserted {
                        notes.append("\(Self.shown(items[index].name)): \(ClippedText.plain(field.name)) is given more than once; the last is kept")
                    }
                    if let earlier = lastOfName[key] { kept[earlier] = nil }
                }
                do {
                    try HTTPHeaders([field]).validate()
                    lastOfName[key] = kept.count
                    kept.append(field)
                } catch {
                    notes.append("\(Self.shown(items[index].name)): dropped a header Curlew would not send: \(error.message)")
                }
            }
            let fields = kept.compactMap { $0 }
            if fields.count != items[index].request.headers.fields.count { items[index].request.headers = HTTPHeaders(fields) }
        }
        // A head too long to send (a header of megabytes), known where no template fills it.
        items.removeAll { item in
            let request = item.request
            // (In a literal collection, curl's or a HAR file's, `{{` is text.)
            guard isLiteral || (!(request.customURL ?? request.path).contains("{{") && !request.headers.fields.contains(where: { $0.value.contains("{{") })) else {
                return false
            }
            do throws(RequestError) { try request.checkHeadFits() } catch {
                said.append("\(Self.shown(item.name)): left out: \(error.message)")
                dropped.insert(item.name)
                return true
            }
            return false
        }
        chains.removeAll { chain in
            guard let missing = chain.steps.first(where: { dropped.contains($0.request) }) else { return false }
            said.append("chain \(Self.shown(chain.name)): left out: its step \(Self.shown(missing.request)) was")
            return true
        }
        notes += said
    }

    /// Why no request with `method` and `url` (nil for a path the base URL completes) could be
    /// sent, or nil when one could: a method that is not an HTTP token; a URL without a
    /// `{{template}}` that holds a space or a control character, is not http or https
    /// (`javascript:…`), or has a port that is none or an IPv6 address never closed. The one
    /// check imports and the exports that write requests to send (curl, .http) make. A URL the
    /// reason quotes has its password, and the credentials `headers` carry, hidden.
    public static func unsendableReason(method: HTTPMethod, url: String?, headers: [HeaderField]) -> String? {
        do throws(RequestError) {
            try method.validate()
            guard let url, !url.contains("{{") else { return nil }
            // A space or a control character, which the agent refuses to send.
            try URLText.checkCharacters(url)
            // Quoted only when refused: most URLs pass, and the quote redacts.
            if let scheme = Self.scheme(of: url) {
                guard scheme != "http", scheme != "https" else {
                    try URLText.checkAddress(url)
                    return nil
                }
                return "\(ImportQuote.quoted(url, limit: 60)) is not an http or https URL"
            }
            return Self.isPathOrHost(url) ? nil : "\(ImportQuote.quoted(url, limit: 60)) is neither a URL, a path nor a host"
        } catch {
            // It quotes the URL, which may repeat a credential the request carries.
            return RedactionPolicy.hidingPasswords(in: error.message, sentWith: headers)
        }
    }

    /// The scheme `url` starts with, lower-cased (`javascript`, `file`, `http`), or nil for a
    /// path or a host and port (`localhost:8080/a`), which the base URL completes.
    static func scheme(of url: String) -> String? {
        guard let colon = url.firstIndex(of: ":"), colon > url.startIndex else { return nil }
        let name = url[..<colon]
        guard name.first!.isLetter, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+.-".contains($0)) }) else { return nil }
        let rest = url[url.index(after: colon)...]
        if let next = rest.first, next.isNumber { return nil }
        return name.lowercased()
    }

    /// Whether a URL without a scheme can be a target the base URL completes (a path, with or
    /// without its `/`, a query, a host and port, the `:8080/x` shorthand, `[::1]/a`): anything
    /// but what a text format's stray line gives, JSON's `{}` and `[]` and markup's `<…>`.
    static func isPathOrHost(_ url: String) -> Bool {
        guard let first = url.first else { return true }
        if first == "[" {
            // An IPv6 literal, with a zone id if any: `[::1]`, `[fe80::1%25eth0]:8080/a`.
            guard let close = url.firstIndex(of: "]") else { return false }
            let inside = url[url.index(after: url.startIndex)..<close]
            return inside.contains(":") && inside.allSatisfy { $0.isHexDigit || ":.%".contains($0) || ($0.isASCII && $0.isLetter) }
        }
        return !"{}]<>".contains(first)
    }

    /// Keeps a credential found in clear in a request as a shared secret, and returns the name
    /// to refer to it by: `get_users_authorization` for request "GET /users" and field
    /// "Authorization", numbered when that name is already one of `taken` or of this
    /// collection's secrets. The same credential met again (a collection's auth, inherited by
    /// every request) is kept once.
    public mutating func keepSecret(_ value: String, request: String, field: String, avoiding taken: Set<String> = []) -> String {
        var lookup = secretLookup ?? SecretLookup(secrets)
        if let same = lookup.generatedNames[value] {
            secretLookup = lookup
            return same
        }
        let base = Self.secretName(request: request, field: field)
        var name = base
        var number = nextSecretNumber[base] ?? 2
        while taken.contains(name) || lookup.positions[name] != nil {
            name = "\(base)_\(number)"
            number += 1
        }
        nextSecretNumber[base] = number
        let secret = Secret(name: name, value: value, isGenerated: true)
        secrets.append(secret)
        lookup.add(secret, at: secrets.count - 1)
        secretLookup = lookup
        return name
    }

    /// Lower-case ASCII words of the request's name and the field joined by `_`.
    static func secretName(request: String, field: String) -> String {
        let words = (request + " " + field).lowercased().split { !($0.isLetter && $0.isASCII) && !($0.isNumber && $0.isASCII) }
        return words.isEmpty ? "secret" : words.joined(separator: "_")
    }

    /// A name as a note shows it: its first 120 characters (a hostile file's megabyte URL made a
    /// megabyte note line).
    static func shown(_ name: String) -> String {
        ClippedText.plain(name, limit: 120)
    }

    /// A request's name when its source gives none: the method and the URL's path, as
    /// `GET /users` for `{{host}}/users?page=2`. A URL password the path repeats is hidden
    /// (`GET /basic-auth/user/[REDACTED]`), and so is a `Basic` password `headers` carry
    /// (`curl -u admin:PASS …/basic-auth/admin/PASS`): a name goes to logs and workspaces as it is.
    /// A name longer than 120 characters is cut, ending in `…`.
    public static func defaultName(method: String, url: String, sentWith headers: [HeaderField] = []) -> String {
        var rest = Substring(URLPassword.masking(in: url))
        if let scheme = rest.range(of: "://") {
            rest = rest[scheme.upperBound...]
            // A password holding `/` (`u:pa/ss@h/get`): the authority ends at the `@` before the
            // path, so no part of it names the request (found by a new user's trial).
            let beforeQuery = rest.prefix { $0 != "?" && $0 != "#" }
            if let at = beforeQuery.lastIndex(of: "@"), beforeQuery[..<at].contains(":") { rest = rest[rest.index(after: at)...] }
            rest = rest.drop { $0 != "/" }
        }
        if rest.hasPrefix("{{"), let close = rest.range(of: "}}") { rest = rest[close.upperBound...] }
        let path = rest.prefix { $0 != "?" && $0 != "#" }
        let name = "\(method) \(path.isEmpty ? "/" : String(path))"
        // A name, not the URL: a path of megabytes is cut (the request keeps it whole), after
        // its passwords are hidden, so no cut leaves a password's first part.
        return ClippedText.plain(headers.isEmpty ? name : RedactionPolicy.hidingPasswords(in: name, sentWith: headers), limit: 120)
    }

    /// Other tools' built-in variables under Curlew's names: Postman's `{{$guid}}` and
    /// `{{$randomUUID}}`, the REST clients' `{{$random.uuid}}`, `{{$processEnv NAME}}` and
    /// `{{$datetime iso8601}}`.
    public static func translatingBuiltins(_ text: String) -> String {
        guard text.contains("{{$") else { return text }
        var text = text
        for (other, ours) in [("{{$guid}}", "{{$uuid}}"), ("{{$randomUUID}}", "{{$uuid}}"), ("{{$random.uuid}}", "{{$uuid}}"),
                              ("{{$datetime iso8601}}", "{{$isoTimestamp}}")] {
            text = text.replacingOccurrences(of: other, with: ours)
        }
        // {{$processEnv NAME}} and {{$env.NAME}} (JetBrains) name one process variable.
        // One forward pass, found on the bytes (`firstRange(ofASCII:)`): the text after each
        // rewrite is never searched again.
        var rewritten = ""
        var rest = Substring(text)
        while let open = rest.firstRange(ofASCII: "{{$processEnv "), let close = rest[open.upperBound...].firstRange(ofASCII: "}}") {
            let name = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            rewritten += rest[..<open.lowerBound]
            rewritten += "{{$env.\(name)}}"
            rest = rest[close.upperBound...]
        }
        return rewritten + rest
    }

    /// `defaultName(method:url:sentWith:)` of an agent request.
    public static func defaultName(_ request: Request) -> String {
        defaultName(method: request.method.rawValue, url: request.customURL ?? request.path, sentWith: request.headers.fields)
    }
}
