import CurlewTransport
import Foundation

/// One header field.
public typealias HeaderField = CurlewTransport.HeaderField

/// Header fields in order. Names compare case-insensitively; `merged(over:)` lets one set override another.
///
/// A response's headers stay as the transport received them until they are read: looking one up
/// by name makes only its value into a string, and `fields` (or iterating) makes them all, on
/// each read.
public struct HTTPHeaders: Sendable, Equatable, Codable, Sequence, ExpressibleByDictionaryLiteral {
    /// The fields given or changed here; unused while `received` holds them.
    private var written: [HeaderField]
    /// A response's fields as received, until something changes them.
    private var received: ReceivedHeaders?

    public var fields: [HeaderField] {
        received?.fields ?? written
    }

    public init(_ fields: [HeaderField] = []) {
        written = fields
    }

    /// A response's headers as received.
    init(received: ReceivedHeaders) {
        written = []
        self.received = received
    }

    /// The fields as the transport received them, while nothing has changed them.
    var receivedHeaders: ReceivedHeaders? { received }

    public init(dictionaryLiteral elements: (String, String)...) {
        written = elements.map { HeaderField(name: $0.0, value: $0.1) }
    }

    private enum CodingKeys: String, CodingKey {
        case fields
    }

    public init(from decoder: any Decoder) throws {
        self.init(try decoder.container(keyedBy: CodingKeys.self).decode([HeaderField].self, forKey: .fields))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(fields, forKey: .fields)
    }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields == rhs.fields
    }

    public func makeIterator() -> IndexingIterator<[HeaderField]> {
        fields.makeIterator()
    }

    public var isEmpty: Bool { received?.isEmpty ?? written.isEmpty }

    /// Whether both are one written list, copied and changed by neither: equal without a comparison.
    func sharesStorage(with other: HTTPHeaders) -> Bool {
        if case .some = received { return false }
        if case .some = other.received { return false }
        return written.withUnsafeBufferPointer { mine in other.written.withUnsafeBufferPointer { $0.baseAddress == mine.baseAddress } }
    }

    /// The first value for `name`, compared case-insensitively.
    public subscript(name: String) -> String? {
        get {
            if let received { return received.first(name) }
            return written.first { ASCII.equalsIgnoringCase($0.name, name) }?.value
        }
        set {
            if let newValue { set(name, newValue) } else { remove(name) }
        }
    }

    /// Replaces every field named `name` with one field, keeping the position of the first.
    public mutating func set(_ name: String, _ value: String) {
        settle()
        guard let index = written.firstIndex(where: { ASCII.equalsIgnoringCase($0.name, name) }) else {
            written.append(HeaderField(name: name, value: value))
            return
        }
        written[index] = HeaderField(name: name, value: value)
        written = written.enumerated()
            .filter { $0.offset == index || !ASCII.equalsIgnoringCase($0.element.name, name) }
            .map(\.element)
    }

    /// Adds a field, keeping any others with the same name.
    public mutating func add(_ name: String, _ value: String) {
        settle()
        written.append(HeaderField(name: name, value: value))
    }

    public mutating func remove(_ name: String) {
        settle()
        written.removeAll { ASCII.equalsIgnoringCase($0.name, name) }
    }

    /// Makes received fields into written ones, before a change.
    private mutating func settle() {
        guard let received else { return }
        written = received.fields
        self.received = nil
    }

    /// These headers laid over `base`: a name present here replaces every field of that name in base.
    public func merged(over base: HTTPHeaders) -> HTTPHeaders {
        guard !isEmpty else { return base }
        let fields = fields
        return HTTPHeaders(base.fields.filter { field in !fields.contains { ASCII.equalsIgnoringCase($0.name, field.name) } } + fields)
    }

    /// Headers that frame the body on the wire.
    static let framingHeaders = ["Content-Length", "Transfer-Encoding"]

    /// Fields (lower-case) a request sends one value of: given twice, the second replaces the
    /// first rather than joining it (`Bearer a, Bearer b` is a credential nobody sent).
    public static let singleValuedNames: Set<String> = [
        "authorization", "proxy-authorization", "content-type", "host", "user-agent", "referer", "range",
        "if-modified-since", "if-unmodified-since", "max-forwards", "from",
    ]

    /// Checks every field for what would corrupt the request on the wire: names that are not HTTP
    /// tokens, control bytes in values (CR, LF or NUL would inject headers), and framing headers
    /// given by hand.
    /// The `Authorization` value of HTTP Basic authentication for `credentials`, `user:password`.
    public static func basicAuthorization(_ credentials: String) -> String {
        "Basic " + Data(credentials.utf8).base64EncodedString()
    }

    public func validate() throws(RequestError) {
        try validateSyntax()
        for field in fields {
            // The body's framing is libcurl's to write: a Content-Length or Transfer-Encoding that
            // disagrees with the body would let part of it be read as a second request.
            if Self.framingHeaders.contains(where: { ASCII.equalsIgnoringCase($0, field.name) }) {
                throw RequestError(.invalidHeader, "header \(field.name) is set from the body; refusing one given by hand (request smuggling)")
            }
        }
    }

    /// Checks only the fields' syntax: names are HTTP tokens, values hold no control byte but
    /// HTAB (RFC 9110's field-content: visible characters, space, tab and bytes from 0x80).
    public func validateSyntax() throws(RequestError) {
        for field in fields {
            guard ASCII.isToken(field.name) else {
                throw RequestError(.invalidHeader, "header name \(ClippedText.quoted(field.name)) is not a valid HTTP token")
            }
            guard let control = Self.firstControlByte(in: field.value) else { continue }
            if control == 0x0D || control == 0x0A || control == 0x00 {
                throw RequestError(.invalidHeader, "header \(ClippedText.plain(field.name)) contains CR, LF or NUL; refusing to send (header injection)")
            }
            throw RequestError(.invalidHeader, "header \(ClippedText.plain(field.name)) contains the control byte \(String(format: "0x%02X", control)); a header value may hold visible characters, spaces and tabs")
        }
    }

    /// The first byte of `value` a field value may not hold: below 0x20 except HTAB, or DEL.
    private static func firstControlByte(in value: String) -> UInt8? {
        value.withUTF8Bytes { bytes in
            for byte in bytes where (byte < 0x20 && byte != 0x09) || byte == 0x7F { return byte }
            return nil
        }
    }

}
