import CurlewTransport
import Foundation

/// What to hide before a debug message is written to a log or exported: credential headers,
/// declared query parameters and body fields, and any declared secret value wherever it appears.
///
/// It lives in the agent (not with the log readers) because the network logger, an agent observer,
/// must redact before anything reaches the disk.
public struct RedactionPolicy: Sendable, Equatable {
    public static let marker = URLPassword.marker
    /// The header names hidden by default; requests drop them on a redirect to another origin.
    public static let defaultHeaderNames: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "x-auth-token", "x-access-token",
    ]

    /// Query and form parameters hidden by default: passwords, OAuth's tokens and secrets, API
    /// keys, session and auth tokens, private keys, JWTs, signatures (AWS's presigned URLs sign
    /// with `X-Amz-Signature`), AWS's session token and secret access key, and a password's
    /// confirmation. Each is matched as `SecretNames` matches,
    /// so `access_token` is also `accessToken` and `access-token`.
    public static let defaultParameterNames: Set<String> = [
        "password", "passwd", "pwd", "passphrase", "token", "access_token", "refresh_token", "id_token", "auth_token",
        "session_token", "api_key", "api_token", "client_secret", "secret", "secret_key", "private_key", "jwt",
        "signature", "x-amz-signature", "x-amz-security-token", "secret_access_key", "password_confirmation",
    ]

    public var isEnabled: Bool
    /// Header names (any case) whose values are hidden.
    public var headerNames: Set<String> { didSet { refreshSecretKeys() } }
    /// Query and form parameter names whose values are hidden, as `SecretNames` matches them (any
    /// case and without `_`, `-` and `.`: `Password=` and `access-token=` too).
    public var parameterNames: Set<String> { didSet { refreshSecretKeys() } }
    /// JSON body member names whose values are hidden, at any depth.
    public var bodyFieldNames: Set<String> { didSet { refreshSecretKeys() } }
    /// The names whose values are hidden wherever they stand, as a JSON member, a form part, a
    /// query or form parameter (also nested, `user[token]`) or a header: declared body fields,
    /// parameters and secret headers' names, since echoing servers reflect each into the others.
    private var secretKeys = SecretNames([])
    /// The names of `secretKeys` and `jwt`, folded: a variable whose folded name ends in one is hidden.
    private var variableNameEndings: [String] = []
    /// Whether `Cookie` is among the hidden headers, so cookie values are secrets everywhere.
    private var hidesCookieValues = false
    /// Cookie values are hidden but `Set-Cookie` headers are not: the checks for whether a
    /// message holds anything to hide do not see the cookies a response sets.
    private var setCookieNeedsOwnLook = false
    /// Literal secrets (tokens, passwords) hidden wherever they appear.
    public var secretValues: [String] {
        didSet {
            // Values added at the end (a message's credentials, for every message that has
            // some) add their forms; any other change works them all out again.
            secretForms = secretValues.starts(with: oldValue)
                ? Self.forms(of: secretValues[oldValue.count...], adding: secretForms) : Self.forms(of: secretValues)
        }
    }
    /// Hides `values` too, those not hidden already, added at the end (so only their forms are
    /// worked out); true when one was new. Nothing changes when redaction is off.
    @discardableResult
    public mutating func hideAlso(_ values: [String]) -> Bool {
        guard isEnabled else { return false }
        let known = Set(secretValues)
        let added = values.filter { !known.contains($0) }
        guard !added.isEmpty else { return false }
        secretValues += added
        return true
    }

    /// Hides the values of the headers so named too (any case), those not hidden already; true
    /// when one was new. Nothing changes when redaction is off.
    @discardableResult
    public mutating func hideAlso(headers names: Set<String>) -> Bool {
        let names = Set(names.map { $0.lowercased() })
        guard isEnabled, !names.isSubset(of: headerNames) else { return false }
        headerNames.formUnion(names)
        return true
    }

    /// What is looked for: each secret as it is, and as a quoted string (an error's `"…"`) or
    /// JSON (a body) writes it when that differs. A quote, a backslash or a control character in
    /// a secret is escaped there, where the secret as it is would not be found. Longest first, so
    /// a secret inside another does not leave the rest of the longer one.
    private var secretForms: [String] = []

    public init(
        isEnabled: Bool = true,
        headerNames: Set<String> = RedactionPolicy.defaultHeaderNames,
        parameterNames: Set<String> = RedactionPolicy.defaultParameterNames,
        bodyFieldNames: Set<String> = ["password", "token", "access_token", "refresh_token", "client_secret", "secret"],
        secretValues: [String] = []
    ) {
        self.isEnabled = isEnabled
        self.headerNames = Set(headerNames.map { $0.lowercased() })
        self.parameterNames = parameterNames
        self.bodyFieldNames = bodyFieldNames
        self.secretValues = secretValues.filter { !$0.isEmpty }
        secretForms = Self.forms(of: self.secretValues)
        refreshSecretKeys()
    }

    /// `text` as the session log's writer puts it in a JSON string, without the quotes.
    private static func jsonEscaped(_ text: String) -> String {
        var writer = SessionRecordWriter()
        writer.string(text)
        return String(decoding: writer.bytes.dropFirst().dropLast(), as: UTF8.self)
    }

    /// `secrets` as they are and as they are written escaped (see `secretForms`), with the
    /// forms already worked out in `existing`.
    static func forms(of secrets: some Sequence<String>, adding existing: [String] = []) -> [String] {
        var forms = existing
        var known = Set(existing)
        for secret in secrets where !secret.isEmpty {
            let quoted = String(secret.debugDescription.dropFirst().dropLast())
            let json = jsonEscaped(secret)
            // Twice: an echoing server writes the request's JSON body as a JSON string.
            for form in [secret, quoted, json, json.replacingOccurrences(of: "/", with: "\\/"), jsonEscaped(json)] where known.insert(form).inserted {
                forms.append(form)
            }
        }
        return forms.sorted { $0.utf8.count > $1.utf8.count }
    }

    private mutating func refreshSecretKeys() {
        // Sorted: two policies with the same names compare equal whatever order a set gives them in.
        let keys = bodyFieldNames.union(parameterNames).union(headerNames)
        secretKeys = SecretNames(keys.sorted())
        variableNameEndings = Set(keys.map(SecretNames.folded) + ["jwt"]).filter { !$0.isEmpty }.sorted()
        hidesCookieValues = headerNames.contains { ASCII.equalsIgnoringCase($0, "cookie") }
        setCookieNeedsOwnLook = hidesCookieValues && !headerNames.contains { ASCII.equalsIgnoringCase($0, "set-cookie") }
    }

    /// Redaction off: logs keep everything. Only for logs that never leave the machine.
    public static let disabled = RedactionPolicy(isEnabled: false)

    public func redact(_ message: DebugMessage) -> DebugMessage {
        redactedIfNeeded(message) ?? message
    }

    /// The message with its secrets hidden, or nil when it has none to hide (nearly always): the
    /// logger then writes the message it was handed without copying it.
    func redactedIfNeeded(_ message: DebugMessage) -> DebugMessage? {
        guard isEnabled else { return nil }
        // A message the checks find nothing in holds no credential either: a credential's header
        // is itself hidden, so the checks find it (the one exception, a `Set-Cookie` when only
        // `Cookie` is declared, is looked for on its own).
        let findings = findings(in: message)
        guard findings != nil || (setCookieNeedsOwnLook && Self.setsCookie(message)) else { return nil }
        // Credentials are secrets wherever they show up (an echoing server reflects the request's
        // headers into its body, as text or JSON): the values of the secret headers the request
        // sent, and the cookies the response set, join the literal secrets.
        let credentials = credentialValues(in: message)
        guard credentials.isEmpty else { return adding(credentials, of: message).redactDeclared(message) }
        return findings.map { redact(message, $0) }
    }

    /// Credential values hidden only where they stand alone (`URLPassword.hidingDelimited`): the
    /// `Basic` passwords a message's request carried that are shorter than
    /// `unmistakableCredential`, which as plain text would hide a host's `0.0.1`, a port or
    /// part of a word.
    private var standingAloneValues: [String] = []

    /// Credential values this long are hidden wherever they appear; shorter `Basic` passwords
    /// only where they stand alone.
    static let unmistakableCredential = 8

    /// Hides `values` too where they stand alone (`URLPassword.hidingDelimited`), those not
    /// hidden so already. Nothing changes when redaction is off.
    public mutating func hideAlso(standingAlone values: [String]) {
        guard isEnabled else { return }
        standingAloneValues += values.filter { !standingAloneValues.contains($0) }
    }

    /// The `Basic` passwords (with their forms) of the request's `Authorization` and
    /// `Proxy-Authorization` fields, as composed and as sent: what a record of `message` hides
    /// where it stands alone, besides `credentialValues(in:)`.
    public func standingAloneCredentials(in message: borrowing DebugMessage) -> [String] {
        var values: [String] = []
        func add(_ value: some StringProtocol) {
            for form in Self.basicPasswordForms(inAuthorization: String(value)) where !values.contains(form) { values.append(form) }
        }
        for field in message.original?.headers ?? [] where Self.isAuthorization(field.name) { add(field.value) }
        if let head = message.sent?.head, ASCII.hasLine(startingWith: "authorization:", in: head) || ASCII.hasLine(startingWith: "proxy-authorization:", in: head) {
            for line in head.split(separator: "\r\n") {
                guard let colon = line.firstIndex(of: ":"), Self.isAuthorization(line[..<colon]) else { continue }
                add(line[line.index(after: colon)...])
            }
        }
        return values
    }

    static func isAuthorization(_ name: some StringProtocol) -> Bool {
        // Most names are settled by their length, without a string made.
        let length = name.utf8.count
        guard length == 13 || length == 19 else { return false }
        return ASCII.equalsIgnoringCase(String(name), "authorization") || ASCII.equalsIgnoringCase(String(name), "proxy-authorization")
    }

    /// This policy hiding also the credentials `message` carries (`credentialValues(in:)`), as
    /// the message's own redaction does: for a part of it shown on its own (a row's URL or name),
    /// which then hides what the redacted message hides.
    public func including(credentialsOf message: borrowing DebugMessage) -> RedactionPolicy {
        guard isEnabled else { return self }
        let credentials = credentialValues(in: message)
        return credentials.isEmpty ? self : adding(credentials, of: message)
    }

    /// This policy hiding also `credentials`, the values `message` carries
    /// (`credentialValues(in:)`), and where they stand alone its short `Basic` passwords.
    private func adding(_ credentials: [String], of message: borrowing DebugMessage) -> RedactionPolicy {
        var policy = self
        policy.secretValues += credentials
        policy.hideAlso(standingAlone: standingAloneCredentials(in: message))
        return policy
    }

    private static func setsCookie(_ message: borrowing DebugMessage) -> Bool {
        message.response?.setsCookie ?? false
    }

    /// The most credential values one record hides wherever they appear (`credentialValues`).
    public static let maximumCredentialValues = 64

    /// Credential values shorter than this are left where they appear outside their headers
    /// (which are hidden whole), since hiding every "1" or "en" in a body would garble it.
    public static let minimumHiddenCredential = 4

    /// The values of the secret headers among the request's (as composed, and the credentials
    /// libcurl adds to the head: `Authorization` from a URL's password, `Cookie` from the jar):
    /// each value whole and, for a value with a scheme (`Bearer …`, `Basic …`), its credentials,
    /// and for `Basic` the decoded `user:password` and the password (a server's path or body may
    /// repeat it: `/basic-auth/user/PASS`); a cookie header pair by pair. And the values of the
    /// cookies the response set. The first `maximumCredentialValues` of them, cookies' values
    /// last: each costs a pass over every text of the record, and a hostile server can set
    /// cookies by the thousand (their headers are hidden whole all the same).
    public func credentialValues(in message: borrowing DebugMessage) -> [String] {
        // Cookies in a list of their own, after the rest: a jar of many cookies does not crowd
        // out the `Authorization` token.
        var values: [String] = []
        var cookies: [String] = []
        var seen: Set<String> = []
        func keep(_ value: String, cookie: Bool = false) {
            // A cookie's value takes room only the others left; they may take it back at the end.
            let kept = cookie ? values.count + cookies.count : values.count
            // A header the caller set is in both the composed request and the head: hidden once.
            guard kept < Self.maximumCredentialValues, value.utf8.count >= Self.minimumHiddenCredential, seen.insert(value).inserted else { return }
            if cookie { cookies.append(value) } else { values.append(value) }
        }
        func add(_ value: Substring) {
            for form in Self.hiddenForms(ofCredential: value) { keep(form) }
        }
        func add(pairs: Substring) {
            for pair in pairs.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2 { for form in Self.hiddenForms(ofCredential: parts[1]) { keep(form, cookie: true) } }
            }
        }
        func add(header name: Substring, value: Substring) {
            if ASCII.equalsIgnoringCase(String(name), "cookie") { add(pairs: value) } else { add(value) }
        }
        for field in message.original?.headers ?? [] where isSecretHeader(field.name) {
            add(header: Substring(field.name), value: Substring(field.value))
        }
        // Most heads carry no credential libcurl added: a look at the start of each line finds
        // that out before any line is cut.
        if let head = message.sent?.head,
           ASCII.hasLine(startingWith: "authorization:", in: head) || ASCII.hasLine(startingWith: "proxy-authorization:", in: head)
            || ASCII.hasLine(startingWith: "cookie:", in: head) {
            for line in head.split(separator: "\r\n") {
                guard let colon = line.firstIndex(of: ":"), isSecretHeader(line[..<colon]) else { continue }
                add(header: line[..<colon], value: line[line.index(after: colon)...])
            }
        }
        if hidesCookieValues, let response = message.response, response.setsCookie {
            for header in response.headers where ASCII.equalsIgnoringCase(header.name, "set-cookie") {
                add(pairs: header.value.split(separator: ";", maxSplits: 1).first ?? "")
            }
        }
        return values + cookies.prefix(Self.maximumCredentialValues - values.count)
    }

    /// What a record hides wherever it appears of a credential's value (a header's, a cookie's),
    /// shorter ones than `minimumHiddenCredential` included: the value and, for one with a scheme
    /// (`Bearer …`, `Basic …`), its credentials and theirs, and for `Basic` the forms of
    /// `basicPasswordForms` of `unmistakableCredential` bytes or more (a shorter one is hidden
    /// only where it stands alone, `standingAloneCredentials`).
    public static func hiddenForms(ofCredential value: some StringProtocol) -> [String] {
        let value = value.trimmingCharacters(in: .whitespaces)
        guard let space = value.firstIndex(of: " ") else { return [value] }
        return [value] + hiddenForms(ofCredential: value[value.index(after: space)...])
            + basicPasswordForms(inAuthorization: value).filter { $0.utf8.count >= unmistakableCredential }
    }

    /// For an `Authorization` value `Basic …`: the `user:password` it encodes and its password as
    /// it is and as a URL's path or query repeats it (percent-encoded, escapes in either case:
    /// libcurl decodes a URL's `p%40ss` to `p@ss` for the header). Empty for any other value, or
    /// one that does not decode to UTF-8 text with a colon. Short forms are the caller's to drop.
    public static func basicPasswordForms(inAuthorization value: String) -> [String] {
        guard let pair = basicPair(inAuthorization: value) else { return [] }
        var forms = [pair.whole]
        for form in wireForms(of: pair.password) {
            for written in [form, lowercasingEscapes(form)] where !forms.contains(written) { forms.append(written) }
        }
        return forms
    }

    /// `text` with the password of every URL in it hidden (`URLPassword.masking`) and the
    /// credentials `headers` carry in `Authorization` or `Proxy-Authorization` hidden as an
    /// exchange's record hides them: the value and its credentials (a `Bearer` token, a `Basic`
    /// one's base64) wherever they appear, and a `Basic` password
    /// (`curl -u admin:PASS …/basic-auth/admin/PASS`), as it is or percent-encoded in any mix,
    /// wherever it appears when `unmistakableCredential` bytes or longer, else where it stands
    /// alone. For what is shown or kept of a request before any log's redaction sees it (a row
    /// in flight, a name made from its URL, a group member's label, a cache entry's URL), so a
    /// row hides what its record will. Cookies and other headers are not looked for: a name
    /// must not lose every word a cookie's value happens to be.
    public static func hidingPasswords(in text: String, sentWith headers: [HeaderField]) -> String {
        var anywhere: [[UInt8]] = []
        var standingAlone: [String] = []
        for field in headers where isAuthorization(field.name) {
            anywhere += hiddenForms(ofCredential: field.value).filter { $0.utf8.count >= minimumHiddenCredential }.map { Array($0.utf8) }
            standingAlone += basicPasswordForms(inAuthorization: field.value).filter { $0.utf8.count < unmistakableCredential }
        }
        let masked = URLPassword.masking(in: text)
        guard !anywhere.isEmpty || !standingAlone.isEmpty else { return masked }
        let bytes = Array(masked.utf8)
        let found = anywhere.isEmpty ? [] : PercentDecodedView.occurrences(of: anywhere, in: bytes)
        let hidden = found.isEmpty ? masked : String(decoding: URLPassword.replacing(found, in: bytes), as: UTF8.self)
        return standingAlone.isEmpty ? hidden : URLPassword.hidingDelimited(standingAlone, in: hidden)
    }

    /// The `user:password` of an `Authorization: Basic …` value, and its password.
    private static func basicPair(inAuthorization value: String) -> (whole: String, password: String)? {
        let value = value.trimmingCharacters(in: .whitespaces)
        guard let space = value.firstIndex(of: " "), ASCII.equalsIgnoringCase(String(value[..<space]), "basic") else { return nil }
        return basicPair(value[value.index(after: space)...])
    }

    /// The `user:password` a `Basic` credential encodes, and its password; nil when it does not
    /// decode to UTF-8 text with a colon.
    private static func basicPair(_ encoded: Substring) -> (whole: String, password: String)? {
        var text = encoded.trimmingCharacters(in: .whitespaces)
        // Some clients leave the padding out.
        if text.utf8.count % 4 != 0 { text += String(repeating: "=", count: 4 - text.utf8.count % 4) }
        guard let data = Data(base64Encoded: text),
              let whole = String(data: data, encoding: .utf8),
              let colon = whole.firstIndex(of: ":") else { return nil }
        return (whole, String(whole[whole.index(after: colon)...]))
    }

    /// `text` with the hexadecimal letters of its `%XX` escapes in lower case (`%2F` as `%2f`).
    private static func lowercasingEscapes(_ text: String) -> String {
        var bytes = Array(text.utf8)
        var index = 0
        while index + 2 < bytes.count {
            if bytes[index] == UInt8(ascii: "%") {
                for digit in (index + 1)...(index + 2) where (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(bytes[digit]) { bytes[digit] |= 0x20 }
                index += 3
            } else {
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Free text written beside a log (an assertion's `got` in a run's report) with what a log
    /// hides hidden: secret JSON members, URL passwords and declared parameters word by word,
    /// declared values.
    public func redactText(_ text: String) -> String {
        guard isEnabled else { return text }
        let members = jsonMemberRedactor.redact(Array(text.utf8)).map { String(decoding: $0, as: UTF8.self) } ?? text
        return replaceSecrets(redactURLsInText(redactURL(members, inText: true)))
    }

    /// How a named value (a chain's capture, an environment variable) is shown: hidden when its
    /// name ends in a name a log hides (a credential parameter, body field or header name), in
    /// any case and without `_`, `-` and `.` (`login_token`, `accessToken`, `X-API-Key`), or in
    /// `jwt`; declared secrets inside it hidden otherwise.
    public func shown(variable name: String, value: String) -> String {
        guard isEnabled else { return value }
        let folded = SecretNames.folded(name)
        return variableNameEndings.contains { folded.hasSuffix($0) } ? Self.marker : replaceSecrets(value)
    }

    /// Whether a chain's capture is a secret a log hides wherever its value appears afterwards:
    /// one named as `shown(variable:value:)` hides (`token`, `accessToken`), one taken from a
    /// header a log hides (`Set-Cookie`), or one taken from a JSON member a log hides, at any
    /// depth of its path (`$.token`, `$.auth.refresh_token`, `$['password']`).
    public func hidesCapture(named name: String, from source: Capture.Source) -> Bool {
        guard isEnabled else { return false }
        if shown(variable: name, value: "") == Self.marker { return true }
        switch source {
        case .status:
            return false
        case .header(let header):
            return isSecretHeader(header)
        case .jsonPath(let path):
            return hidesMember(onPath: path)
        }
    }

    /// Whether a JSON path (`$.auth.token`, `$.headers['Authorization']`) goes through a member a
    /// log hides: a declared body field or parameter, or a secret header's name (echoing
    /// servers reflect request headers into JSON bodies).
    /// Also when the members on the way spell a secret name together, as the log reads the body
    /// (`$.api.key`, `$.api[0].key` as `api[key]`: an array's index adds no name).
    public func hidesMember(onPath path: String) -> Bool {
        guard isEnabled else { return false }
        // An index (`[0]`, `[-1]`) adds no name, as an array adds none to a body's path.
        let keys = path.split(whereSeparator: { ".[]'\"$ ".contains($0) }).filter { Int($0) == nil }.map(String.init)
        return keys.indices.contains { isSecretMember(keys[$0], under: keys[..<$0]) }
    }

    /// Whether a member of a JSON value is secret: by its name, or by its path under `parents`
    /// (the names of the members enclosing it, as `JSONMemberPath` reads a body's) written as a
    /// form nests it (`api[key]`).
    public func isSecretMember(_ key: String, under parents: ArraySlice<String>) -> Bool {
        if secretKeys.contains(key) { return true }
        // The innermost names that fit, as `JSONMemberPath` keeps them.
        var first = parents.endIndex
        var total = key.utf8.count
        while first > parents.startIndex, total + parents[first - 1].utf8.count + 2 <= memberPathLimit {
            first -= 1
            total += parents[first].utf8.count + 2
        }
        guard first < parents.endIndex else { return isSecretName(key) }
        return isSecretName(parents[first] + (parents[(first + 1)...] + [key]).map { "[\($0)]" }.joined())
    }

    /// Hides the value a chain captured from now on when `hidesCapture(named:from:)` says the
    /// capture is a secret (and it is long enough to hide without garbling the text, as a
    /// credential must be); true when the policy changed. Any other event changes nothing.
    public mutating func hideCaptured(_ event: GroupEvent) -> Bool {
        guard case .captured(_, _, let name, let value, let source) = event else { return false }
        return hideCaptured(value, named: name, from: source)
    }

    /// Hides a chain's captured value from now on when `hiddenCapture(named:value:from:)` says
    /// so; true when the policy changed. Only the latest `maximumCapturedSecrets` captured values
    /// are kept: each adds to every later message's rewrite, and a run that logs in again and
    /// again (latency mode, `curlew run --repeat`) captures a new token each time, which the
    /// steps after it use, not the ones of later runs.
    /// The value is hidden as it is and percent-encoded, as a later step's query or form sends it.
    public mutating func hideCaptured(_ value: String, named name: String, from source: Capture.Source) -> Bool {
        guard isEnabled, hiddenCapture(named: name, value: value, from: source), !secretValues.contains(value) else { return false }
        let forms = Self.wireForms(of: value)
        capturedSecrets.append(forms)
        var values = secretValues
        if capturedSecrets.count > Self.maximumCapturedSecrets {
            let oldest = capturedSecrets.removeFirst()
            values.removeAll { oldest.contains($0) }
        }
        values.append(contentsOf: forms.filter { !values.contains($0) })
        secretValues = values
        return true
    }

    /// `value` as it is and as a query or a form sends it: percent-encoded, and with `+` for a
    /// space; without repeats.
    public static func wireForms(of value: String) -> [String] {
        let encoded = Parameters.percentEncode(value)
        return [value, encoded, encoded.replacingOccurrences(of: "%20", with: "+")].reduce(into: []) { forms, form in
            if !forms.contains(form) { forms.append(form) }
        }
    }

    /// How many captured values a policy keeps hiding (`hideCaptured`).
    public static let maximumCapturedSecrets = 64

    /// The values hidden because a chain captured them, oldest first, each with its forms.
    private var capturedSecrets: [[String]] = []

    /// Whether a captured value is hidden wherever it appears: the capture is a secret
    /// (`hidesCapture(named:from:)`) and the value long enough to hide, as a credential must be.
    public func hiddenCapture(named name: String, value: String, from source: Capture.Source) -> Bool {
        value.utf8.count >= Self.minimumHiddenCredential && hidesCapture(named: name, from: source)
    }

    /// Every rewrite run, whatever the quick checks say: for the fuzz target's differential
    /// check, which holds that a message the checks wave through comes out of the rewrites as it
    /// went in (a rewrite that would hide what a check missed is a leak).
    func redactingEverything(_ message: DebugMessage) -> DebugMessage {
        redactDeclared(message, force: true) ?? message
    }

    private func redactDeclared(_ message: DebugMessage, force: Bool = false) -> DebugMessage? {
        findings(in: message, force: force).map { redact(message, $0, force: force) }
    }

    /// Which parts of a message hold something to hide.
    private struct Findings {
        var original = false, sent = false, response = false, url = false, transfer = false
        /// The error's text with what it holds hidden, when it holds anything.
        var errorText: String?
        /// The stream record with what it holds hidden, when it holds anything.
        var stream: StreamRecord?
        /// Form parts named like secret parameters, and their non-empty values.
        var secretParts: [TransferRecord.FormPartSummary] = []
        var formSecrets: [String] = []
    }

    /// What `message` holds to hide; nil when nothing (nearly always), found without copying
    /// anything. `force` marks every part present, for the fuzz target's differential check.
    private func findings(in message: borrowing DebugMessage, force: Bool = false) -> Findings? {
        // Plain conditionals, not `map(needsRedaction)`: a method passed as a closure copies the
        // whole policy each time.
        var found = Findings()
        if let original = message.original { found.original = force || needsRedaction(original) }
        if let sent = message.sent { found.sent = force || needsRedaction(sent) }
        if let response = message.response { found.response = force || needsRedaction(response) }
        if let connection = message.connection { found.url = force || urlNeedsRedaction(connection.effectiveURL) }
        // An error's text (often with the URL in it) is judged by rewriting it, as a stream is:
        // errors are few, and the rewrite found is the one written.
        if let error = message.error {
            let hidden = redactText(error.message)
            if force || hidden != error.message { found.errorText = hidden }
        }
        // Form parts named like secret parameters: their values are hidden in the record and
        // wherever the multipart body shows them.
        if let formParts = message.transfer?.formParts, !formParts.isEmpty {
            found.secretParts = formParts.filter { isSecretName($0.name) }
            found.formSecrets = found.secretParts.compactMap { $0.value.flatMap { $0.isEmpty ? nil : $0 } }
        }
        // A declared secret value anywhere in the transfer's record (a part's value, name, file
        // name or path; the uploaded file; the download's paths), whatever a part is called.
        found.transfer = !secretValues.isEmpty && message.transfer != nil
        // A stream's kept events and IDs, judged by rewriting them (streams are few, and each
        // keeps at most 200 events of 4 KiB): the rewrite found is the one written.
        if let stream = message.stream {
            let hidden = redactStream(stream)
            if force || hidden != stream { found.stream = hidden }
        }
        guard found.original || found.sent || found.response || found.url || found.errorText != nil || !found.secretParts.isEmpty || found.transfer
            || found.stream != nil else { return nil }
        return found
    }

    /// `message` with what `findings` found hidden.
    private func redact(_ message: DebugMessage, _ findings: Findings, force: Bool = false) -> DebugMessage {
        let (hidesOriginal, hidesSent, hidesResponse, hidesURL) = (findings.original, findings.sent, findings.response, findings.url)
        let (secretParts, formSecrets, hidesTransfer) = (findings.secretParts, findings.formSecrets, findings.transfer)
        var message = message
        if !secretParts.isEmpty || hidesTransfer, var transfer = message.transfer {
            transfer.formParts = transfer.formParts.map { part in
                var part = part
                if isSecretName(part.name), part.value != nil {
                    part.value = Self.marker
                } else {
                    part.value = part.value.map(replaceSecrets)
                }
                part.name = replaceSecrets(part.name)
                part.filename = part.filename.map(replaceSecrets)
                part.file = part.file.map(replaceSecrets)
                part.contentType = part.contentType.map(replaceSecrets)
                return part
            }
            transfer.uploadFile = transfer.uploadFile.map(replaceSecrets)
            transfer.downloadDestination = transfer.downloadDestination.map(replaceSecrets)
            if var download = transfer.download {
                download.path = replaceSecrets(download.path)
                download.partialPath = replaceSecrets(download.partialPath)
                transfer.download = download
            }
            message.transfer = transfer
        }
        if !secretParts.isEmpty {
            // Byte by byte: a multipart body with a binary file part is not text.
            if var sent = message.sent, let body = sent.body {
                // The parts' contents, file parts included, then their values wherever else they appear.
                let parts = Self.hidingPartContents(named: Set(secretParts.map(\.name)), in: body.data, boundary: body.contentType.flatMap(MIMEType.boundary))
                let hidden = formSecrets.reduce(parts) { Self.replacing(Array($1.utf8), in: $0) }
                sent.body = Self.replacingKept(of: body, with: hidden)
                message.sent = sent
            }
        }
        if hidesOriginal, var original = message.original {
            // One new block for the four fields, not one for each.
            original.update { fields in
                fields.url = redactURL(fields.url)
                fields.headers = fields.headers.map(redactHeader)
                fields.params = redactJSON(fields.params)
                fields.body = fields.body.map { redactBody($0, force: force) }
            }
            message.original = original
        }
        if hidesSent, var sent = message.sent {
            sent.head = redactHead(sent.head)
            sent.body = sent.body.map { redactBody($0, force: force) }
            message.sent = sent
        }
        if hidesResponse, var response = message.response {
            response.headers = response.headers.map(redactHeader)
            response.body = redactBody(response.body, force: force)
            message.response = response
        }
        if hidesURL, var connection = message.connection {
            connection.effectiveURL = redactURL(connection.effectiveURL)
            message.connection = connection
        }
        if let errorText = findings.errorText, var error = message.error {
            error.message = errorText
            message.error = error
        }
        if let stream = findings.stream { message.stream = stream }
        return message
    }

    /// A stream's kept events (their data and IDs) and its last event ID with what `redactText`
    /// hides hidden: secret JSON members, URL passwords and declared parameters, declared and
    /// credential values.
    private func redactStream(_ stream: StreamRecord) -> StreamRecord {
        var stream = stream
        stream.events = stream.events.map { event in
            var event = event
            event.data = redactText(event.data)
            event.id = event.id.map(redactText)
            return event
        }
        stream.lastEventID = stream.lastEventID.map(redactText)
        return stream
    }

    /// The names of a multipart body's parts (`Content-Disposition: form-data; name="password"`)
    /// that are secret; none for a body of another type. Read from its bytes as they were kept.
    private func secretPartNames(of body: BodySnapshot) -> Set<String> {
        guard let type = body.contentType, ASCII.hasPrefixIgnoringCase(type, "multipart/") else { return [] }
        var names: Set<String> = []
        Self.forEachPartName(in: body.data) { name, _ in
            if isSecretName(name) { names.insert(name) }
        }
        return names
    }

    /// Calls `body` with each part's name in a multipart body (`name="…"` of a header line, not
    /// a `filename="…"`) and where the quote closing it lies, in order: one pass.
    private static func forEachPartName(in data: Data, _ body: (String, Data.Index) -> Void) {
        let opening = Array("name=\"".utf8)
        var from = data.startIndex
        while let found = data.firstRange(of: opening, in: from..<data.endIndex) {
            guard let close = data[found.upperBound...].firstIndex(of: UInt8(ascii: "\"")) else { return }
            // `filename="…"` names a file, not a part.
            let before = found.lowerBound > data.startIndex ? data[found.lowerBound - 1] : 0x20
            if before == 0x20 || before == 0x3B || before == 0x09 { body(String(decoding: data[found.upperBound..<close], as: UTF8.self), close) }
            from = close
        }
    }

    /// A multipart body with the content of every part of these names replaced by the marker:
    /// from after the part's header block (a blank line, CRLF or LF) to the line that starts the
    /// next part (`--` and the boundary, when `boundary` is known; else any line starting `--`),
    /// or the end of what was kept. One pass, written into one buffer, however many parts.
    static func hidingPartContents(named names: Set<String>, in data: Data, boundary: String? = nil) -> Data {
        guard !names.isEmpty else { return data }
        let marker = Data(Self.marker.utf8)
        let delimiter = Array(("\n--" + (boundary ?? "")).utf8)
        var output = Data()
        output.reserveCapacity(data.count)
        var copied = data.startIndex
        forEachPartName(in: data) { name, close in
            guard close >= copied, names.contains(name) else { return }
            // The header block ends at the first blank line, with CRLFs or bare LFs.
            // (Bare LFs looked for only before the first CRLF pair: a search of the whole rest
            // for each part would make a body of many parts quadratic.)
            let crlf = data.firstRange(of: [13, 10, 13, 10], in: close..<data.endIndex)
            let lf = data.firstRange(of: [10, 10], in: close..<(crlf?.upperBound ?? data.endIndex))
            guard let headEnd = [crlf, lf].compactMap({ $0 }).min(by: { $0.lowerBound < $1.lowerBound }) else { return }
            var end = data.firstRange(of: delimiter, in: headEnd.upperBound..<data.endIndex)?.lowerBound ?? data.endIndex
            if end > headEnd.upperBound, data[end - 1] == 13 { end -= 1 }
            output.append(data[copied..<headEnd.upperBound])
            output.append(marker)
            copied = end
        }
        output.append(data[copied...])
        return output
    }

    /// `data` with every occurrence of `needle` replaced by the marker: one pass, written into
    /// one buffer.
    static func replacing(_ needle: [UInt8], in data: Data) -> Data {
        guard !needle.isEmpty, var found = data.firstRange(of: needle) else { return data }
        let marker = Data(Self.marker.utf8)
        var output = Data()
        output.reserveCapacity(data.count)
        var copied = data.startIndex
        while true {
            output.append(data[copied..<found.lowerBound])
            output.append(marker)
            copied = found.upperBound
            guard let next = data.firstRange(of: needle, in: copied..<data.endIndex) else { break }
            found = next
        }
        output.append(data[copied...])
        return output
    }

    // MARK: Whether anything needs hiding

    // The checks below call methods in loops and `if let`s rather than passing them to
    // `contains(where:)` or `map`: a method passed as a closure copies the whole policy, a dozen
    // retains, each time.

    private func needsRedaction(_ request: ComposedRequest) -> Bool {
        if !secretValues.isEmpty || urlNeedsRedaction(request.url) || headersNeedRedaction(request.headers) || jsonNeedsRedaction(request.params) {
            return true
        }
        if let body = request.body { return bodyNeedsRedaction(body) }
        return false
    }

    private func needsRedaction(_ request: WireRequest) -> Bool {
        guard secretValues.isEmpty else { return true }
        if request.head.withUTF8Bytes({ headNeedsRedaction(UnsafeRawBufferPointer($0)) }) { return true }
        if let body = request.body { return bodyNeedsRedaction(body) }
        return false
    }

    private func needsRedaction(_ response: ResponseSnapshot) -> Bool {
        !secretValues.isEmpty || headersNeedRedaction(of: response) || bodyNeedsRedaction(response.body)
    }

    /// `headersNeedRedaction` of a response's fields, checked on their bytes when they are kept
    /// as received, as the strings `headers` would make of them would be.
    private func headersNeedRedaction(of response: ResponseSnapshot) -> Bool {
        if let received = response.receivedHeaders {
            var found = false
            let plain = received.forEachPlainField { name, value in
                if !found, isSecretHeader(name[...]) || urlBytesNeedRedaction(value[...]) { found = true }
            }
            if plain { return found }
        }
        return headersNeedRedaction(response.headers)
    }

    private func headersNeedRedaction(_ headers: [HeaderField]) -> Bool {
        for field in headers where headerNeedsRedaction(field) { return true }
        return false
    }

    /// A secret header, or a URL with a password or declared parameter in any header's value
    /// (`Location: https://app/cb?access_token=…`, `Referer`).
    private func headerNeedsRedaction(_ field: HeaderField) -> Bool {
        isSecretHeader(field.name) || urlNeedsRedaction(field.value)
    }

    private func urlNeedsRedaction(_ url: String) -> Bool {
        guard secretValues.isEmpty else { return true }
        return url.withUTF8Bytes { urlBytesNeedRedaction(UnsafeRawBufferPointer($0)[...]) }
    }

    /// A declared query parameter, or a URL with a password, somewhere in these bytes (a URL, a
    /// header value, a JSON body's strings).
    private func urlBytesNeedRedaction(_ bytes: UnsafeRawBufferPointer.SubSequence) -> Bool {
        // Neither a pair nor a password without an `=` or an `@`: most header values.
        guard ASCII.containsEither(UInt8(ascii: "="), UInt8(ascii: "@"), in: bytes) else { return false }
        return pairsNeedRedaction(bytes, queryOnly: true)
            || (ASCII.contains(UInt8(ascii: "@"), in: bytes) && URLPassword.hasPassword(String(decoding: bytes, as: UTF8.self)))
    }

    /// A secret member name at any depth, or a string holding a declared query parameter.
    private func jsonNeedsRedaction(_ value: JSONValue) -> Bool {
        var parents: [String] = []
        return jsonNeedsRedaction(value, under: &parents)
    }

    /// `parents` pushed and popped on the way down, as `redactJSON` keeps them.
    private func jsonNeedsRedaction(_ value: JSONValue, under parents: inout [String]) -> Bool {
        switch value {
        case .object(let members):
            for member in members {
                if isSecretMember(member.key, under: parents[...]) { return true }
                parents.append(member.key)
                defer { parents.removeLast() }
                if jsonNeedsRedaction(member.value, under: &parents) { return true }
            }
            return false
        case .array(let elements):
            for element in elements where jsonNeedsRedaction(element, under: &parents) { return true }
            return false
        case .string(let text):
            return urlNeedsRedaction(text)
        default:
            return false
        }
    }

    private func bodyNeedsRedaction(_ body: BodySnapshot) -> Bool {
        // Declared values: any text body goes through redaction, and any other body holding one.
        if !secretValues.isEmpty, body.text != nil || secretForms.contains(where: { body.data.range(of: Data($0.utf8)) != nil })
            || (Self.mayHoldEscapes(body.data) && !secretRanges(in: Array(body.data)).isEmpty)
            || (!standingAloneValues.isEmpty && URLPassword.holdsDelimited(standingAloneValues, in: Array(body.data)))
            || (body.isTruncated && cutSecretLength(in: body.data) != nil) {
            // (The forms as written first: `range(of:)` stops at the first, and most bodies that
            // hold a value hold it so.)
            return true
        }
        // A multipart body sent as text (a browser's "Copy as cURL" of a form): its parts named
        // as secrets.
        if !secretPartNames(of: body).isEmpty { return true }
        let kind = BodyKind(body)
        return body.data.withUnsafeBytes { bytes in
            // Other text: word by word (URLs, relative links, `name=value` pairs), judged text
            // without a copy (a binary body is turned away at its first bytes).
            if kind == .other {
                let readsAsJSON = Self.startsLikeJSON(bytes)
                let holdsWords = ASCII.contains(UInt8(ascii: "="), in: bytes[...]) || Self.containsSchemeSeparator(bytes)
                guard readsAsJSON || holdsWords, BodySnapshot.textLength(of: bytes, truncated: body.isTruncated) != nil else { return false }
                if readsAsJSON, jsonBytesNeedRedaction(bytes) { return true }
                return holdsWords && (textWordsNeedRedaction(bytes) || (body.isTruncated && Self.riskyTailStart(in: bytes, from: 0, inText: true) != nil))
            }
            // Read as the rewrite reads it: a cut body that reads as text without its last bytes
            // (a character the limit cut) ends where its text ends.
            if body.isTruncated {
                let textEnd = BodySnapshot.textLength(of: bytes, truncated: true) ?? bytes.count
                if Self.unfinishedValueStart(in: UnsafeRawBufferPointer(rebasing: bytes[..<textEnd]), kind: kind) != nil { return true }
            }
            return switch kind {
            case .json: jsonBytesNeedRedaction(bytes)
            // URLs in a form's values and in any other text (a password, a query parameter), and
            // JSON sent under a form's type (`-d '{"password":…}'` without a content type).
            case .form: pairsNeedRedaction(bytes[...], queryOnly: false) || urlBytesNeedRedaction(bytes[...])
                || (Self.startsLikeJSON(bytes) && jsonBytesNeedRedaction(bytes))
            case .other: false
            }
        }
    }

    /// Secret members, and query parameters or URL passwords inside string values. A string with
    /// escapes holding a URL or an escaped ASCII character is judged on its decoded form, which
    /// only the full pass reads (`\u00e4` in a password, `\u0026token=`, `\u0022password\u0022`,
    /// as .NET writes quotes).
    private func jsonBytesNeedRedaction(_ bytes: UnsafeRawBufferPointer) -> Bool {
        containsSecretMember(bytes) || jsonStringsNeedRedaction(bytes) || Self.containsEncodedData(bytes)
            || (ASCII.contains(UInt8(ascii: "\\"), in: bytes[...]) && (Self.containsSchemeSeparator(bytes) || Self.containsASCIIEscape(bytes)))
    }

    /// Whether a body that is not declared JSON reads as JSON from its first byte that is not
    /// white space (`{` or `[`): text sent as a form or as plain text is often JSON all the same,
    /// and its secret members are hidden as in JSON.
    static func startsLikeJSON(_ bytes: some Sequence<UInt8>) -> Bool {
        for byte in bytes where byte != 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D {
            return byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[")
        }
        return false
    }

    /// Where the value a cut body ends inside begins: its last JSON string left open, or its last
    /// form pair's value (or the pair, when the cut is in its name). What the cut took could have
    /// made that value a secret (a URL's password before its `@`, a data URL's encoding, a
    /// declared value), so no rule can judge it, and redaction hides it whole. Nil when the cut
    /// falls between values.
    private static func unfinishedValueStart(in bytes: UnsafeRawBufferPointer, kind: BodyKind) -> Int? {
        switch kind {
        case .json:
            var open: Int?
            var index = 0
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\\") where open != nil: index += 1
                case UInt8(ascii: "\""): open = open == nil ? index + 1 : nil
                default: break
                }
                index += 1
            }
            return open.flatMap { $0 < bytes.count ? $0 : nil }
        case .form:
            let pair = bytes.lastIndex(of: UInt8(ascii: "&")).map { $0 + 1 } ?? 0
            guard let equals = bytes[pair...].firstIndex(of: UInt8(ascii: "=")) else {
                return pair < bytes.count ? pair : nil
            }
            return equals + 1 < bytes.count ? equals + 1 : nil
        case .other:
            return nil
        }
    }

    /// Where, in a JSON string the cut left open (from `start` to the end of `bytes`), something
    /// begins that only the rest the cut took could show to be a secret: the authority of a URL
    /// that runs to the cut (its password before the `@`), or a `data:` URL (its encoding). The
    /// slashes may be escaped (`:\/\/`, `:\u002f\u002f`) at any depth of quoting; the authority
    /// ends only at a `/`, `?`, `#` or quote, so escapes and spaces inside it (a password with
    /// `ä` written `\u00e4`) keep it open. Nil when nothing is at risk.
    /// In a text body (`inText`) an authority also ends at whitespace, `<`, `>` or `'`, which it
    /// cannot hold unencoded, and `data:` is taken for the word it usually is there.
    static func riskyTailStart(in bytes: UnsafeRawBufferPointer, from start: Int, inText: Bool = false) -> Int? {
        let slash = UInt8(ascii: "/"), backslash = UInt8(ascii: "\\")
        /// The bytes of the slash at `index`, with the backslashes quoting put before it: `/`,
        /// `\/`, `\\\/`, `\u002f`; 0 when none is there.
        func slashLength(at index: Int) -> Int {
            var next = index
            while next < bytes.count, bytes[next] == backslash {
                if next + 5 < bytes.count, bytes[next + 1] | 0x20 == UInt8(ascii: "u"),
                   bytes[(next + 2)...(next + 5)].lazy.map({ $0 | 0x20 }).elementsEqual("002f".utf8) {
                    return next + 6 - index
                }
                next += 1
            }
            return next < bytes.count && bytes[next] == slash ? next + 1 - index : 0
        }
        var authority: Int?
        var data: Int?
        var index = start
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: ":") {
                let first = slashLength(at: index + 1)
                let second = first > 0 ? slashLength(at: index + 1 + first) : 0
                if second > 0 {
                    authority = index + 1 + first + second
                    index += 1 + first + second
                    continue
                }
                if !inText, index >= start + 4, bytes[(index - 4)..<index].lazy.map({ $0 | 0x20 }).elementsEqual("data".utf8) { data = index - 4 }
            }
            index += 1
        }
        let endsAuthority: (UInt8) -> Bool = { byte in
            byte == slash || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") || byte == UInt8(ascii: "\"")
                || (inText && (byte <= 0x20 || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "'")))
        }
        let openAuthority = authority.flatMap { bytes[$0...].contains(where: endsAuthority) ? nil : $0 }
        return [openAuthority, data].compactMap { $0 }.min()
    }

    /// The body formats whose fields redaction understands.
    private enum BodyKind {
        case json, form, other

        init(_ body: BodySnapshot) {
            let type = body.contentType ?? ""
            // The usual type first, compared whole: the searches below cost more than the body's check.
            if type == "application/json" {
                self = .json
                return
            }
            self = ASCII.containsIgnoringCase(type, "json") ? .json
                : ASCII.containsIgnoringCase(type, "x-www-form-urlencoded") ? .form : .other
        }
    }

    // MARK: Hiding

    private func replaceSecrets(_ text: String) -> String {
        guard !secretValues.isEmpty else { return text }
        let bytes = Array(text.utf8)
        let found = secretRanges(in: bytes)
        let replaced = found.isEmpty ? text : String(decoding: URLPassword.replacing(found, in: bytes), as: UTF8.self)
        return standingAloneValues.isEmpty ? replaced : URLPassword.hidingDelimited(standingAloneValues, in: replaced)
    }

    /// Whether bytes may write a value with some of its bytes escaped: they hold a `%` or a `+`.
    private static func mayHoldEscapes(_ bytes: some Sequence<UInt8>) -> Bool {
        bytes.contains { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }
    }

    /// Where `bytes` hold a declared value in one of its forms (`secretForms`: as it is, quoted,
    /// JSON-escaped), as written and with any of its bytes percent-encoded or a space as `+`
    /// (`p@ss%20w0rd` for `p@ss w0rd`, `a\/b%20c` for `a/b c` in JSON), which no list of forms
    /// holds every mix of. All found in the bytes as they are, in one search
    /// (`PercentDecodedView.occurrences`), so a value inside a longer one is not hidden first
    /// and the longer one missed.
    private func secretRanges(in bytes: [UInt8]) -> [Range<Int>] {
        PercentDecodedView.occurrences(of: secretForms.map { Array($0.utf8) }, in: bytes)
    }

    /// `bytes` with every declared value found there (`secretRanges`) replaced by the marker.
    private func hidingSecrets(in bytes: [UInt8]) -> [UInt8] {
        let found = secretRanges(in: bytes)
        return found.isEmpty ? bytes : URLPassword.replacing(found, in: bytes)
    }

    /// A header named as a secret header (`Authorization`, `X-Api-Key`…) or as any other secret
    /// name (`Access-Token`, `ApiKey`), or whose last words are one (`X-Goog-Api-Key`): the
    /// rule of `isSecretName`, in any case.
    private func isSecretHeader(_ name: String) -> Bool {
        name.withUTF8Bytes { isSecretHeader(UnsafeRawBufferPointer($0)[...]) }
    }

    /// Whether a log hides the value of a header so named (any case): a credential header's
    /// (`Authorization`, `Cookie`, `X-Api-Key`…) or one declared secret. False when off.
    public func hidesValue(ofHeader name: String) -> Bool {
        isEnabled && isSecretHeader(name.lowercased())
    }

    /// A name cut from a head line. Its own overload: a generic `some StringProtocol` made every
    /// `String` name a copy too.
    private func isSecretHeader(_ name: Substring) -> Bool {
        isSecretHeader(String(name))
    }

    private func isSecretHeader(_ name: UnsafeRawBufferPointer.SubSequence) -> Bool {
        // A header's name nests nothing (`[` is no token byte, and `.` is left out as `-` is).
        secretKeys.contains(name) || endsInSecretWords(name, readsCapitals: false)
    }

    private func redactHeader(_ field: HeaderField) -> HeaderField {
        if isSecretHeader(field.name) { return HeaderField(name: field.name, value: Self.marker) }
        return HeaderField(name: field.name, value: redactURL(field.value))
    }

    /// Redacts the header lines of a raw request head, and the query of its request line.
    private func redactHead(_ head: String) -> String {
        guard secretValues.isEmpty else { return rebuildHead(head) }
        return head.withUTF8Bytes { headNeedsRedaction(UnsafeRawBufferPointer($0)) } ? rebuildHead(head) : head
    }

    /// Whether the request line has a declared parameter, or a header line a secret name or a
    /// URL with a declared parameter or a password in its value. One pass over the bytes: a
    /// line's parameters and URL are looked at only when it holds an `=` or an `@`, which few do.
    private func headNeedsRedaction(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        let count = bytes.count
        var lineStart = 0
        var colon: Int?
        var firstLine = true
        var mayHoldURLParts = false
        var index = 0
        while true {
            // Bytes that are none of CR, LF, ":", "=" and "@" change nothing: skipped eight at a time.
            while index + 8 <= count {
                let flagged = Self.headBytesToLookAt(UInt64(littleEndian: base.loadUnaligned(fromByteOffset: index, as: UInt64.self)))
                if flagged != 0 {
                    index += flagged.trailingZeroBitCount / 8
                    break
                }
                index += 8
            }
            // The end of the head ends its last line; a bare CR ends a line too.
            let byte = index < count ? base.load(fromByteOffset: index, as: UInt8.self) : 0x0A
            if byte == 0x0D || byte == 0x0A {
                if let colon, !firstLine || Self.isFieldLine(bytes[lineStart..<index]) {
                    if isSecretHeader(bytes[lineStart..<colon]) { return true }
                    // A URL in the value (`Referer`): its declared parameters and password.
                    if mayHoldURLParts, urlBytesNeedRedaction(bytes[(colon + 1)..<index]) { return true }
                } else if firstLine {
                    // The request line's query: declared parameters, and URLs with a password in its values.
                    if mayHoldURLParts, urlBytesNeedRedaction(bytes[lineStart..<index]) { return true }
                }
                firstLine = false
                guard index < count else { return false }
                lineStart = index + 1
                colon = nil
                mayHoldURLParts = false
            } else if byte == UInt8(ascii: ":") {
                if colon == nil { colon = index }
            } else if byte == UInt8(ascii: "=") || byte == UInt8(ascii: "@") {
                mayHoldURLParts = true
            }
            index += 1
        }
    }

    /// The high bit of each of eight bytes (read little-endian) that is CR, LF, ":", "=" or "@";
    /// the lowest flag is exact.
    @inline(__always)
    private static func headBytesToLookAt(_ word: UInt64) -> UInt64 {
        ASCII.bytes(equalTo: 0x0D, in: word) | ASCII.bytes(equalTo: 0x0A, in: word) | ASCII.bytes(equalTo: UInt8(ascii: ":"), in: word)
            | ASCII.bytes(equalTo: UInt8(ascii: "="), in: word) | ASCII.bytes(equalTo: UInt8(ascii: "@"), in: word)
    }

    /// The head with its request line's URL and its header lines redacted. Lines end where the
    /// check above ends them, at CRLF or a bare CR or LF, and each keeps its own ending.
    /// A head's first line is its request line (`GET http://h:8080/ HTTP/1.1`) unless it reads as
    /// a header field, a name and a colon before any space: a head without a request line, as a
    /// hand-edited log may hold, has its first field hidden like the others.
    private static func isFieldLine<Line: Collection<UInt8>>(_ line: Line) -> Bool {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon != line.startIndex else { return false }
        return !line[..<colon].contains(UInt8(ascii: " "))
    }

    private func rebuildHead(_ head: String) -> String {
        let bytes = head.utf8
        var lines: [(text: String, ending: String)] = []
        var start = bytes.startIndex
        var index = start
        while index < bytes.endIndex {
            let byte = bytes[index]
            guard byte == 0x0D || byte == 0x0A else {
                index = bytes.index(after: index)
                continue
            }
            var after = bytes.index(after: index)
            if byte == 0x0D, after < bytes.endIndex, bytes[after] == 0x0A { after = bytes.index(after: after) }
            lines.append((String(decoding: bytes[start..<index], as: UTF8.self), String(decoding: bytes[index..<after], as: UTF8.self)))
            start = after
            index = after
        }
        lines.append((String(decoding: bytes[start...], as: UTF8.self), ""))
        var changed = false
        var output = ""
        output.reserveCapacity(head.utf8.count + 16)
        for (number, line) in lines.enumerated() {
            let text = line.text
            let redacted: String
            if number == 0, !Self.isFieldLine(text.utf8) {
                // The request line's target alone: a hidden value runs on past a space, and would
                // take the version with it (`GET /x?token=… HTTP/2`).
                if let firstSpace = text.firstIndex(of: " "), let lastSpace = text.lastIndex(of: " "), firstSpace < lastSpace,
                   text[lastSpace...].hasPrefix(" HTTP/") {
                    redacted = text[...firstSpace] + redactURL(String(text[text.index(after: firstSpace)..<lastSpace])) + text[lastSpace...]
                } else {
                    redacted = redactURL(text)
                }
            } else if let colon = text.utf8.firstIndex(of: UInt8(ascii: ":")), isSecretHeader(text[..<colon]) {
                redacted = text[...colon] + " " + Self.marker
            } else {
                redacted = redactURL(text)
            }
            changed = changed || redacted != text
            output += redacted + line.ending
        }
        return changed ? output : head
    }

    /// The words of a text body (HTML, a log, prose) redacted one at a time: a URL's password and
    /// declared parameters, in an absolute URL, a relative link or a bare `name=value`. A word
    /// ends where `endsTextWord` says, so an address after a URL (`Email: ann@h`) is not taken
    /// for its user info. (Declared values elsewhere in the text are the caller's to hide.)
    private func redactURLsInText(_ text: String) -> String {
        var output: [UInt8] = []
        var changed = false
        text.withUTF8Bytes { raw in
            let bytes = UnsafeRawBufferPointer(raw)
            output.reserveCapacity(bytes.count)
            var start = 0
            for index in 0...bytes.count where index == bytes.count || Self.endsTextWord(bytes[index]) {
                let word = bytes[start..<index]
                if let redacted = redactedTextWord(word) {
                    output.append(contentsOf: redacted.utf8)
                    changed = true
                } else {
                    output.append(contentsOf: word)
                }
                if index < bytes.count { output.append(bytes[index]) }
                start = index + 1
            }
        }
        return changed ? String(decoding: output, as: UTF8.self) : text
    }

    /// Whether a word of a text body holds what `redactURLsInText` hides: the check and the
    /// rewrite split the text the same way, so neither sees a pair the other does not.
    private func textWordsNeedRedaction(_ bytes: UnsafeRawBufferPointer) -> Bool {
        Self.anyTextWord(in: bytes) { textWordNeedsRedaction($0) }
    }

    /// Whether `test` holds for a word of `bytes`, split where `endsTextWord` says.
    private static func anyTextWord(in bytes: UnsafeRawBufferPointer, _ test: (UnsafeRawBufferPointer.SubSequence) -> Bool) -> Bool {
        var start = 0
        for index in 0...bytes.count where index == bytes.count || endsTextWord(bytes[index]) {
            if index > start, test(bytes[start..<index]) { return true }
            start = index + 1
        }
        return false
    }

    /// A word holding a URL's password or a declared parameter, as written or with JSON's escapes
    /// read (`/cb?a=1\u0026token=…`, JSON inlined in a page's script).
    private func textWordNeedsRedaction(_ word: UnsafeRawBufferPointer.SubSequence) -> Bool {
        if urlBytesNeedRedaction(word) { return true }
        guard let unescaped = EncodedQueryText.unescapingJSON(in: word) else { return false }
        return unescaped.withUnsafeBytes { urlBytesNeedRedaction($0[...]) }
    }

    /// The word with what `textWordNeedsRedaction` finds hidden (its escapes read, then); nil
    /// when it holds nothing to hide.
    private func redactedTextWord(_ word: UnsafeRawBufferPointer.SubSequence) -> String? {
        guard !word.isEmpty else { return nil }
        if urlBytesNeedRedaction(word) { return redactURL(String(decoding: word, as: UTF8.self)) }
        guard let unescaped = EncodedQueryText.unescapingJSON(in: word), unescaped.withUnsafeBytes({ urlBytesNeedRedaction($0[...]) }) else { return nil }
        return redactURL(String(decoding: unescaped, as: UTF8.self))
    }

    /// Whitespace, a quote or `<`/`>`: where a URL or pair in text ends.
    private static func endsTextWord(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x09...0x0D, 0x20, UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "<"), UInt8(ascii: ">"): true
        default: false
        }
    }

    /// Whether a JSON text's strings, each on its own as redaction rewrites them, hold a declared
    /// parameter or a URL's password. (Read across the whole text, a value could run from one
    /// string into the next and hide the pair that starts there.) A string the text ends inside
    /// is read to the end.
    private func jsonStringsNeedRedaction(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard ASCII.containsEither(UInt8(ascii: "="), UInt8(ascii: "@"), in: bytes[...]) else { return false }
        var from = 0
        while from < bytes.count, let open = ASCII.firstIndex(of: UInt8(ascii: "\""), in: bytes[from...]) {
            var end = open + 1
            while end < bytes.count, bytes[end] != UInt8(ascii: "\"") { end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1 }
            end = min(end, bytes.count)
            let contents = bytes[(open + 1)..<end]
            if urlBytesNeedRedaction(contents) || textWordsNeedRedaction(UnsafeRawBufferPointer(rebasing: contents)) { return true }
            from = end + 1
        }
        return false
    }

    /// Whether bytes hold a JSON `\u00XX` escape of an ASCII character (`\u0026`, `\u0022`,
    /// `\u003d`…), which can hide a pair, a member or a URL from a look at the raw bytes.
    static func containsASCIIEscape(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var from = 0
        while from < bytes.count, let backslash = ASCII.firstIndex(of: UInt8(ascii: "\\"), in: bytes[from...]) {
            if backslash + 5 < bytes.count, bytes[backslash + 1] == UInt8(ascii: "u"), bytes[backslash + 2] == UInt8(ascii: "0"),
               bytes[backslash + 3] == UInt8(ascii: "0"), (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(bytes[backslash + 4]) {
                return true
            }
            // An escaped backslash is skipped whole, so `\\u0026` (a backslash, then text) is not read as an escape.
            from = backslash + 2
        }
        return false
    }

    /// Whether bytes hold `://` or `:\/\/`, where a URL may be.
    private static func containsSchemeSeparator(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        var from = 0
        while let colon = ASCII.firstIndex(of: UInt8(ascii: ":"), in: bytes[from...]) {
            if colon + 3 <= bytes.count, memcmp(base + colon, "://", 3) == 0 { return true }
            if colon + 5 <= bytes.count, memcmp(base + colon, ":\\/\\/", 5) == 0 { return true }
            from = colon + 1
        }
        return false
    }

    /// Hides the values of declared parameters in a query string found anywhere in `text`. In
    /// free text (`inText`), a quote that closes a quoted URL (`"…?token=v" has…`) stays.
    /// A URL as a log's record shows it (a URL field, not free text): its password, secret
    /// parameters and values that hold a secret hidden. What a cache entry stores of a URL.
    public func redactingURL(_ url: String) -> String {
        redactURL(url)
    }

    private func redactURL(_ text: String, inText: Bool = false) -> String {
        replaceSecrets(redactPairs(URLPassword.masking(in: text), queryOnly: true, closingQuotesEndValues: inText))
    }

    private func isSecretParameter(_ written: UnsafeRawBufferPointer.SubSequence) -> Bool {
        // A query written into HTML escapes its `&` (`?a=1&amp;token=…`): the name follows the entity.
        let name = EncodedQueryText.nameAfterAmpersandEntities(written)
        if ASCII.contains(UInt8(ascii: "%"), in: name) {
            let decoded = String(decoding: name, as: UTF8.self)
            return isSecretName(decoded.removingPercentEncoding ?? decoded)
        }
        return isSecretName(name)
    }

    /// Whether a value under `name` is one a log hides wherever it stands, as a JSON member, a
    /// form part, or a query or form parameter: a declared body field's, parameter's or secret
    /// header's name, in any case and without `_`, `-` and `.`, also nested as a form writes it
    /// (`token[]`, `user[token]`, as the agent flattens arrays and objects) or a dotted path
    /// (`user.password`, as many frameworks bind forms and flattened settings) when any of its
    /// keys is. The cache key's rule for secret query parameters too; an import and a save move such
    /// values to the secrets file, so a workspace file never holds in clear what a log hides.
    public func isSecretName(_ name: String) -> Bool {
        name.withUTF8Bytes { isSecretName(UnsafeRawBufferPointer($0)[...]) }
    }

    /// `isSecretName` for a name given as bytes, decided without a copy: the whole name, then
    /// each of its keys when it is nested, and each dotted tail of a key (`stripe.api.key` is
    /// secret by `api.key`, which is `api_key`).
    ///
    /// A header's name has no case to read (`readsCapitals` false): its words are told apart by
    /// `-` and `_` only.
    func isSecretName(_ written: UnsafeRawBufferPointer.SubSequence, readsCapitals: Bool = true) -> Bool {
        // Spaces, tabs and `+` (a space in a query) around a name are read past, as servers read
        // them (PHP drops a parameter name's leading spaces): `?+token=`, `?token%20=`.
        var name = written
        while let first = name.first, Self.isPaddingAroundName(first) { name = name.dropFirst() }
        while let last = name.last, Self.isPaddingAroundName(last) { name = name.dropLast() }
        if secretKeys.contains(name) { return true }
        guard let base = name.base.baseAddress else { return false }
        func byte(_ index: Int) -> UInt8 { base.load(fromByteOffset: index, as: UInt8.self) }
        func next(from index: Int, where found: (UInt8) -> Bool) -> Int {
            var index = index
            while index < name.endIndex, !found(byte(index)) { index += 1 }
            return index
        }
        // Most names are not nested: decided by the whole name, looked up above, and its last words.
        guard next(from: name.startIndex, where: Self.isNestingMark) < name.endIndex else { return endsInSecretWords(name, readsCapitals: readsCapitals) }
        // Each key, and the dotted tail from it to the next bracket (`stripe.api.key` is secret by
        // `api.key`, `api.key[0]` too). One pass: the bracket a tail ends at is found once for
        // all the keys before it, and a lookup reads at most a secret name's length of a name
        // (`ByteNameSet`), so a hostile name of a million keys costs a million steps, not a
        // million squared.
        var start = name.startIndex
        var tailEnd = name.startIndex
        while start < name.endIndex {
            let keyEnd = next(from: start, where: Self.isNestingMark)
            if tailEnd < keyEnd { tailEnd = next(from: keyEnd, where: { $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "]") }) }
            if start < keyEnd, secretKeys.contains(name.base[start..<keyEnd]) || endsInSecretWords(name.base[start..<keyEnd], readsCapitals: readsCapitals) {
                return true
            }
            if tailEnd > keyEnd, secretKeys.contains(name.base[start..<tailEnd]) { return true }
            start = keyEnd + 1
        }
        return keysJoinedAreSecret(name, readsCapitals: readsCapitals)
    }

    /// Whether a key's last words spell a secret name: the words after a `_` or `-`
    /// (`db_password`, `X-Goog-Api-Key` as `api_key`, `Private-Token`) or from a capital after
    /// a small letter or digit (`newPassword`, `githubToken`) when `readsCapitals`. A key whose name ends in a
    /// secret is taken to hold one, erring on the side of the secret (`show_password: true` is
    /// hidden too); words that only start with one (`token_type`, `password_min_length`) or
    /// name many (`max_tokens`) are not. A number after the words counts them, as a second
    /// field does (`password2`, `api_key_2`, `newToken1`). Read back from the key's end, no
    /// further than a secret name's length (separators aside): a longer tail is none.
    private func endsInSecretWords(_ key: UnsafeRawBufferPointer.SubSequence, readsCapitals: Bool) -> Bool {
        let (start, end) = (key.startIndex, key.endIndex)
        guard end - start > 1, let raw = key.base.baseAddress else { return false }
        let bytes = raw.assumingMemoryBound(to: UInt8.self)
        var last = end - 1
        while last > start, ByteNameSet.isSeparator(bytes[last]) { last -= 1 }
        // Every word at the end ends where the key does (separators aside, which names leave
        // out): a last letter no secret name ends with rules them all out.
        if secretKeys.mayEnd(with: bytes[last]), lastWordsAreSecret(key.base, bytes, start: start, end: end, readsCapitals: readsCapitals) { return true }
        return bytes[last] &- 0x30 < 10 && endsInSecretWords(key, beforeNumberEndingAt: last, readsCapitals: readsCapitals)
    }

    /// `endsInSecretWords` for a name whose last byte before `last` is a digit: its words before
    /// the number (`password2`), or the name before it whole. Apart, so the common name's path
    /// stays as short as it was.
    @inline(never)
    private func endsInSecretWords(_ key: UnsafeRawBufferPointer.SubSequence, beforeNumberEndingAt last: Int, readsCapitals: Bool) -> Bool {
        guard let raw = key.base.baseAddress else { return false }
        let bytes = raw.assumingMemoryBound(to: UInt8.self)
        let start = key.startIndex
        var last = last
        while last > start, bytes[last] &- 0x30 < 10 || ByteNameSet.isSeparator(bytes[last]) { last -= 1 }
        // Digits alone, or digits after one letter, name nothing.
        guard last > start else { return false }
        if secretKeys.contains(key.base[start..<(last + 1)]) { return true }
        return secretKeys.mayEnd(with: bytes[last]) && lastWordsAreSecret(key.base, bytes, start: start, end: last + 1, readsCapitals: readsCapitals)
    }

    /// `endsInSecretWords` for the words ending at `end`, the name from `start` on (`base` and
    /// `bytes` the same memory), once its last letter may end a secret name.
    @inline(__always)
    private func lastWordsAreSecret(_ base: UnsafeRawBufferPointer, _ bytes: UnsafePointer<UInt8>, start: Int, end: Int, readsCapitals: Bool) -> Bool {
        let longest = secretKeys.longestFoldedLength
        var folded = 0
        var index = end - 1
        while index > start {
            let (byte, previous) = (bytes[index], bytes[index - 1])
            if !ByteNameSet.isSeparator(byte) {
                folded &+= 1
                if folded > longest { return false }
            }
            // (A `.` too, for a header's name, which is read without the nesting pass: `User.Password`.)
            let afterSeparator = ByteNameSet.isSeparator(previous) && !ByteNameSet.isSeparator(byte)
            // A capital after a small letter or a digit (unsigned differences: one compare each).
            let startsCapitalized = readsCapitals && byte &- 0x41 < 26 && (previous &- 0x61 < 26 || previous &- 0x30 < 10)
            if afterSeparator || startsCapitalized, secretKeys.contains(base[index..<end]) { return true }
            index &-= 1
        }
        return false
    }

    /// Whether the keys of a nested name, read as one with a `-` for each mark, spell a secret
    /// name whole or in their last words: `api][key` spells `api-key` (`{"api": {"key": …}}`),
    /// `stripe_api[key]` ends in `api-key`. Only the name's last secret name's length is read
    /// (separators aside), copied back from its end.
    private func keysJoinedAreSecret(_ name: UnsafeRawBufferPointer.SubSequence, readsCapitals: Bool) -> Bool {
        let longest = secretKeys.longestFoldedLength
        guard longest > 0, let raw = name.base.baseAddress else { return false }
        let bytes = raw.assumingMemoryBound(to: UInt8.self)
        // Back from the end while the letters fit, and one byte more (the one before a word).
        var first = name.endIndex
        var folded = 0
        while first > name.startIndex, folded <= longest {
            first -= 1
            if !ByteNameSet.isSeparator(bytes[first]), !Self.isNestingMark(bytes[first]) { folded += 1 }
        }
        return withUnsafeTemporaryAllocation(byteCount: name.endIndex - first, alignment: 1) { room in
            // An index (`api[0][key]`, as `qs` writes an array) adds no name, as an array adds
            // none to a JSON body's path: a key of digits alone is left out.
            var count = 0
            var keyStart = 0
            for offset in 0..<(name.endIndex - first) {
                let byte = bytes[first + offset]
                if Self.isNestingMark(byte) {
                    if count > keyStart, UnsafeRawBufferPointer(room)[keyStart..<count].allSatisfy({ $0 &- 0x30 < 10 }), keyStart > 0 || first > name.startIndex {
                        count = keyStart
                    }
                    room[count] = UInt8(ascii: "-")
                    count += 1
                    keyStart = count
                } else {
                    room[count] = byte
                    count += 1
                }
            }
            let joined = UnsafeRawBufferPointer(room)[0..<count]
            // Whole only when the copy starts where the name does: otherwise it starts mid-word.
            return (first == name.startIndex && secretKeys.contains(joined)) || endsInSecretWords(joined, readsCapitals: readsCapitals)
        }
    }

    /// A space, a tab or a `+` (a query's space), read past around a name.
    @inline(__always)
    private static func isPaddingAroundName(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == UInt8(ascii: "+")
    }

    /// `[`, `]` and `.`, between the keys of a nested name (`user[token]`, `user.token`).
    @inline(__always)
    private static func isNestingMark(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]") || byte == UInt8(ascii: ".")
    }

    /// Whether a `name=value` list holds a declared parameter name. With `queryOnly`, pairs start
    /// after `?` or `&` (a URL or request line); otherwise after `&` (a form body). Either way a
    /// pair also starts after `;`, which some servers read as `&` (`?a=1;token=…`). A value with
    /// escapes is also judged decoded (`next=https%3A%2F%2Fh%2F%3Ftoken%3D…`, up to
    /// `EncodedQueryText.decodingLevels` deep); `throughEncoding` is false for that decoded look,
    /// which is never decoded again.
    private func pairsNeedRedaction(_ bytes: UnsafeRawBufferPointer.SubSequence, queryOnly: Bool, throughEncoding: Bool = true) -> Bool {
        // No `=`, no pair: most URLs and heads are decided by one memchr.
        guard ASCII.contains(UInt8(ascii: "="), in: bytes), let base = bytes.base.baseAddress else { return false }
        var nameStart = bytes.startIndex
        var inValue = false
        var valueStart = bytes.startIndex
        var valueIsEncoded = false
        // Where a value that opens JSON closes it: what it holds ends no value before.
        var jsonEnd = bytes.startIndex
        // Where the last stretch judged whole ends (see below).
        var judgedUntil = bytes.startIndex
        // What looking for the ends of JSON values may read (`containerEnd(_:from:budget:)`).
        var containerBudget = Self.containerBudget(for: bytes.count)
        let place: QueryPairs.Place = queryOnly ? .url : .form
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = base.load(fromByteOffset: index, as: UInt8.self)
            if index >= jsonEnd, inValue ? QueryPairs.endsShownValue(byte, place: place) : QueryPairs.endsName(byte, place: place) {
                if inValue, jsonValueHoldsSecret(bytes.base[valueStart..<index]) { return true }
                if valueIsEncoded, encodedValueNeedsRedaction(bytes.base[valueStart..<index]) { return true }
                // Ended short of where a hidden value would run (a `;`): what it holds up to there is
                // judged too (`next=…%3Fa%3D1;%26token%3D…`), once for each such stretch.
                if inValue, index >= judgedUntil, !QueryPairs.endsHiddenValue(byte, place: place) {
                    var end = index
                    while end < bytes.endIndex, !QueryPairs.endsHiddenValue(base.load(fromByteOffset: end, as: UInt8.self), place: place) { end += 1 }
                    judgedUntil = end
                    if stretchHoldsSecret(bytes.base[valueStart..<end]) { return true }
                }
                inValue = false
                valueIsEncoded = false
                nameStart = index + 1
            } else if byte == UInt8(ascii: "="), !inValue {
                inValue = true
                valueStart = index + 1
                jsonEnd = JSONMemberRedactor.containerEnd(bytes, from: valueStart, budget: &containerBudget) ?? valueStart
                if isSecretParameter(bytes.base[nameStart..<index]) { return true }
            } else if byte == UInt8(ascii: "%") || byte == UInt8(ascii: "+"), inValue, throughEncoding {
                valueIsEncoded = true
            }
            index += 1
        }
        if inValue, jsonValueHoldsSecret(bytes.base[valueStart..<bytes.endIndex]) { return true }
        return valueIsEncoded && encodedValueNeedsRedaction(bytes.base[valueStart..<bytes.endIndex])
    }

    /// What a walk over `count` bytes of pairs may read looking for where JSON values end: a few
    /// times the input, which a value that opens and closes its JSON never needs more of.
    static func containerBudget(for count: Int) -> Int {
        4 * count + 4_096
    }

    /// Whether a stretch of a value, from its start to where a hidden value would end, holds a
    /// secret for what it is: JSON with a secret member, or encoded text hiding one.
    private func stretchHoldsSecret(_ stretch: UnsafeRawBufferPointer.SubSequence) -> Bool {
        jsonValueHoldsSecret(stretch)
            || (ASCII.containsEither(UInt8(ascii: "%"), UInt8(ascii: "+"), in: stretch) && encodedValueNeedsRedaction(stretch))
    }

    /// Whether a pair's value is JSON (as written, or percent-encoded: `{…}`, `%7B…`) holding a
    /// secret member (`payload={"password":…}`, as forms and queries carry a JSON document):
    /// the whole value is then hidden, as an encoded value holding a secret is.
    private func jsonValueHoldsSecret(_ value: UnsafeRawBufferPointer.SubSequence) -> Bool {
        guard let first = value.first else { return false }
        let opensJSON = first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
        let opensEncoded = first == UInt8(ascii: "%") && value.count >= 3 && ASCII.lowercase(value[value.startIndex + 2]) == UInt8(ascii: "b")
            && (value[value.startIndex + 1] == UInt8(ascii: "7") || value[value.startIndex + 1] == UInt8(ascii: "5"))
        guard opensJSON || opensEncoded else { return false }
        if opensJSON, containsSecretMember(UnsafeRawBufferPointer(rebasing: value)) || holdsSecretPair(value) { return true }
        // Encoded, whole or in part (`%7B%22token%22…`, or `{%22token%22…` as browsers encode
        // only the quotes): judged on each decoded level, decoded leniently (a stray `%` stays).
        guard ASCII.contains(UInt8(ascii: "%"), in: value) else { return false }
        let text = EncodedQueryText.plusAsSpace(String(decoding: value, as: UTF8.self))
        return EncodedQueryText.decodedLevels(value).contains { level in
            Self.startsLikeJSON(level.utf8) && level.withUTF8Bytes { containsSecretMember(UnsafeRawBufferPointer($0)) }
        } || (text.hasPrefix("{") || text.hasPrefix("[")) && text.withUTF8Bytes { containsSecretMember(UnsafeRawBufferPointer($0)) }
    }

    /// Whether JSON written into a pair's value holds what a server splitting the pairs at `&`
    /// or `;` reads as a secret parameter (`payload={"a":"x&token=…"}`): a name after any of
    /// `&`, `;`, `?`, a space, a tab, `+`, a quote or JSON's punctuation, then `=`. One pass,
    /// whatever the nesting.
    private func holdsSecretPair(_ value: UnsafeRawBufferPointer.SubSequence) -> Bool {
        var nameStart = value.startIndex
        for index in value.indices {
            switch value[index] {
            case UInt8(ascii: "&"), UInt8(ascii: ";"), UInt8(ascii: "?"), 0x20, 0x09, UInt8(ascii: "+"), UInt8(ascii: "\""),
                 UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: ","), UInt8(ascii: ":"):
                nameStart = index + 1
            case UInt8(ascii: "="):
                if nameStart < index, isSecretParameter(value.base[nameStart..<index]) { return true }
                nameStart = index + 1
            default:
                break
            }
        }
        return false
    }

    /// Whether an encoded value, decoded, holds a URL's password, a declared parameter or a
    /// declared value, at any of its levels of encoding: the whole value is then hidden, since
    /// its encoded form cannot be cut where the decoded secret lies. Values whose escapes are all
    /// of bytes beyond ASCII (`q=caf%C3%A9`) can hide no URL part, and are decoded only when a
    /// declared value could be under the encoding.
    private func encodedValueNeedsRedaction(_ value: UnsafeRawBufferPointer.SubSequence) -> Bool {
        let hidesDeclared = !secretValues.isEmpty
        guard hidesDeclared || EncodedQueryText.mayHideURLParts(value) else { return false }
        let levels = EncodedQueryText.decodedLevels(value)
        if hidesDeclared {
            // A form reads `+` as a space; a secret may also hold a `+` of its own (base64).
            let raw = String(decoding: value, as: UTF8.self)
            for text in [EncodedQueryText.plusAsSpace(raw)] + levels + levels.map(EncodedQueryText.plusAsSpace)
            where secretForms.contains(where: { text.contains($0) }) {
                return true
            }
        }
        for level in levels {
            let found = level.withUTF8Bytes { raw in
                let all = UnsafeRawBufferPointer(raw)
                if pairsNeedRedaction(all[...], queryOnly: true, throughEncoding: false)
                    || (ASCII.contains(UInt8(ascii: "@"), in: all[...]) && URLPassword.hasPassword(level)) {
                    return true
                }
                // Word by word too, as text is read (`%22token%3D…%22` decodes to a quoted pair).
                return Self.anyTextWord(in: all) { pairsNeedRedaction($0, queryOnly: true, throughEncoding: false) }
            }
            if found { return true }
        }
        return false
    }

    /// A byte-level walk over `name=value` pairs, hiding values of declared parameter names. A
    /// `;` starts a pair after a value that is shown (`?a=1;token=…`, as some servers read it),
    /// but not inside a hidden one, which runs on to the `&` (`token=ab;cd`), so that whichever
    /// way the server splits the pairs, no part of a secret shows (`QueryPairs` reads pairs the
    /// same way where an import moves them). With
    /// `closingQuotesEndValues`, a quote that closes a quoted word (`"http://h/?token=v" has…`)
    /// ends a value.
    private func redactPairs(_ text: String, queryOnly: Bool, closingQuotesEndValues: Bool = false) -> String {
        guard text.withUTF8Bytes({ pairsNeedRedaction(UnsafeRawBufferPointer($0)[...], queryOnly: queryOnly) }) else { return text }
        // Inside a declared value a hidden value runs on past a space, `&` or `#`
        // (`password=hun&ter2`), so no part of it is left for the declared values' search to miss.
        var insideDeclared: [Bool] = []
        if !secretValues.isEmpty {
            let declared = secretRanges(in: Array(text.utf8))
            if !declared.isEmpty {
                insideDeclared = Array(repeating: false, count: text.utf8.count)
                for range in declared where range.count > 1 {
                    for index in (range.lowerBound + 1)..<range.upperBound { insideDeclared[index] = true }
                }
            }
        }
        let marker = Array(Self.marker.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        var name: [UInt8] = []
        var inValue = false
        var hiding = false
        var changed = false
        var valueStart = 0
        // Where the value starts in `text`, and where the last stretch judged whole ends.
        var valueInputStart = 0
        var judgedUntil = 0
        // The check's budget: both read the same values' ends.
        var containerBudget = Self.containerBudget(for: text.utf8.count)
        let place: QueryPairs.Place = queryOnly ? .url : .form
        var valueIsEncoded = false
        /// Ends the current value: the marker for a hidden one, or for one hiding a secret under its encoding.
        func endValue() {
            if !hiding, inValue, output[valueStart...].withUnsafeBytes({ jsonValueHoldsSecret($0[...]) }) {
                output.removeSubrange(valueStart...)
                hiding = true
                changed = true
            }
            if !hiding, valueIsEncoded, output[valueStart...].withUnsafeBytes({ encodedValueNeedsRedaction($0[...]) }) {
                output.removeSubrange(valueStart...)
                hiding = true
                changed = true
            }
            if hiding { output += marker }
            inValue = false
            hiding = false
            valueIsEncoded = false
        }
        text.withUTF8Bytes { bytes in
            func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
            // What may follow a closing quote: the end or a space, or one mark of punctuation
            // and then the end or a space (`(in "http://h/?token=v")`, as a refusal quotes a URL).
            // A quote followed by more is inside the value (`'…?password=ab'.cd'`), hidden with it.
            func endsQuotedWord(at index: Int) -> Bool {
                if index == bytes.count || isSpace(bytes[index]) { return true }
                guard [UInt8(ascii: ")"), UInt8(ascii: "]"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "."), UInt8(ascii: ":")].contains(bytes[index]) else { return false }
                return index + 1 == bytes.count || isSpace(bytes[index + 1])
            }
            // A quote closes the quoted word it ends: one that began with the same quote.
            func closesQuote(at index: Int) -> Bool {
                guard closingQuotesEndValues, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'"),
                      endsQuotedWord(at: index + 1) else { return false }
                var start = index
                while start > 0, !isSpace(bytes[start - 1]) { start -= 1 }
                return start < index && bytes[start] == bytes[index]
            }
            // What ends a name or a value. A hidden value runs on as far as it can: in a form
            // body to the `&` (`password=correct horse battery`, as `curl -d` sends it), in a
            // URL to the `&` or `#` (a refused URL's `?token=ab cd`, `token=ab?cd`), in text
            // also to a space or the quote that closes a quoted URL. A shown one ends at a
            // space, `#`, `;` and in a URL `?` too, each of which may start a pair.
            // The same rules as `QueryPairs`, where an import reads pairs.
            func endsValue(_ byte: UInt8, at index: Int, hidden: Bool) -> Bool {
                if hidden {
                    return QueryPairs.endsHiddenValue(byte, place: place) || (closingQuotesEndValues && (byte == 0x20 || closesQuote(at: index)))
                }
                return inValue ? QueryPairs.endsShownValue(byte, place: place) || closesQuote(at: index) : QueryPairs.endsName(byte, place: place)
            }
            // A shown value that ends short of where a hidden one would run (at a `;`) is judged
            // with what follows up to there, as the check judges it: encoded or JSON, it may hold a
            // secret past the `;` (`payload=%7B%22password%22:%22ab;cd%22%7D`), and is then hidden
            // whole. Once for each such stretch, so many `;` cost one look.
            func hidesStretch(endingAt index: Int) -> Bool {
                guard index >= judgedUntil, !endsValue(bytes[index], at: index, hidden: true) else { return false }
                var end = index
                while end < bytes.count, !endsValue(bytes[end], at: end, hidden: true) { end += 1 }
                judgedUntil = end
                return stretchHoldsSecret(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[valueInputStart..<end]))[...])
            }
            // A value already the marker (a refusal quotes its URL hidden) ends with it where a
            // delimiter follows (a space, a quote, `&`, `#`, closing punctuation), so what follows
            // it (the refusal's closing `")`) is kept.
            var skipUntil = 0
            // Where a value that opens JSON closes it, as the check reads it.
            var jsonEnd = 0
            for (index, byte) in bytes.enumerated() {
                if index < skipUntil {
                    continue
                } else if hiding, !insideDeclared.isEmpty, insideDeclared[index] {
                    continue
                } else if index >= jsonEnd, endsValue(byte, at: index, hidden: hiding) {
                    if inValue, !hiding, hidesStretch(endingAt: index) {
                        output.removeSubrange(valueStart...)
                        hiding = true
                        changed = true
                        continue
                    }
                    endValue()
                    name.removeAll(keepingCapacity: true)
                    output.append(byte)
                } else if byte == UInt8(ascii: "="), !inValue {
                    inValue = true
                    hiding = name.withUnsafeBytes { isSecretParameter($0[...]) }
                    output.append(byte)
                    valueStart = output.count
                    valueInputStart = index + 1
                    jsonEnd = JSONMemberRedactor.containerEnd(bytes, from: index + 1, budget: &containerBudget) ?? 0
                    let afterMarker = index + 1 + marker.count
                    if hiding, afterMarker <= bytes.count, marker.indices.allSatisfy({ bytes[index + 1 + $0] == marker[$0] }),
                       afterMarker == bytes.count || [0x20, 0x22, 0x27, 0x26, 0x23, 0x29, 0x5D, 0x2C, 0x3B].contains(bytes[afterMarker]) {
                        output += marker
                        skipUntil = afterMarker
                        inValue = false
                        hiding = false
                        name.removeAll(keepingCapacity: true)
                    }
                    changed = changed || hiding
                } else if inValue {
                    if !hiding { output.append(byte) }
                    if byte == UInt8(ascii: "%") || byte == UInt8(ascii: "+") { valueIsEncoded = true }
                } else {
                    name.append(byte)
                    output.append(byte)
                }
            }
        }
        endValue()
        return changed ? String(decoding: output, as: UTF8.self) : text
    }

    private func redactBody(_ body: BodySnapshot, force: Bool = false) -> BodySnapshot {
        guard force || bodyNeedsRedaction(body) else { return body }
        // A multipart body's secret parts first, by the names its parts give (as `-F` parts are).
        let secretParts = secretPartNames(of: body)
        let body = secretParts.isEmpty ? body
            : Self.replacingKept(of: body, with: Self.hidingPartContents(named: secretParts, in: body.data, boundary: body.contentType.flatMap(MIMEType.boundary)))
        let kind = BodyKind(body)
        // A JSON or form body with a byte that is not UTF-8 is still redacted as text (that byte
        // becomes U+FFFD): left alone, the log's cap could keep a prefix that reads as text and
        // write a secret in it. Any other body that is not text keeps its bytes, with the
        // declared secret values hidden in them.
        // Such a body cut inside a declared secret's character is looked at as bytes first:
        // decoded, the cut character becomes U+FFFD, which no prefix of the secret matches.
        let cutBeforeDecoding = body.text == nil && kind != .other && body.isTruncated ? cutSecretLength(in: body.data) : nil
        guard let text = body.text ?? (kind == .other ? nil : String(decoding: body.data.dropLast(cutBeforeDecoding ?? 0), as: UTF8.self)) else {
            var hidden = Data(URLPassword.hidingDelimited(standingAloneValues, in: hidingSecrets(in: Array(body.data))))
            if body.isTruncated { hidden = hidingCutSecret(hidden) }
            return hidden == body.data ? body : Self.replacingKept(of: body, with: hidden)
        }
        var redacted = text
        let readsAsJSON = kind == .json || Self.startsLikeJSON(text.utf8)
        if readsAsJSON {
            // Token by token, so a body kept only in part (over the debug body limit) is redacted too.
            if let hidden = jsonMemberRedactor.redact(Array(text.utf8)) {
                redacted = String(decoding: hidden, as: UTF8.self)
            }
        }
        if kind == .form {
            redacted = redactURL(redactPairs(redacted, queryOnly: false))
        } else if kind == .other {
            redacted = redactURLsInText(redacted)
        }
        redacted = replaceSecrets(redacted)
        let kept = Data(redacted.utf8)
        let cut: Data
        if body.isTruncated, let start = kept.withUnsafeBytes({ Self.unfinishedValueStart(in: $0, kind: kind) }) {
            if kind == .json {
                // A JSON string the cut left open was redacted as far as it goes (a secret
                // member's value, JSON quoted inside it, whole URLs); it is kept up to where
                // something begins that only what the cut took could show to be a secret.
                let risky = kept.withUnsafeBytes { Self.riskyTailStart(in: $0, from: start) }
                cut = hidingCutSecret(risky.map { kept.prefix($0) + Data(Self.marker.utf8) } ?? kept)
            } else {
                // A form value the cut fell in goes whole, with any declared secret cut inside it.
                cut = kept.prefix(start) + Data(Self.marker.utf8)
            }
        } else if body.isTruncated, cutBeforeDecoding == nil, kind == .other,
                  let risky = kept.withUnsafeBytes({ Self.riskyTailStart(in: $0, from: 0, inText: true) }) {
            // Text cut inside a URL's user info: hidden from it, as in a JSON string.
            cut = kept.prefix(risky) + Data(Self.marker.utf8)
        } else {
            cut = cutBeforeDecoding != nil ? kept + Data(Self.marker.utf8) : body.isTruncated ? hidingCutSecret(kept) : kept
        }
        guard redacted != text || cut != kept else { return body }
        return Self.replacingKept(of: body, with: cut)
    }

    /// `body` with other kept bytes (its secrets hidden): its size, the body's on the wire, and
    /// whether it was kept in part stay as they were.
    private static func replacingKept(of body: BodySnapshot, with kept: Data) -> BodySnapshot {
        BodySnapshot(kept: kept, size: body.size, truncated: body.isTruncated, contentType: body.contentType)
    }

    private var jsonMemberRedactor: JSONMemberRedactor { jsonMemberRedactor(depth: 0) }

    /// How deep JSON quoted inside JSON strings is redacted as JSON: an echo of an echo of an
    /// echo. A string nested deeper that holds anything to hide is hidden whole, so a crafted
    /// body cannot make redaction recurse, and reparse, without end.
    static let embeddedJSONDepth = 4

    private func jsonMemberRedactor(depth: Int) -> JSONMemberRedactor {
        JSONMemberRedactor(
            isSecretName: isSecretMemberName,
            pathLimit: memberPathLimit,
            redactString: { contents in
                if let encoded = redactEncodedData(contents) { return encoded }
                if let nested = redactEmbeddedJSON(contents, depth: depth) { return nested }
                // Whole (a password with a space in it), then word by word (`\"token=…\"`, an
                // HTML fragment's links), as the check reads it.
                let text = String(decoding: contents, as: UTF8.self)
                let redacted = redactURLsInText(redactURL(text))
                return redacted == text ? nil : Array(redacted.utf8)
            },
            marker: Array(Self.marker.utf8)
        )
    }

    /// A `data:…;base64,…` URL (an echo server's copy of a body that was not text) whose decoded
    /// bytes hold a secret member, parameter or value: the encoded part becomes the marker, since
    /// no part of an encoding can be hidden on its own. Nil when it hides nothing.
    private func redactEncodedData(_ contents: ArraySlice<UInt8>) -> [UInt8]? {
        guard contents.starts(with: "data:".utf8), let comma = contents.firstIndex(of: UInt8(ascii: ",")),
              contents[..<comma].reversed().starts(with: ";base64".utf8.reversed()) else { return nil }
        // JSON may write the alphabet's slash as `\/`; base64 itself has no backslash.
        guard let decoded = Data(base64Encoded: Data(contents[(comma + 1)...].filter { $0 != UInt8(ascii: "\\") })) else { return nil }
        let hides = decoded.withUnsafeBytes { bytes in
            containsSecretMember(bytes) || pairsNeedRedaction(bytes[...], queryOnly: false) || pairsNeedRedaction(bytes[...], queryOnly: true)
        } || !secretRanges(in: Array(decoded)).isEmpty
            || (!standingAloneValues.isEmpty && URLPassword.holdsDelimited(standingAloneValues, in: Array(decoded)))
        return hides ? Array(contents[...comma]) + Array(Self.marker.utf8) : nil
    }

    /// Whether JSON bytes hold a `;base64,` data URL, which only `redactEncodedData` can look into.
    private static func containsEncodedData(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let needle: StaticString = ";base64,"
        let length = needle.utf8CodeUnitCount
        guard let base = bytes.baseAddress else { return false }
        var from = 0
        while let semicolon = ASCII.firstIndex(of: UInt8(ascii: ";"), in: bytes[from...]) {
            if semicolon + length <= bytes.count, memcmp(base + semicolon, needle.utf8Start, length) == 0 { return true }
            from = semicolon + 1
        }
        return false
    }

    /// A string value written with escapes: JSON text (an echo server's `"data"`) redacted as
    /// JSON, other text (a URL) as a URL, on its decoded form, and escaped again; nil when it
    /// hides nothing. A string cut off inside an escape is
    /// read up to the escape.
    private func redactEmbeddedJSON(_ contents: ArraySlice<UInt8>, depth: Int) -> [UInt8]? {
        guard contents.contains(UInt8(ascii: "\\")) else { return nil }
        for cut in 0...min(6, contents.count) {
            guard case .string(let decoded)? = try? JSONValue.parse("\"" + String(decoding: contents.dropLast(cut), as: UTF8.self) + "\"") else { continue }
            let bytes = Array(decoded.utf8)
            // Whatever the outer body is redacted for: secret members, data URLs, URL passwords,
            // pairs in its words.
            let needed = bytes.withUnsafeBytes {
                containsSecretMember($0) || Self.containsEncodedData($0) || urlBytesNeedRedaction($0[...]) || textWordsNeedRedaction($0)
            }
            guard needed else { return nil }
            guard depth < Self.embeddedJSONDepth else { return Array(Self.marker.utf8) }
            // JSON text is redacted as JSON; other text (a URL written with escapes, `\u00e4` or
            // `\u0026`) as a URL, which only its decoded form shows; either, word by word, for
            // what lies outside its strings.
            let asJSON = jsonMemberRedactor(depth: depth + 1).redact(bytes).map { String(decoding: $0, as: UTF8.self) }
            let hidden = redactURLsInText(asJSON ?? redactURL(decoded))
            guard hidden != decoded else { return nil }
            return Array(JSONValue.string(hidden).serialized().utf8.dropFirst().dropLast())
        }
        return nil
    }

    /// Kept bytes that end inside a declared secret value (a body cut at the debug limit) end
    /// with the marker instead of the secret's first bytes, text or not.
    private func hidingCutSecret(_ kept: Data) -> Data {
        guard let length = cutSecretLength(in: kept) else { return kept }
        return kept.prefix(kept.count - length) + Data(Self.marker.utf8)
    }

    /// The longest run of bytes at the end of `kept` that starts a declared secret value (the
    /// longest over all of them: a short match of one must not leave more of another), if any.
    private func cutSecretLength(in kept: Data) -> Int? {
        var longest: Int?
        for secret in secretForms {
            let bytes = Array(secret.utf8)
            for length in stride(from: bytes.count - 1, through: max(1, (longest ?? 0) + 1), by: -1)
            where kept.count >= length && kept.suffix(length).elementsEqual(bytes[..<length]) {
                longest = length
                break
            }
        }
        if let escaped = escapedCutSecretLength(in: kept), escaped > longest ?? 0 { longest = escaped }
        return longest
    }

    /// As `cutSecretLength`, for a value whose kept start has some bytes percent-encoded or a
    /// space as `+` (`…/p@ss%20w0` of `p@ss w0rd`), the cut perhaps inside an escape (`p@ss%2`).
    private func escapedCutSecretLength(in kept: Data) -> Int? {
        guard let longestValue = secretForms.map(\.utf8.count).max(), longestValue > 1 else { return nil }
        let tail = Array(kept.suffix(longestValue * 3 + 2))
        // A cut inside an escape: its `%` and first digit go with the secret.
        var whole = tail.count
        if whole >= 1, tail[whole - 1] == UInt8(ascii: "%") {
            whole -= 1
        } else if whole >= 2, tail[whole - 2] == UInt8(ascii: "%"), PercentDecodedView.hexValue(tail[whole - 1]) != nil {
            whole -= 2
        }
        let written = Array(tail[..<whole])
        guard whole < tail.count || Self.mayHoldEscapes(written) else { return nil }
        var longest: Int?
        for plusAsSpace in [false, true] {
            let view = PercentDecodedView(written, plusAsSpace: plusAsSpace)
            let decoded = view?.bytes ?? written
            for value in secretForms {
                let value = Array(value.utf8)
                for length in stride(from: min(value.count - 1, decoded.count), through: 1, by: -1)
                where decoded.suffix(length).elementsEqual(value[..<length]) {
                    let start = view?.writtenRange(of: (decoded.count - length)..<decoded.count).lowerBound ?? (written.count - length)
                    longest = max(longest ?? 0, tail.count - start)
                    break
                }
            }
        }
        return longest
    }

    /// A secret member name in JSON bytes, or in JSON text quoted inside one of its strings (an
    /// echo server's `"data": "{\"password\":…}"`).
    /// A member is secret by its path too (`{"api": {"key": …}}`), which only an object nested
    /// in another can give it: looked for only when the bytes open two objects.
    private func containsSecretMember(_ bytes: UnsafeRawBufferPointer) -> Bool {
        containsAnyQuotedKey(bytes) || (ASCII.contains(UInt8(ascii: "\\"), in: bytes[...]) && containsEscapedQuotedKey(bytes))
            || (Self.opensTwoObjects(bytes) && JSONMemberRedactor.containsSecretPath(bytes, pathLimit: memberPathLimit, isSecretName: isSecretMemberName))
    }

    /// How many bytes of a member's path can spell a secret name with it (`JSONMemberPath.joinedLimit`).
    private var memberPathLimit: Int { JSONMemberPath.joinedLimit(longest: secretKeys.longestFoldedLength) }

    /// Whether `bytes` hold two `{`.
    private static func opensTwoObjects(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let first = ASCII.firstIndex(of: UInt8(ascii: "{"), in: bytes[...]) else { return false }
        return ASCII.contains(UInt8(ascii: "{"), in: bytes[(first + 1)...])
    }

    /// Whether a JSON member's name, as its bytes stand between the quotes (escapes and all), or
    /// a nested name made of such names (`api[key]`), is secret. A name a form nests
    /// (`user[token]`, `user.token`, echoed as a member) is secret by its keys too.
    private func isSecretMemberName(_ name: UnsafeRawBufferPointer.SubSequence) -> Bool {
        if ASCII.contains(UInt8(ascii: "\\"), in: name),
           case .string(let decoded)? = try? JSONValue.parse("\"" + String(decoding: name, as: UTF8.self) + "\"") {
            return isSecretName(decoded) || isSecretEncodedName(decoded)
        }
        return isSecretName(name) || (ASCII.contains(UInt8(ascii: "%"), in: name) && isSecretEncodedName(String(decoding: name, as: UTF8.self)))
    }

    /// Whether a name an echo kept percent-encoded (`"api%5Bkey%5D"`, a query's name as a server
    /// reflects it) is secret once decoded, as the query's own name is.
    private func isSecretEncodedName(_ name: String) -> Bool {
        guard name.contains("%"), let decoded = name.removingPercentEncoding, decoded != name else { return false }
        return isSecretName(decoded)
    }

    /// Whether `\"name\"` followed by a colon, with `name` a secret key, occurs in the bytes.
    private func containsEscapedQuotedKey(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let backslash = UInt8(ascii: "\\"), quote = UInt8(ascii: "\"")
        var index = 0
        while index + 1 < bytes.count {
            guard bytes[index] == backslash, bytes[index + 1] == quote else { index += 1; continue }
            let start = index + 2
            var end = start
            while end + 1 < bytes.count, !(bytes[end] == backslash && bytes[end + 1] == quote) { end += 1 }
            guard end + 1 < bytes.count else { return false }
            var after = end + 2
            while after < bytes.count, bytes[after] == 0x20 || bytes[after] == 0x0A || bytes[after] == 0x0D || bytes[after] == 0x09 { after += 1 }
            if after < bytes.count, bytes[after] == UInt8(ascii: ":"),
               isSecretName(bytes[start..<end]) { return true }
            index = end + 2
        }
        return false
    }

    /// Whether any object member name in JSON bytes may be a secret key (ignoring ASCII case):
    /// one pass, before paying for a parse. Every member name is a quoted string before a colon,
    /// so the pass goes from colon to colon and looks back at the string before each. A colon
    /// inside a string value only adds a candidate; a name that cannot be read back for sure
    /// (an escape in it or before its opening quote) counts as secret, and the redactor decides.
    private func containsAnyQuotedKey(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
        var from = 0
        while let colon = ASCII.firstIndex(of: UInt8(ascii: ":"), in: bytes[from...]) {
            from = colon + 1
            var end = colon
            while end > 0, Self.isJSONSpace(base.load(fromByteOffset: end - 1, as: UInt8.self)) { end -= 1 }
            guard end > 0, base.load(fromByteOffset: end - 1, as: UInt8.self) == quote else { continue }
            end -= 1
            var start = end
            while start > 0, base.load(fromByteOffset: start - 1, as: UInt8.self) != quote { start -= 1 }
            guard start > 0 else { continue }
            let name = bytes[start..<end]
            // A nested name (`user[token]`, `user.token`) is secret by one of its keys too.
            if ASCII.contains(backslash, in: name) || isSecretMemberName(name) { return true }
            if start > 1, base.load(fromByteOffset: start - 2, as: UInt8.self) == backslash { return true }
        }
        return false
    }

    @inline(__always)
    private static func isJSONSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// `value` with its secret members hidden: secret by their names, or by their paths under
    /// the members enclosing them (`parents`, as `JSONMemberPath` reads them).
    private func redactJSON(_ value: JSONValue) -> JSONValue {
        var parents: [String] = []
        return redactJSON(value, under: &parents)
    }

    /// `parents`: the names of the members that hold `value`, outermost first, pushed and
    /// popped on the way down rather than copied at each level (a value nested hundreds deep
    /// made each level copy all the names above it).
    private func redactJSON(_ value: JSONValue, under parents: inout [String]) -> JSONValue {
        switch value {
        case .object(let members):
            return .object(members.map { member in
                if isSecretMember(member.key, under: parents[...]) { return JSONMember(member.key, .string(Self.marker)) }
                parents.append(member.key)
                defer { parents.removeLast() }
                return JSONMember(member.key, redactJSON(member.value, under: &parents))
            })
        case .array(let elements):
            return .array(elements.map { redactJSON($0, under: &parents) })
        case .string(let text):
            return .string(redactURL(text))
        default:
            return value
        }
    }
}
