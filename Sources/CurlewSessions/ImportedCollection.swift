import CurlewAgent

/// What an import brings into a workspace, whatever the format: requests with names and
/// folders, variables, environments, and chains that carry values from one request to the next.
public struct ImportedCollection: Sendable {
    /// A request with the name and folder it had in its source.
    public struct Item: Sendable {
        public var name: String
        public var folder: String?
        public var request: Request

        public init(name: String, folder: String? = nil, request: Request) {
            self.name = name
            self.folder = folder
            self.request = request
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

    public var items: [Item] = []
    public var variables: [(name: String, value: String)] = []
    public var environments: [(name: String, variables: [(name: String, value: String)])] = []
    /// Values marked secret in the source: they go to the secrets file, never the workspace.
    public var secrets: [(name: String, value: String)] = []
    public var chains: [Chain] = []
    /// What was read but has no place in a workspace (scripts, unsupported auth), for the user.
    public var notes: [String] = []
    /// The requests' text is literal (curl, HAR): a `{{` in it is not a template, and the
    /// workspace writer escapes it.
    public var isLiteral = false

    public init() {}

    /// A request's name when its source gives none: the method and the URL's path, as
    /// `GET /users` for `{{host}}/users?page=2`.
    public static func defaultName(method: String, url: String) -> String {
        var rest = Substring(url)
        if let scheme = rest.range(of: "://") { rest = rest[scheme.upperBound...].drop { $0 != "/" } }
        if rest.hasPrefix("{{"), let close = rest.range(of: "}}") { rest = rest[close.upperBound...] }
        let path = rest.prefix { $0 != "?" && $0 != "#" }
        return "\(method) \(path.isEmpty ? "/" : String(path))"
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
        while let open = text.range(of: "{{$processEnv "), let close = text[open.upperBound...].range(of: "}}") {
            let name = text[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            text.replaceSubrange(open.lowerBound..<close.upperBound, with: "{{$env.\(name)}}")
        }
        return text
    }

    /// `defaultName(method:url:)` of an agent request.
    public static func defaultName(_ request: Request) -> String {
        defaultName(method: request.method.rawValue, url: request.customURL ?? request.path)
    }
}
