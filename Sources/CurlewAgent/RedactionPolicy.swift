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
        var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        var changed = false
        for index in lines.indices {
            let line = lines[index]
            let redacted: String
            if index == 0 {
                redacted = redactURL(line)
            } else if let colon = line.utf8.firstIndex(of: UInt8(ascii: ":")), isSecretHeader(line[..<colon]) {
                redacted = line[...colon] + " " + Self.marker
            } else {
                redacted = replaceSecrets(line)
            }
            if redacted != line {
                lines[index] = redacted
                changed = true
            }
        }
        return changed ? lines.joined(separator: "\r\n") : head
    }

    /// Hides the values of declared parameters in a query string found anywhere in `text`.
    private func redactURL(_ text: String) -> String {
        replaceSecrets(redactPairs(text, separators: [UInt8(ascii: "?"), UInt8(ascii: "&")]))
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
                let decoded = String(decoding: name, as: UTF8.self)
                hiding = parameterNames.contains(decoded.contains("%") ? decoded.removingPercentEncoding ?? decoded : decoded)
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

    /// Whether `"key"` appears in `text` for any key, ignoring ASCII case: a cheap test before parsing.
    private static func containsAnyQuotedKey(_ text: String, _ keys: Set<String>) -> Bool {
        let haystack = text.utf8.map(ASCII.lowercase)
        return keys.contains { key in
            let needle = [UInt8(ascii: "\"")] + Array(key.utf8) + [UInt8(ascii: "\"")]
            return haystack.withUnsafeBufferPointer { Self.contains($0, needle) }
        }
    }

    private static func contains(_ haystack: UnsafeBufferPointer<UInt8>, _ needle: [UInt8]) -> Bool {
        guard let first = needle.first, needle.count <= haystack.count else { return false }
        var index = 0
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == first {
                var offset = 1
                while offset < needle.count, haystack[index + offset] == needle[offset] { offset += 1 }
                if offset == needle.count { return true }
            }
            index += 1
        }
        return false
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
