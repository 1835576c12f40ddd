/// A small JSON path: `$`, then `.name`, `['name']` / `["name"]` and `[index]` steps.
public struct JSONPath: Sendable, Equatable, CustomStringConvertible {
    enum Step: Sendable, Equatable {
        case member(String)
        case index(Int)
    }

    let steps: [Step]
    public let description: String

    /// Parses a path; the error says where it stopped making sense.
    public init(_ text: String) throws(RequestError) {
        description = text
        var steps: [Step] = []
        let characters = Array(text)
        guard characters.first == "$" else { throw Self.error(text, "must start with $") }
        var position = 1
        func fail(_ reason: String) -> RequestError { Self.error(text, "\(reason) at position \(position)") }
        while position < characters.count {
            switch characters[position] {
            case ".":
                position += 1
                let start = position
                while position < characters.count, characters[position] != ".", characters[position] != "[" { position += 1 }
                guard position > start else { throw fail("empty member name") }
                steps.append(.member(String(characters[start..<position])))
            case "[":
                position += 1
                guard position < characters.count else { throw fail("unclosed [") }
                if characters[position] == "'" || characters[position] == "\"" {
                    let quote = characters[position]
                    position += 1
                    let start = position
                    while position < characters.count, characters[position] != quote { position += 1 }
                    guard position + 1 < characters.count, characters[position + 1] == "]" else { throw fail("unclosed quoted name") }
                    steps.append(.member(String(characters[start..<position])))
                    position += 2
                } else {
                    let start = position
                    while position < characters.count, characters[position] != "]" { position += 1 }
                    guard position < characters.count, let index = Int(String(characters[start..<position])) else {
                        throw fail("expected an index or a quoted name")
                    }
                    steps.append(.index(index))
                    position += 1
                }
            default:
                throw fail("unexpected \(characters[position])")
            }
        }
        self.steps = steps
    }

    private static func error(_ path: String, _ reason: String) -> RequestError {
        RequestError(.captureFailed, "invalid JSON path \(path.debugDescription): \(reason)")
    }

    /// The value at this path, or nil when some step does not exist.
    public func evaluate(_ value: JSONValue) -> JSONValue? {
        var current = value
        for step in steps {
            switch step {
            case .member(let name):
                guard let next = current[name] else { return nil }
                current = next
            case .index(let index):
                guard case .array(let elements) = current else { return nil }
                let resolved = index < 0 ? elements.count + index : index
                guard elements.indices.contains(resolved) else { return nil }
                current = elements[resolved]
            }
        }
        return current
    }
}
