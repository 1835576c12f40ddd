extension ImportedCollection {
    /// Makes each name given more than once in one place one name with its last value, in the
    /// place of its first, each said once in `notes`: a variable of the collection, a variable of
    /// an environment, an environment (its variables joined), a secret of one place. A source
    /// that repeats a name (a Postman collection or environment edited by hand, two exports
    /// joined) reads as JSON, JavaScript and Postman read it, instead of making a workspace
    /// whose YAML names a key twice, which the writer refused, or a secret said to be kept from
    /// a workspace that had none. Values are never shown.
    public mutating func foldRepeatedNames() {
        variables = Self.folded(variables) { notes.append("variable \(Self.shown($0)) is given more than once; the last value is kept") }
        var environmentPositions: [String: Int] = [:]
        var joined: [(name: String, variables: [(name: String, value: String)])] = []
        for environment in environments {
            if let position = environmentPositions[environment.name] {
                notes.append("environment \(Self.shown(environment.name)) is given more than once; its variables are joined, the last value of each kept")
                joined[position].variables += environment.variables
            } else {
                environmentPositions[environment.name] = joined.count
                joined.append(environment)
            }
        }
        environments = joined.map { environment in
            (environment.name, Self.folded(environment.variables) { [environmentName = environment.name] name in
                notes.append("variable \(Self.shown(name)) of environment \(Self.shown(environmentName)) is given more than once; the last value is kept")
            })
        }
        struct Place: Hashable {
            let environment: String?
            let name: String
        }
        var secretPositions: [Place: Int] = [:]
        var foldedSecrets: [Secret] = []
        var repeated: Set<Place> = []
        for secret in secrets {
            let place = Place(environment: secret.environment, name: secret.name)
            guard let position = secretPositions[place] else {
                secretPositions[place] = foldedSecrets.count
                foldedSecrets.append(secret)
                continue
            }
            foldedSecrets[position].value = secret.value
            if repeated.insert(place).inserted {
                notes.append("secret \(Self.shown(secret.name))" + (secret.environment.map { " of environment \(Self.shown($0))" } ?? "")
                             + " is given more than once; the last value is kept")
            }
        }
        // Reassigned only when something changed: a new list makes the secrets' lookup again.
        if foldedSecrets.count != secrets.count { secrets = foldedSecrets }
        // A name given both as a secret and as a plain value in one place (a Postman
        // environment's key typed `secret` once and `default` once) stays a secret: the workspace
        // may not hold a value for a name it declares secret.
        let secretPlaces = Set(secrets.map { Place(environment: $0.environment, name: $0.name) })
        guard !secretPlaces.isEmpty else { return }
        func droppingSecretNames(_ pairs: [(name: String, value: String)], environment: String?) -> [(name: String, value: String)] {
            pairs.filter { pair in
                guard secretPlaces.contains(Place(environment: environment, name: pair.name)) else { return true }
                notes.append("variable \(Self.shown(pair.name))" + (environment.map { " of environment \(Self.shown($0))" } ?? "")
                             + " is given both as a secret and not; it is kept as a secret")
                return false
            }
        }
        variables = droppingSecretNames(variables, environment: nil)
        environments = environments.map { ($0.name, droppingSecretNames($0.variables, environment: $0.name)) }
    }

    /// `pairs` with each name once, holding its last value in the place of its first; `repeated`
    /// is called once for each name given more than once.
    private static func folded(_ pairs: [(name: String, value: String)], repeated: (String) -> Void) -> [(name: String, value: String)] {
        var positions: [String: Int] = [:]
        var result: [(name: String, value: String)] = []
        var said: Set<String> = []
        for pair in pairs {
            guard let position = positions[pair.name] else {
                positions[pair.name] = result.count
                result.append(pair)
                continue
            }
            result[position].value = pair.value
            if said.insert(pair.name).inserted { repeated(pair.name) }
        }
        return result
    }
}
