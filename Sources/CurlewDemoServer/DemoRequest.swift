import Foundation

/// A fully received request as the demo routes see it.
struct DemoRequest: Sendable {
    var method: String
    var uri: String
    var path: String
    var query: [(name: String, value: String)]
    var headers: [(name: String, value: String)]
    var body: [UInt8]
    var remoteAddress: String
    var keepAlive: Bool
    /// Whether the client reads chunked framing: not over HTTP/1.0, which ends such a body with
    /// the connection.
    var takesChunked = true
    /// For a streamed upload (`/upload`): the body's size and SHA-256, in place of `body`.
    var streamedBody: (bytes: Int, sha256: String)?

    init(method: String, uri: String, headers: [(name: String, value: String)], body: [UInt8], remoteAddress: String, keepAlive: Bool) {
        self.method = method
        self.uri = uri
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
        self.keepAlive = keepAlive
        let components = URLComponents(string: uri)
        path = components?.percentEncodedPath.removingPercentEncoding ?? uri
        query = (components?.queryItems ?? []).map { ($0.name, $0.value ?? "") }
    }

    func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    func queryValue(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }

    /// A numeric query parameter: `fallback` when absent, nil when it is not a decimal number in
    /// `range` (so the route answers 400 instead of computing with it).
    func number(_ name: String, default fallback: Double, in range: ClosedRange<Double>) -> Double? {
        guard let text = queryValue(name) else { return fallback }
        return Self.decimal(text, in: range)
    }

    /// A whole-number query parameter: `fallback` when absent, nil when it is not written in
    /// decimal digits alone (`2.0` is not a count) or lies outside `range`.
    func wholeNumber(_ name: String, default fallback: Int, in range: ClosedRange<Int>) -> Int? {
        guard let text = queryValue(name) else { return fallback }
        return Self.wholeNumber(text).flatMap { range.contains($0) ? $0 : nil }
    }

    /// `text` as a whole number written in decimal digits alone (no sign, no spaces); nil for
    /// anything else, and for a number past the largest `N`.
    static func wholeNumber<N: FixedWidthInteger>(_ text: some StringProtocol, as: N.Type = Int.self) -> N? {
        isDigits(text) ? N(text) : nil
    }

    /// `text` as a position or count written in decimal digits alone, a number past the largest
    /// integer read as that integer: every such number lies past the end of anything sent (a
    /// body's last byte, a stream's last event); nil for anything but digits.
    static func position(_ text: some StringProtocol) -> Int? {
        isDigits(text) ? Int(text) ?? Int.max : nil
    }

    /// Whether `text` is one or more decimal digits and nothing else.
    private static func isDigits(_ text: some StringProtocol) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { (0x30...0x39).contains($0) }
    }

    /// `text` as a number written in decimal digits with a point at most (`12`, `0.5`) within
    /// `range`; nil for anything else, such as a sign or the hexadecimal (`0x10`), exponent
    /// (`1e3`), `inf` and `nan` forms `Double` also reads.
    static func decimal(_ text: some StringProtocol, in range: ClosedRange<Double>) -> Double? {
        guard text.utf8.allSatisfy({ (0x30...0x39).contains($0) || $0 == UInt8(ascii: ".") }),
              let value = Double(String(text)), range.contains(value) else { return nil }
        // A fraction finer than a double holds reads as a whole number (60.0000000000000000001 as
        // 60, 199.99999999999999999 as 200), which could pass a bound or a whole-number check the
        // number itself fails: refused as the number it is.
        if value == value.rounded(.down), let point = text.firstIndex(of: "."),
           text[text.index(after: point)...].utf8.contains(where: { $0 != UInt8(ascii: "0") }) {
            return nil
        }
        return value
    }

    /// Path segments after the leading slash: "/delay/2" gives ["delay", "2"].
    var segments: [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: true)
    }
}
