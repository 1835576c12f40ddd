/// Request parameters in the order they were given. Values are JSON so that a JSON body can carry
/// nesting; for query strings and forms they are flattened the way AFNetworking does
/// (`key[]=a&key[]=b`, `key[sub]=v`).
public struct Parameters: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    public private(set) var entries: [JSONMember]

    public init(_ entries: [JSONMember] = []) {
        self.entries = entries
    }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        entries = elements.map { JSONMember($0.0, $0.1) }
    }

    public func makeIterator() -> IndexingIterator<[JSONMember]> {
        entries.makeIterator()
    }

    public var isEmpty: Bool { entries.isEmpty }

    public subscript(name: String) -> JSONValue? {
        get { entries.first { $0.key == name }?.value }
        set {
            if let newValue {
                if let index = entries.firstIndex(where: { $0.key == name }) {
                    entries[index].value = newValue
                } else {
                    entries.append(JSONMember(name, newValue))
                }
            } else {
                entries.removeAll { $0.key == name }
            }
        }
    }

    /// These parameters laid over `base`: a name present here replaces base's value.
    public func merged(over base: Parameters) -> Parameters {
        if base.entries.isEmpty { return self }
        if entries.isEmpty { return base }
        let overridden = Set(entries.map(\.key))
        return Parameters(base.entries.filter { !overridden.contains($0.key) } + entries)
    }

    /// `a=1&b=two%20words`, percent-encoding everything outside RFC 3986's unreserved set.
    public var percentEncoded: String {
        formFields.map { Self.percentEncode($0.name) + "=" + Self.percentEncode($0.value) }.joined(separator: "&")
    }

    /// The parameters flattened to name and value pairs, as a form or a query carries them.
    public var formFields: [(name: String, value: String)] {
        var pairs: [(name: String, value: String)] = []
        for entry in entries { Self.flatten(entry.value, key: entry.key, into: &pairs) }
        return pairs
    }

    public var jsonObject: JSONValue {
        .object(entries)
    }

    private static func flatten(_ value: JSONValue, key: String, into pairs: inout [(name: String, value: String)]) {
        switch value {
        case .array(let elements):
            for element in elements { flatten(element, key: key + "[]", into: &pairs) }
        case .object(let members):
            for member in members { flatten(member.value, key: "\(key)[\(member.key)]", into: &pairs) }
        default:
            pairs.append((key, value.textValue))
        }
    }

    /// Percent-encodes a query or form component.
    public static func percentEncode(_ text: String) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                output += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return output
    }
}
