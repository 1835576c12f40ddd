import CurlewAgent
import Foundation

/// A workspace made ready for one environment: its config, and its requests and groups built
/// with every template expanded. Secret values are listed so logs and reports can hide them.
public struct WorkspaceSession: Sendable {
    public let workspace: Workspace
    public let environment: String?
    public let config: NetworkConfig
    public let logger: LoggerSettings
    /// Request signers the config declares, for the caller to register.
    public let signers: [SignerSettings]
    /// The values of secret variables (declared secrets and everything in the secrets file).
    public let secretValues: [String]
    /// Lowercased names of the headers whose written value is made from a secret (see
    /// `headersCarryingSecrets`), hidden by name in everything written from this workspace.
    public let headersCarryingSecrets: Set<String>
    let template: Template

    /// Builds the session. Later sources win: workspace variables, the environment's, secrets
    /// (shared, then the environment's), then `overrides` (`--var`).
    public init(_ workspace: Workspace, environment: String? = nil, overrides: [(name: String, value: String)] = [],
                processEnvironment: @escaping @Sendable (String) -> String? = { ProcessInfo.processInfo.environment[$0] }) throws(WorkspaceError) {
        let chosen = environment ?? workspace.selectedEnvironmentByDefault
        if let chosen, !workspace.environmentNames.contains(chosen) {
            throw WorkspaceError(.undefined, at: nil, keyPath: "environments", workspace.environmentNames.isEmpty
                ? "no environment \"\(chosen)\": the workspace defines none"
                : "no environment \"\(chosen)\"; there are \(workspace.environmentNames.joined(separator: ", "))" + Suggestion.hint(for: chosen, among: workspace.environmentNames))
        }
        var variables: [String: String] = [:]
        for pair in workspace.variables { variables[pair.name] = pair.value }
        for pair in chosen.flatMap({ workspace.environments[$0] }) ?? [] { variables[pair.name] = pair.value }
        let secrets = workspace.secrets.values(for: chosen)
        for pair in secrets { variables[pair.name] = pair.value }
        for pair in overrides { variables[pair.name] = pair.value }
        var template = Template(variables: variables, environment: processEnvironment)
        template.literal = Set(secrets.map(\.name)).union(overrides.map(\.name))
        let secretNames = Set(workspace.secretNames).union(secrets.map(\.name))
        self.workspace = workspace
        self.environment = chosen
        self.template = template
        let values = secretNames.sorted().compactMap { name in try? template.expand("{{\(name)}}") }
            + workspace.environmentReferences.sorted().compactMap { processEnvironment($0) }
        self.secretValues = Self.hideable(values, derivedIn: workspace, template: template, secretNames: secretNames)
        let context = ReadContext(template: template, directory: workspace.directory)
        if let node = workspace.configNode {
            (config, logger, signers) = try ConfigReader.read(NodeReader(node, keyPath: "config"), context)
        } else {
            (config, logger, signers) = (NetworkConfig(), LoggerSettings(), [])
        }
        headersCarryingSecrets = Self.headersCarryingSecrets(
            in: workspace, secretNames: secretNames,
            policy: Self.policy(secretValues: secretValues, config: config, logger: logger))
    }

    /// What `path` is to this workspace when writing a report, a log or an export there would
    /// destroy something it needs: a file of the workspace, its secrets file (see
    /// `Workspace.ownFile`), or a file its config names (the cookie jar, an authority, a client
    /// certificate or key, a pinned certificate); nil for any other path.
    public func ownFile(at path: String) -> String? {
        if let what = workspace.ownFile(at: path) { return what }
        let named = [config.cookies.jarFile].compactMap { $0 } + config.tls.files
        return named.contains { LocalFile.namesSameFile(path, $0) }
            ? "a file the workspace's config names: its cookie jar, a certificate or a key" : nil
    }

    /// Values shorter than this are not hidden wherever they appear in text (a one-letter secret
    /// would garble every log line and give itself away); they are still hidden by name.
    public static let shortestHiddenSecret = 3

    /// The secret values, with the forms they take on the wire: percent-encoded (a query or a
    /// form), and whole header values built from them (`{{$base64 {{user}}:{{password}}}}`).
    private static func hideable(_ values: [String], derivedIn workspace: Workspace, template: Template, secretNames: Set<String>) -> [String] {
        var hidden: [String] = []
        func add(_ value: String) {
            if value.count >= shortestHiddenSecret, !hidden.contains(value) { hidden.append(value) }
        }
        for value in values {
            RedactionPolicy.wireForms(of: value).forEach(add)
        }
        // Header values whose templates use a secret, expanded (a chain's captures left as written).
        let captured = workspace.capturedNames
        var expanding = template
        expanding.deferred = captured
        for pair in writtenHeaders(in: workspace) where !Set(Template.names(in: pair.value)).isDisjoint(with: secretNames) {
            if let value = try? expanding.expand(pair.value) { add(value) }
        }
        return hidden.sorted { $0.count > $1.count }
    }

    /// Every header of the config's and of each request's `headers:`, as written.
    private static func writtenHeaders(in workspace: Workspace) -> [(name: String, value: String)] {
        func headers(of node: YAMLNode) -> NodeReader? {
            guard var map = try? NodeReader(node, keyPath: "").mapping() else { return nil }
            return map.take("headers")
        }
        let headerNodes = (workspace.requests.map(\.node) + [workspace.configNode].compactMap { $0 }).compactMap(headers(of:))
        return headerNodes.flatMap { (try? $0.stringPairs()) ?? [] }
    }

    /// Names of the headers whose written value is made from a secret: a declared secret, a
    /// process environment variable (`{{$env.NAME}}`), a chain capture the log hides
    /// (`policy.hidesCapture`), or a variable whose own value is made from one of these, at any
    /// depth. A header's value may encode the secret (`{{$base64 {{user}}:{{token}}}}`) where no
    /// form of the secret itself can be found, and a capture's value is only known as the chain
    /// runs; the header is hidden by name, whatever it holds.
    static func headersCarryingSecrets(in workspace: Workspace, secretNames: Set<String>, policy: RedactionPolicy) -> Set<String> {
        let hiddenCaptures = workspace.groups.flatMap { $0.members.flatMap(\.captures) }
            .filter { policy.hidesCapture(named: $0.name, from: $0.source) }.map(\.name)
        var secret = secretNames.union(hiddenCaptures)
        func usesSecret(_ text: String) -> Bool {
            text.contains("$env.") || !Set(Template.names(in: text)).isDisjoint(with: secret)
        }
        // Variables (the workspace's and every environment's) made from a secret are secrets too,
        // found by following uses from the secrets out: each variable's value read once.
        let variables = workspace.variables + workspace.environments.values.flatMap { $0 }
        var users: [String: [String]] = [:]
        var pending = Array(secret)
        for pair in variables {
            if pair.value.contains("$env.") { pending.append(pair.name) }
            for name in Set(Template.names(in: pair.value)) { users[name, default: []].append(pair.name) }
        }
        while let name = pending.popLast() {
            secret.insert(name)
            for user in users.removeValue(forKey: name) ?? [] where !secret.contains(user) { pending.append(user) }
        }
        return Set(writtenHeaders(in: workspace).filter { usesSecret($0.value) }.map { $0.name.lowercased() })
    }

    /// What to hide in anything written from this workspace (logs, reports, exports): the
    /// default names, the config's `secretHeaders`, the logger's `secretFields`, the secret
    /// values, the headers made from secrets (`headersCarryingSecrets`), and with a signer
    /// declared, its signature (`HMACSignatureHeaders.signature`).
    public var redactionPolicy: RedactionPolicy {
        var policy = Self.policy(secretValues: secretValues, config: config, logger: logger)
        policy.headerNames.formUnion(headersCarryingSecrets)
        // The workspace's signers are HMAC signers, whose signature is a credential.
        if !signers.isEmpty { policy.hideAlso(headers: [HMACSignatureHeaders.signature]) }
        return policy
    }

    /// The default names, the config's `secretHeaders`, the logger's `secretFields`, and `secretValues`.
    private static func policy(secretValues: [String], config: NetworkConfig, logger: LoggerSettings) -> RedactionPolicy {
        var policy = RedactionPolicy(secretValues: secretValues)
        policy.headerNames.formUnion(config.secretHeaderNames.map { $0.lowercased() })
        policy.parameterNames.formUnion(logger.secretFields)
        policy.bodyFieldNames.formUnion(logger.secretFields)
        return policy
    }

    /// `text` with its templates expanded for this session; `captured` values (a chain's) are
    /// used as they are, after the workspace's own, and in a JSON body outside its strings
    /// (`outsideJSONString`) only when each is one JSON value.
    public func expand(_ text: String, captured: [(name: String, value: String)] = [],
                       outsideJSONString: Bool = false) throws(Template.Failure) -> String {
        try template(capturing: captured, outsideJSONString: outsideJSONString).expand(text)
    }

    /// This session's template with a chain's captured values.
    func template(capturing captured: [(name: String, value: String)], outsideJSONString: Bool = false) -> Template {
        var template = self.template
        for (name, value) in captured {
            template.variables[name] = value
            template.captured.insert(name)
        }
        template.fillsOutsideJSONString = outsideJSONString
        return template
    }

    /// Every variable and its value as it resolves here, secrets masked, for listing.
    public var resolvedVariables: [(name: String, value: String)] {
        template.variables.keys.sorted().map { name in
            let value = (try? template.expand("{{\(name)}}")) ?? "(unresolved)"
            return (name, secretValues.contains { value.contains($0) } ? RedactionPolicy.marker : value)
        }
    }

    /// A named request, built. `deferred` names are left as `{{name}}` (a chain's captures, for
    /// showing the request before the chain has them).
    public func request(named name: String, deferred: Set<String> = []) throws(WorkspaceError) -> (Request, [Expectation]) {
        var template = self.template
        template.deferred = deferred
        let (request, annotations) = try read(named: name, template: template)
        return (request, annotations.expectations)
    }

    /// A named request built with what a chain captured, as a chain's step is when it starts:
    /// each value stands where its `{{name}}` does, through the entry's own encodings (a query,
    /// a form, `{{$base64 …}}`, a JSON body's strings). A name the chains capture that has no
    /// value yet fails as `unresolvedVariable`, a value that cannot stand outside a JSON body's
    /// strings as `invalidBody`. `withheld` names are not the workspace's variables of those
    /// names (a name chains capture, before one has).
    public func request(named name: String, captured: ChainVariables, withholding withheld: Set<String> = []) throws(RequestError) -> Request {
        let built: Request
        let urlAsWritten: String
        do throws(WorkspaceError) {
            var template = template(capturing: captured.values)
            let missing = withheld.filter { captured[$0] == nil }
            for name in missing { template.variables[name] = nil }
            if let entry = workspace.request(named: name), let name = missing.intersection(Self.filledNames(of: entry.node)).sorted().first {
                throw WorkspaceError(.undefined, at: nil, keyPath: "requests.\(entry.name)",
                                     "{{\(ClippedText.plain(name, limit: 80))}} has no value: the step of the chain that captures it did not capture it")
            }
            let annotations: RequestReader.Annotations
            (built, annotations) = try read(named: name, template: template)
            urlAsWritten = annotations.urlAsWritten
        } catch {
            // What a captured value can break once filled in is the body (a JSON value, two
            // members of one name); a name with no value is unresolved.
            throw RequestError(error.kind == .undefined ? .unresolvedVariable : .invalidBody, error.description)
        }
        try Self.checkOrigin(of: built, urlAsWritten: urlAsWritten, config: config)
        return built
    }

    /// A captured value does not choose where a step and its credentials go. A URL written in
    /// full keeps the origin it has without its templates (`https://api.example{{next}}` stays on
    /// api.example, whatever `next` holds); a URL written as a path goes to the base URL's
    /// origin, and one a captured value makes a full URL (`{{next}}`, a pagination link) is
    /// sent only when it is on that origin. With no base URL there is none to keep to.
    private static func checkOrigin(of built: Request, urlAsWritten: String, config: NetworkConfig) throws(RequestError) {
        let reason = "a server's answer does not choose where a step and its credentials go"
        if let url = built.customURL {
            guard url != urlAsWritten else { return }
            let origin = Template.literalText(in: urlAsWritten)
            guard URLOrigin(url) == URLOrigin(origin) else {
                throw RequestError(.invalidURL, "\(ClippedText.quoted(url, limit: 120)), made with a value a chain captured, is not on the origin it is written with (\(ClippedText.quoted(origin, limit: 120))): \(reason)")
            }
        } else if URLText.startsWithScheme(built.path) {
            let base = built.baseURL ?? (built.useCDN ? (config.cdnURL ?? config.baseURL) : config.baseURL)
            guard !base.isEmpty else {
                throw RequestError(.invalidURL, "\(ClippedText.quoted(built.path, limit: 120)), a value a chain captured, is a full URL and there is no base URL to keep it to: \(reason); set a base URL on its origin")
            }
            guard URLOrigin(built.path) == URLOrigin(base) else {
                throw RequestError(.invalidURL, "\(ClippedText.quoted(built.path, limit: 120)), a value a chain captured, is on another origin than the base URL \(ClippedText.quoted(base, limit: 120)): \(reason)")
            }
        }
    }

    /// The names the fields a request sends use (not its description, folder or assertions).
    private static func filledNames(of node: YAMLNode) -> Set<String> {
        guard case .mapping(let pairs, let position) = node else { return Workspace.templateNames(in: node) }
        return Workspace.templateNames(in: .mapping(pairs.filter { pair in
            if case .scalar(let key, _, _) = pair.key { !["description", "folder", "expect", "signer"].contains(key) } else { true }
        }, position))
    }

    private func read(named name: String, template: Template) throws(WorkspaceError) -> (Request, RequestReader.Annotations) {
        guard let named = workspace.request(named: name) else {
            throw WorkspaceError(.undefined, at: nil, keyPath: "requests", "no request \"\(name)\"" + Suggestion.hint(for: name, among: workspace.requests.map(\.name)))
        }
        return try RequestReader.read(NodeReader(named.node, keyPath: "requests.\(name)"), name: name,
                                      ReadContext(template: template, directory: named.directory, defaultContentType: config.defaultHeaders["Content-Type"]),
                                      expectations: named.expectations)
    }

    /// A named group, built with its members; `expectations` gets each member request's
    /// assertions by its name.
    public func group(named name: String) throws(WorkspaceError) -> RequestGroup {
        try group(named: name, deferred: [])
    }

    /// A group built with `deferred` names left as `{{name}}`: one that only runs as a chain's
    /// step (its requests use what the chain captures), built to be listed and edited.
    public func group(named name: String, deferring deferred: Set<String>) throws(WorkspaceError) -> RequestGroup {
        try group(named: name, deferred: deferred)
    }

    private func group(named name: String, deferred: Set<String>) throws(WorkspaceError) -> RequestGroup {
        guard let group = workspace.group(named: name) else {
            throw WorkspaceError(.undefined, at: nil, keyPath: "groups", "no group \"\(name)\"" + Suggestion.hint(for: name, among: workspace.groups.map(\.name)))
        }
        var captured = deferred
        var members: [GroupMember] = []
        var steps: [ChainStep] = []
        for member in group.members {
            let built: GroupMember
            switch member.reference {
            case .request(let requestName):
                // Shown with the names captured before it as written; built again with their
                // values when it starts, none of them read as a workspace variable (a member
                // nothing was captured before is sent as built).
                var request = try request(named: requestName, deferred: captured).0
                if !captured.isEmpty {
                    request.captureFilling = CaptureFilling { [self, captured] variables throws(RequestError) in
                        try self.request(named: requestName, captured: variables, withholding: captured)
                    }
                }
                built = .request(request)
            case .group(let groupName): built = .group(try self.group(named: groupName, deferred: captured))
            }
            members.append(built)
            steps.append(ChainStep(built, captures: member.captures))
            if group.kind == .chain { captured.formUnion(member.captures.map(\.name)) }
        }
        var built: RequestGroup = switch group.kind {
        case .batch: .batch(members, policy: group.policy, maxConcurrency: group.maxConcurrency, name: name)
        case .chain: .chain(steps, onFailure: group.onFailure, name: name)
        case .window: .orderedWindow(members, maxInFlight: group.maxInFlight, name: name)
        }
        // No member's text is filled in by the chain: a `{{` left in a built request is text (an
        // escaped `\{{`), and a member that uses captured values is made by its `captureFilling`.
        built.fillsOnly = []
        return built
    }

    /// Every request a group runs, at any depth, by name, for checking their assertions.
    public func requestNames(in groupName: String) -> [String] {
        requestPlaces(in: groupName).map(\.name)
    }

    /// Every request a group runs, at any depth, with the names of the groups nested between
    /// `groupName` and it (outermost first; empty for a direct member).
    public func requestPlaces(in groupName: String) -> [(path: [String], name: String)] {
        guard let group = workspace.group(named: groupName) else { return [] }
        return group.members.flatMap { member -> [(path: [String], name: String)] in
            switch member.reference {
            case .request(let name): [([], name)]
            case .group(let name): requestPlaces(in: name).map { ([name] + $0.path, $0.name) }
            }
        }
    }

    /// Whether a request can run on its own: one that uses a value a chain captures (`{{token}}`)
    /// runs only inside that chain. Any other request runs, and a template error is reported.
    public func standsAlone(_ requestName: String) -> Bool {
        guard let named = workspace.request(named: requestName) else { return false }
        return named.templateNames.isDisjoint(with: workspace.capturedNames)
    }

    /// What runs when no target is named: every group, and every request that is in no group
    /// and stands on its own (one that needs a chain's captured value runs only in its chain).
    public func defaultTargets() -> [RunTarget] {
        let session = self
        let workspace = session.workspace
        let inGroups = Set(workspace.groups.flatMap { session.requestNames(in: $0.name) })
        let nested = Set(workspace.groups.flatMap { $0.members.compactMap { if case .group(let name) = $0.reference { name } else { nil } } })
        let requests = workspace.requests.map(\.name).filter { !inGroups.contains($0) && session.standsAlone($0) }
        // A group with no members (one being put together in the interface) runs only when named.
        return requests.map(RunTarget.request) + workspace.groups.filter { !nested.contains($0.name) && !$0.members.isEmpty }.map { RunTarget.group($0.name) }
    }
}
