import Foundation

/// A JSON document that keeps object members in their original order, so what Curlew shows and
/// sends matches what was written. Integers stay integers (no silent rounding of large ids).
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([JSONMember])

    /// The member named `key` of an object, or nil; of a name given twice, the last, as
    /// JavaScript, Python, jq and `JSONDecoder` read it (a crafted HAR or answer then means
    /// here what it means to the tools beside Curlew).
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.key == key }?.value
    }

    /// The element at `index` of an array, or nil.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The value as a bare string the way it would appear in a URL or header: strings unquoted,
    /// numbers and booleans as literals, containers as compact JSON.
    public var textValue: String {
        switch self {
        case .string(let value): value
        case .null: ""
        default: serialized()
        }
    }
}

extension JSONValue {
    /// This value with every string in it, members' names included unless `namesToo` is false,
    /// passed through `transform`, at any depth: how templates are filled in inside JSON, each
    /// string as a whole (as a JSON body's text has every string filled, `JSONTemplateFill`).
    public func mappingStrings<Failure: Error>(namesToo: Bool = true, _ transform: (String) throws(Failure) -> String) throws(Failure) -> JSONValue {
        switch self {
        case .string(let text): return .string(try transform(text))
        case .array(let elements):
            var mapped: [JSONValue] = []
            for element in elements { mapped.append(try element.mappingStrings(namesToo: namesToo, transform)) }
            return .array(mapped)
        case .object(let members):
            var mapped: [JSONMember] = []
            for member in members {
                mapped.append(JSONMember(namesToo ? try transform(member.key) : member.key, try member.value.mappingStrings(namesToo: namesToo, transform)))
            }
            return .object(mapped)
        default: return self
        }
    }
}

extension JSONValue {
    /// A member name that appears twice in one object, at any depth; nil when none does. Two
    /// members that came to one name once their templates were filled are refused, since JSON
    /// parsers disagree on which of the two counts.
    public var repeatedMemberName: String? {
        switch self {
        case .object(let members):
            var seen = Set<String>()
            for member in members {
                if !seen.insert(member.key).inserted { return member.key }
                if let name = member.value.repeatedMemberName { return name }
            }
            return nil
        case .array(let elements):
            for element in elements { if let name = element.repeatedMemberName { return name } }
            return nil
        default:
            return nil
        }
    }
}

/// One member of a JSON object.
public struct JSONMember: Sendable, Equatable {
    public var key: String
    public var value: JSONValue

    public init(_ key: String, _ value: JSONValue) {
        self.key = key
        self.value = value
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(elements.map { JSONMember($0.0, $0.1) })
    }
}

extension JSONValue: Codable {
    /// In a text decoded with a `JSONValueSource` (a session log's line), read from the text
    /// parsed once, its members in order; otherwise each kind of value tried in turn.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let source = decoder.userInfo[JSONValueSource.userInfoKey] as? JSONValueSource {
            self = try source.value(at: decoder.codingPath)
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            let keyed = try decoder.container(keyedBy: DynamicKey.self)
            self = .object(try keyed.allKeys.map { JSONMember($0.stringValue, try keyed.decode(JSONValue.self, forKey: $0)) })
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .int(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .double(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(element) }
        case .object(let members):
            var container = encoder.container(keyedBy: DynamicKey.self)
            for member in members { try container.encode(member.value, forKey: DynamicKey(member.key)) }
        }
    }
}

struct DynamicKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
