/// A declared shape of a JSON document (YTKNetwork's and CCNetwork's `jsonValidator`): keys and
/// their types, nested objects and arrays. Members not declared are allowed.
public indirect enum JSONShape: Sendable, Equatable {
    case string
    /// Any number, integral or not.
    case number
    case integer
    case bool
    case null
    case any
    /// An object with these members; each must be present unless its shape is `.optional`.
    case object([String: JSONShape])
    /// An array whose every element has this shape.
    case array(JSONShape)
    /// May be absent or null; when present, has this shape.
    case optional(JSONShape)

    /// Checks `value`; a mismatch throws `validationFailed` naming the JSON path that failed
    /// (`$.data.items[2].id`) and what was expected there.
    public func validate(_ value: JSONValue) throws(RequestError) {
        guard let mismatch = firstMismatch(in: value) else { return }
        throw RequestError(.validationFailed, mismatch.found.map { "\(mismatch.path): expected \(mismatch.expected), found \($0)" }
                                                ?? "\(mismatch.path): missing, expected \(mismatch.expected)")
    }

    /// Where a document first departs from a shape, and how.
    public struct Mismatch: Sendable, Equatable {
        /// The JSON path (`$.data.items[2].id`).
        public var path: String
        /// The shape wanted there, in words.
        public var expected: String
        /// The type the document holds there, in words; nil for a member that is missing.
        public var found: String?
    }

    /// The first place, members in name order, where `value` does not have this shape.
    public func firstMismatch(in value: JSONValue) -> Mismatch? {
        mismatch(value, path: "$")
    }

    private func mismatch(_ value: JSONValue, path: String) -> Mismatch? {
        switch (self, value) {
        case (.any, _), (.string, .string), (.number, .int), (.number, .double), (.integer, .int), (.bool, .bool), (.null, .null):
            return nil
        case (.optional, .null):
            return nil
        case (.optional(let inner), _):
            return inner.mismatch(value, path: path)
        case (.array(let element), .array(let elements)):
            for (index, item) in elements.enumerated() {
                if let failure = element.mismatch(item, path: "\(path)[\(index)]") { return failure }
            }
            return nil
        case (.object(let members), .object(let present)):
            for name in members.keys.sorted() {
                let shape = members[name]!
                let memberPath = path + "." + name
                guard let found = present.last(where: { $0.key == name }) else {
                    if case .optional = shape { continue }
                    return Mismatch(path: memberPath, expected: shape.name, found: nil)
                }
                if let failure = shape.mismatch(found.value, path: memberPath) { return failure }
            }
            return nil
        default:
            return Mismatch(path: path, expected: name, found: value.typeName)
        }
    }

    /// The shape in words, for error messages.
    public var name: String {
        switch self {
        case .string: "a string"
        case .number: "a number"
        case .integer: "an integer"
        case .bool: "a boolean"
        case .null: "null"
        case .any: "anything"
        case .object: "an object"
        case .array(let element): "an array of \(element.pluralName)"
        case .optional(let inner): "\(inner.name) or null"
        }
    }

    private var pluralName: String {
        switch self {
        case .string: "strings"
        case .number: "numbers"
        case .integer: "integers"
        case .bool: "booleans"
        case .object: "objects"
        case .array: "arrays"
        default: "elements of \(name)"
        }
    }
}

extension JSONValue {
    /// The value's JSON type in words.
    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .int: "an integer"
        case .double: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
