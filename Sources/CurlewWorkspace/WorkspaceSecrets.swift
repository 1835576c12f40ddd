import Foundation

/// `curlew.secrets.yaml` beside the workspace: secret values, shared and per environment. It is
/// git-ignored and must be readable by its owner only, as ssh insists of private keys.
///
///     variables: {token: s3cret}
///     environments:
///       prod: {token: other}
struct WorkspaceSecrets: Sendable {
    var shared: [(name: String, value: String)] = []
    var byEnvironment: [String: [(name: String, value: String)]] = [:]
    var path: String?

    static func load(path: String) throws(WorkspaceError) -> WorkspaceSecrets {
        guard FileManager.default.fileExists(atPath: path) else { return WorkspaceSecrets() }
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & 0o077 != 0 {
            throw WorkspaceError(.insecureSecrets, at: nil,
                                 "\(path) can be read by others (mode \(String(status.st_mode & 0o777, radix: 8))): run chmod 600 \(path)")
        }
        return try parse(YAMLDocument.readText(path: path), path: path)
    }

    /// Reads the secrets file's text.
    static func parse(_ text: String, path: String) throws(WorkspaceError) -> WorkspaceSecrets {
        var secrets = WorkspaceSecrets(path: path)
        guard let root = try YAMLDocument.parse(text, file: path) else { return secrets }
        var map = try NodeReader(root, keyPath: "").mapping()
        if let value = map.take("variables") { secrets.shared = try value.stringPairs() }
        if let value = map.take("environments") {
            var environments = try value.mapping()
            for name in environments.keys {
                let entry = environments.entry(name)
                secrets.byEnvironment[name] = entry.node.isNull ? [] : try entry.stringPairs()
            }
        }
        try map.finish(known: WorkspaceKeys.secretsFile)
        return secrets
    }

    /// The secret values for an environment: shared ones, overridden by the environment's own.
    func values(for environment: String?) -> [(name: String, value: String)] {
        shared + (environment.flatMap { byEnvironment[$0] } ?? [])
    }
}
