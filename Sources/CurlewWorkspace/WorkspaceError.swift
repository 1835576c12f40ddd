/// Where in a workspace file something is: the file, a 1-based line and column, and the key path.
public struct SourcePosition: Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int

    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    public var description: String { "\(file):\(line):\(column)" }
}

/// A workspace that cannot be used: unreadable, not YAML, or YAML that is not a workspace. The
/// message names the file, line and column, the key and what was expected.
public struct WorkspaceError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// The file could not be read (missing, a directory, unreadable, too large).
        case unreadable
        /// Not well-formed YAML.
        case syntax
        /// Well-formed YAML that breaks the workspace format: a wrong type, a bad value.
        case invalid
        /// A key the format does not have.
        case unknownKey
        /// A name (request, group, environment, variable) that is not defined.
        case undefined
        /// The secrets file is readable by others.
        case insecureSecrets
    }

    public var kind: Kind
    public var position: SourcePosition?
    /// The key path, as `requests.login.expect.status`.
    public var keyPath: String?
    public var message: String

    public init(_ kind: Kind, at position: SourcePosition?, keyPath: String? = nil, _ message: String) {
        self.kind = kind
        self.position = position
        self.keyPath = keyPath
        self.message = message
    }

    public var description: String {
        var text = position.map { "\($0): " } ?? ""
        if let keyPath, !keyPath.isEmpty { text += "\(keyPath): " }
        return text + message
    }
}
