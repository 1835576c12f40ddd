import CurlewTransport

/// An HTTP method. The common ones are constants; any other token works as a custom method.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, Codable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public init(stringLiteral value: String) {
        self.rawValue = value
    }

    public static let get = HTTPMethod(rawValue: "GET")
    public static let post = HTTPMethod(rawValue: "POST")
    public static let put = HTTPMethod(rawValue: "PUT")
    public static let delete = HTTPMethod(rawValue: "DELETE")
    public static let head = HTTPMethod(rawValue: "HEAD")
    public static let patch = HTTPMethod(rawValue: "PATCH")
    public static let options = HTTPMethod(rawValue: "OPTIONS")
    /// The methods an editor offers and a command line recognises on sight.
    public static let common: [HTTPMethod] = [.get, .post, .put, .patch, .delete, .head, .options]

    /// Methods whose parameters travel in the query string rather than the body, as in AFNetworking.
    public var encodesParametersInQuery: Bool {
        self == .get || self == .head || self == .delete
    }

    /// RFC 9110's idempotent methods: sending one twice has the effect of sending it once, so a
    /// retry is safe. Custom methods are not assumed to be.
    public var isIdempotent: Bool {
        ["GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"].contains(rawValue.uppercased())
    }

    public var description: String { rawValue }

    /// Refuses anything but an RFC 9110 token: a space, CR, LF or NUL in a method would put a
    /// different request (or a second one) on the wire.
    public func validate() throws(RequestError) {
        // The most frequent methods, known tokens, settled by a comparison of short strings.
        if self == .get || self == .post { return }
        guard ASCII.isToken(rawValue) else {
            throw RequestError(.invalidMethod, "method \(ClippedText.quoted(rawValue)) is not an HTTP token (letters, digits and !#$%&'*+-.^_`|~ only)")
        }
    }
}
