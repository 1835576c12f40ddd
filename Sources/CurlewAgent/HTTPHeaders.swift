/// One header field.
public struct HeaderField: Sendable, Equatable, Codable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// Header fields in order. Names compare case-insensitively; `merged(over:)` lets one set override another.
public struct HTTPHeaders: Sendable, Equatable, Codable, Sequence, ExpressibleByDictionaryLiteral {
    public private(set) var fields: [HeaderField]

    public init(_ fields: [HeaderField] = []) {
        self.fields = fields
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { HeaderField(name: $0.0, value: $0.1) }
    }

    public func makeIterator() -> IndexingIterator<[HeaderField]> {
        fields.makeIterator()
    }

    public var isEmpty: Bool { fields.isEmpty }

    /// The first value for `name`, compared case-insensitively.
    public subscript(name: String) -> String? {
        get { fields.first { $0.name.lowercased() == name.lowercased() }?.value }
        set {
            if let newValue { set(name, newValue) } else { remove(name) }
        }
    }

    /// Replaces every field named `name` with one field, keeping the position of the first.
    public mutating func set(_ name: String, _ value: String) {
        let key = name.lowercased()
        guard let index = fields.firstIndex(where: { $0.name.lowercased() == key }) else {
            fields.append(HeaderField(name: name, value: value))
            return
        }
        fields[index] = HeaderField(name: name, value: value)
        fields = fields.enumerated()
            .filter { $0.offset == index || $0.element.name.lowercased() != key }
            .map(\.element)
    }

    /// Adds a field, keeping any others with the same name.
    public mutating func add(_ name: String, _ value: String) {
        fields.append(HeaderField(name: name, value: value))
    }

    public mutating func remove(_ name: String) {
        fields.removeAll { $0.name.lowercased() == name.lowercased() }
    }

    /// These headers laid over `base`: a name present here replaces every field of that name in base.
    public func merged(over base: HTTPHeaders) -> HTTPHeaders {
        let overridden = Set(fields.map { $0.name.lowercased() })
        return HTTPHeaders(base.fields.filter { !overridden.contains($0.name.lowercased()) } + fields)
    }

    /// Checks every field for what would corrupt the request on the wire: names that are not HTTP
    /// tokens, and CR, LF or NUL in values (header injection).
    public func validate() throws(RequestError) {
        for field in fields {
            guard !field.name.isEmpty, field.name.utf8.allSatisfy(Self.isTokenByte) else {
                throw RequestError(.invalidHeader, "header name \(field.name.debugDescription) is not a valid HTTP token")
            }
            if field.value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }) {
                throw RequestError(.invalidHeader, "header \(field.name) contains CR, LF or NUL; refusing to send (header injection)")
            }
        }
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
