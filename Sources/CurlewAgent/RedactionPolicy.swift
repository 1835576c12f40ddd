import CurlewTransport
import Foundation

/// What to hide before a debug message is written to a log or exported: credential headers,
/// declared query parameters and body fields, and any declared secret value wherever it appears.
///
/// It lives in the agent (not with the log readers) because the network logger, an agent observer,
/// must redact before anything reaches the disk.
public struct RedactionPolicy: Sendable, Equatable {
    public static let marker = "[REDACTED]"

    public var isEnabled: Bool
    /// Header names (any case) whose values are hidden.
    public var headerNames: Set<String> { didSet { refreshSecretKeys() } }
    /// Query and form parameter names whose values are hidden.
    public var parameterNames: Set<String> { didSet { refreshSecretKeys() } }
    private var parameterNameBytes: [[UInt8]] = []
    /// JSON body member names whose values are hidden, at any depth.
    public var bodyFieldNames: Set<String> { didSet { refreshSecretKeys() } }
    /// JSON member names whose values are hidden: declared body fields and parameters, and header
    /// names too, since echoing servers reflect request headers into JSON bodies. Lowercased.
    private var secretKeys: Set<String> = []
    /// Literal secrets (tokens, passwords) hidden wherever they appear.
    public var secretValues: [String]

    public init(
        isEnabled: Bool = true,
        headerNames: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key"],
        parameterNames: Set<String> = ["password", "token", "access_token", "api_key", "apikey", "client_secret"],
        bodyFieldNames: Set<String> = ["password", "token", "access_token", "refresh_token", "client_secret", "secret"],
        secretValues: [String] = []
    ) {
        self.isEnabled = isEnabled
        self.headerNames = Set(headerNames.map { $0.lowercased() })
        self.parameterNames = parameterNames
        self.bodyFieldNames = bodyFieldNames
        self.secretValues = secretValues.filter { !$0.isEmpty }
        refreshSecretKeys()
    }

    private mutating func refreshSecretKeys() {
        parameterNameBytes = parameterNames.map { Array($0.utf8) }
        secretKeys = Set(bodyFieldNames.map { $0.lowercased() }).union(parameterNames.map { $0.lowercased() }).union(headerNames.map { $0.lowercased() })
    }

    /// Redaction off: logs keep everything. Only for logs that never leave the machine.
    public static let disabled = RedactionPolicy(isEnabled: false)

    public func redact(_ message: DebugMessage) -> DebugMessage {
        guard isEnabled else { return message }
        var message = message
        if var original = message.original {
            original.url = redactURL(original.url)
            original.headers = original.headers.map(redactHeader)
            original.params = redactJSON(original.params, keys: secretKeys)
            original.body = original.body.map(redactBody)
            message.original = original
        }
        if var sent = message.sent {
            sent.head = redactHead(sent.head)
            sent.body = sent.body.map(redactBody)
            message.sent = sent
        }
        if var response = message.response {
            response.headers = response.headers.map(redactHeader)
            response.body = redactBody(response.body)
            message.response = response
        }
        if var connection = message.connection {
            connection.effectiveURL = redactURL(connection.effectiveURL)
            message.connection = connection
        }
        if var error = message.error {
            error.message = replaceSecrets(error.message)
            message.error = error
        }
        return message
    }

    private func replaceSecrets(_ text: String) -> String {
        guard !secretValues.isEmpty else { return text }
        return secretValues.reduce(text) { $0.replacingOccurrences(of: $1, with: Self.marker) }
    }

    private func isSecretHeader(_ name: some StringProtocol) -> Bool {
        headerNames.contains { ASCII.equalsIgnoringCase($0, String(name)) }
    }

    private func redactHeader(_ field: HeaderField) -> HeaderField {
        isSecretHeader(field.name)
            ? HeaderField(name: field.name, value: Self.marker)
            : HeaderField(name: field.name, value: replaceSecrets(field.value))
    }

    /// Redacts the header lines of a raw request head, and the query of its request line.
    private func redactHead(_ head: String) -> String {
        var lines: [Substring] = []
        var start = head.utf8.startIndex
        var index = start
        let end = head.utf8.endIndex
        while index < end {
            let next = head.utf8.index(after: index)
            if head.utf8[index] == 0x0D, next < end, head.utf8[next] == 0x0A {
                lines.append(head[start..<index])
                start = head.utf8.index(after: next)
                index = start
            } else {
                index = next
            }
        }
        lines.append(head[start..<end])
        var changed = false
        var output: [String] = []
        output.reserveCapacity(lines.count)
        for (number, line) in lines.enumerated() {
            let text = String(line)
            let redacted: String
            if number == 0 {
                redacted = redactURL(text)
            } else if let colon = text.utf8.firstIndex(of: UInt8(ascii: ":")), isSecretHeader(text[..<colon]) {
                redacted = text[...colon] + " " + Self.marker
            } else {
                redacted = replaceSecrets(text)
            }
            changed = changed || redacted != text
            output.append(redacted)
        }
        return changed ? output.joined(separator: "\r\n") : head
    }

    /// Hides the values of declared parameters in a query string found anywhere in `text`.
    private func redactURL(_ text: String) -> String {
        replaceSecrets(redactPairs(text, separators: [UInt8(ascii: "?"), UInt8(ascii: "&")]))
    }

    private func isSecretParameter(_ name: [UInt8]) -> Bool {
        if name.contains(UInt8(ascii: "%")) {
            let decoded = String(decoding: name, as: UTF8.self)
            return parameterNames.contains(decoded.removingPercentEncoding ?? decoded)
        }
        return parameterNameBytes.contains { $0 == name }
    }

    /// A byte-level walk over `name=value` pairs, hiding values of declared parameter names.
    private func redactPairs(_ text: String, separators: Set<UInt8>) -> String {
        guard !parameterNames.isEmpty, text.utf8.contains(UInt8(ascii: "=")) else { return text }
        let marker = Array(Self.marker.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        var name: [UInt8] = []
        var inValue = false
        var hiding = false
        var changed = false
        for byte in text.utf8 {
            if separators.contains(byte) || byte == 0x20 || byte == UInt8(ascii: "#") {
                if hiding { output += marker }
                inValue = false
                hiding = false
                name.removeAll(keepingCapacity: true)
                output.append(byte)
            } else if byte == UInt8(ascii: "="), !inValue {
                inValue = true
                hiding = isSecretParameter(name)
                changed = changed || hiding
                output.append(byte)
            } else if inValue {
                if !hiding { output.append(byte) }
            } else {
                name.append(byte)
                output.append(byte)
            }
        }
        if hiding { output += marker }
        return changed ? String(decoding: output, as: UTF8.self) : text
    }

    private func redactBody(_ body: BodySnapshot) -> BodySnapshot {
        guard let text = body.text else { return body }
        let type = body.contentType?.lowercased() ?? ""
        var redacted = text
        let keys = secretKeys
        if type.contains("json"), Self.containsAnyQuotedKey(text, keys), let json = try? JSONValue.parse(text) {
            redacted = redactJSON(json, keys: keys).serialized()
        } else if type.contains("x-www-form-urlencoded") {
            redacted = redactPairs(text, separators: [UInt8(ascii: "&")])
        }
        redacted = replaceSecrets(redacted)
        guard redacted != text else { return body }
        let size = body.isTruncated ? body.size : Int64(redacted.utf8.count)
        return BodySnapshot(kept: Data(redacted.utf8), size: size, contentType: body.contentType)
    }

    /// Whether any object member name in the JSON text is one of `keys` (ignoring ASCII case):
    /// one pass over the bytes, before paying for a parse.
    private static func containsAnyQuotedKey(_ text: String, _ keys: Set<String>) -> Bool {
        var found = false
        var text = text
        text.withUTF8 { bytes in
            var index = 0
            while index < bytes.count, !found {
                guard bytes[index] == UInt8(ascii: "\"") else { index += 1; continue }
                let start = index + 1
                var end = start
                while end < bytes.count, bytes[end] != UInt8(ascii: "\"") { end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1 }
                var after = end + 1
                while after < bytes.count, bytes[after] == 0x20 || bytes[after] == 0x0A || bytes[after] == 0x0D || bytes[after] == 0x09 { after += 1 }
                if after < bytes.count, bytes[after] == UInt8(ascii: ":"), end <= bytes.count, end - start < 64 {
                    let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<min(end, bytes.count)]).map(ASCII.lowercase), as: UTF8.self)
                    found = keys.contains(name)
                }
                index = end + 1
            }
        }
        return found
    }

    private func redactJSON(_ value: JSONValue, keys: Set<String>) -> JSONValue {
        switch value {
        case .object(let members):
            return .object(members.map { member in
                let hidden = keys.contains(member.key.lowercased())
                return JSONMember(member.key, hidden ? .string(Self.marker) : redactJSON(member.value, keys: keys))
            })
        case .array(let elements):
            return .array(elements.map { redactJSON($0, keys: keys) })
        case .string(let text):
            return .string(redactURL(text))
        default:
            return value
        }
    }
}
