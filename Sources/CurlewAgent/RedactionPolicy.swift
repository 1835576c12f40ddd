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
    public var headerNames: Set<String>
    /// Query and form parameter names whose values are hidden.
    public var parameterNames: Set<String>
    /// JSON body member names whose values are hidden, at any depth.
    public var bodyFieldNames: Set<String>
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

    /// JSON member names whose values are hidden: declared body fields and parameters, and header
    /// names too, since echoing servers reflect request headers into JSON bodies.
    private var secretKeys: Set<String> {
        Set(bodyFieldNames.map { $0.lowercased() }).union(parameterNames.map { $0.lowercased() }).union(headerNames)
    }

    private func replaceSecrets(_ text: String) -> String {
        secretValues.reduce(text) { $0.replacingOccurrences(of: $1, with: Self.marker) }
    }

    private func redactHeader(_ field: HeaderField) -> HeaderField {
        headerNames.contains(field.name.lowercased())
            ? HeaderField(name: field.name, value: Self.marker)
            : HeaderField(name: field.name, value: replaceSecrets(field.value))
    }

    /// Redacts the header lines of a raw request head, and the query of its request line.
    private func redactHead(_ head: String) -> String {
        var lines = head.components(separatedBy: "\r\n")
        for index in lines.indices {
            if index == 0 {
                lines[0] = redactURL(lines[0])
            } else if let colon = lines[index].firstIndex(of: ":"),
                      headerNames.contains(lines[index][..<colon].lowercased()) {
                lines[index] = lines[index][...colon] + " " + Self.marker
            } else {
                lines[index] = replaceSecrets(lines[index])
            }
        }
        return lines.joined(separator: "\r\n")
    }

    /// Hides the values of declared parameters in a query string found anywhere in `text`.
    private func redactURL(_ text: String) -> String {
        replaceSecrets(redactPairs(text, separators: "?&"))
    }

    private func redactPairs(_ text: String, separators: String) -> String {
        guard !parameterNames.isEmpty, text.contains("=") else { return text }
        var output = ""
        var name = ""
        var inValue = false
        var hiding = false
        for character in text {
            if separators.contains(character) || character == " " || character == "#" {
                if hiding { output += Self.marker }
                inValue = false
                hiding = false
                name = ""
                output.append(character)
            } else if character == "=" && !inValue {
                inValue = true
                hiding = parameterNames.contains(name.removingPercentEncoding ?? name)
                output.append(character)
            } else if inValue {
                if !hiding { output.append(character) }
            } else {
                name.append(character)
                output.append(character)
            }
        }
        if hiding { output += Self.marker }
        return output
    }

    private func redactBody(_ body: BodySnapshot) -> BodySnapshot {
        guard let text = body.text else { return body }
        let type = body.contentType?.lowercased() ?? ""
        var redacted = text
        let keys = secretKeys
        if type.contains("json"), keys.contains(where: { text.range(of: $0, options: .caseInsensitive) != nil }),
           let json = try? JSONValue.parse(text) {
            redacted = redactJSON(json, keys: keys).serialized()
        } else if type.contains("x-www-form-urlencoded") {
            redacted = redactPairs(text, separators: "&")
        }
        redacted = replaceSecrets(redacted)
        guard redacted != text else { return body }
        let size = body.isTruncated ? body.size : Int64(redacted.utf8.count)
        return BodySnapshot(kept: Data(redacted.utf8), size: size, contentType: body.contentType)
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
