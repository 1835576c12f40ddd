import CurlewAgent
import CurlewSessions
import CurlewWorkspace
import Foundation

/// A param or header row in the editor; switched-off rows are kept but not sent.
public struct KeyValueRow: Sendable, Equatable {
    public var enabled: Bool
    public var name: String
    public var value: String

    public init(enabled: Bool = true, _ name: String, _ value: String) {
        self.enabled = enabled
        self.name = name
        self.value = value
    }
}

/// The request being edited in Compose: everything as text, the way the user types it.
public struct RequestDraft: Sendable, Equatable {
    public enum BodyMode: String, Sendable, CaseIterable {
        case none, raw, json = "JSON", form = "form", multipart

        /// The content type a body of this mode is sent with unless a header says otherwise (a
        /// multipart body's, with its boundary, is the agent's).
        var contentType: String {
            switch self {
            case .none, .raw: GuessedBodyType.text
            case .json: GuessedBodyType.json
            case .form: "application/x-www-form-urlencoded"
            case .multipart: "multipart/form-data"
            }
        }
    }

    public enum Auth: Sendable, Equatable {
        case none
        case basic(user: String, password: String)
        case bearer(token: String)

        var label: String {
            switch self {
            case .none: "none"
            case .basic: "basic"
            case .bearer: "bearer"
            }
        }
    }

    public static let methods = HTTPMethod.common.map(\.rawValue)

    public var name: String
    public var method: String
    public var url: String
    public var params: [KeyValueRow]
    public var headers: [KeyValueRow]
    public var bodyMode: BodyMode
    public var body: String
    public var auth: Auth
    public var timeoutSeconds: Double
    /// The timeout was set (by the request it came from, or by the user), not the default.
    public var hasOwnTimeout = false
    public var followRedirects: Bool
    /// The workspace entry this draft was loaded from or last saved as; nil until saved.
    public var entryName: String?
    /// The workspace entry a duplicate was made from, until it is saved: the fields the editor
    /// does not show (expectations, retry, cache, TLS…) come from it when it is sent or saved.
    public var copiedFrom: String?
    /// The entry whose hidden fields this draft carries: its own, or the one it was copied from.
    public var sourceEntry: String? { entryName ?? copiedFrom }
    /// The folder the workspace lists it under (`api/users`); nil at the top.
    public var folder: String?

    /// A folder as typed into a Folder field: nested with `/`, spaces around each name and empty
    /// names dropped; nil for the top level.
    static func folder(typed text: String) -> String? {
        let folder = text.split(separator: "/").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: "/")
        return folder.isEmpty ? nil : folder
    }

    /// The timeout of a request that sets none.
    public static let defaultTimeoutSeconds: Double = 15

    public init(name: String = "new request", method: String = "GET", url: String = "", params: [KeyValueRow] = [],
                headers: [KeyValueRow] = [], bodyMode: BodyMode = .none, body: String = "", auth: Auth = .none,
                timeoutSeconds: Double = 15, followRedirects: Bool = true) {
        self.name = name
        self.method = method
        self.url = url
        self.params = params
        self.headers = headers
        self.bodyMode = bodyMode
        self.body = body
        self.auth = auth
        self.timeoutSeconds = timeoutSeconds
        self.followRedirects = followRedirects
    }

    /// Takes a lone `Authorization: Basic` (`curl -u`) or `Bearer` header into the Auth field,
    /// which shows the password masked and the token cut, where a header row shows it whole
    /// (base64 is no disguise). For a draft whose text is literal (`escapeTemplates` done): the
    /// Auth field's values are filled in as templates, so a `{{` the credentials hold is
    /// escaped there as everywhere else in the draft.
    mutating func moveCredentialsToAuth() {
        guard auth == .none else { return }
        let rows = headers.indices.filter { headers[$0].name.lowercased() == "authorization" }
        guard rows.count == 1, let index = rows.first, headers[index].enabled else { return }
        let value = headers[index].value.trimmingCharacters(in: .whitespaces)
        guard let space = value.firstIndex(of: " ") else { return }
        let scheme = value[..<space]
        let credentials = String(value[value.index(after: space)...]).trimmingCharacters(in: .whitespaces)
        if scheme.lowercased() == "basic" {
            // base64 is never filled in: its decoded text is escaped here.
            guard let decoded = Data(base64Encoded: credentials), let text = String(data: decoded, encoding: .utf8),
                  let colon = text.firstIndex(of: ":") else { return }
            auth = .basic(user: TemplateEscape.escaping(String(text[..<colon])), password: TemplateEscape.escaping(String(text[text.index(after: colon)...])))
        } else if scheme.lowercased() == "bearer", !credentials.isEmpty {
            auth = .bearer(token: credentials)
        } else {
            return
        }
        headers.remove(at: index)
    }

    /// Every `{{` of the draft's text escaped (`TemplateEscape.escaping`), so that text taken as it
    /// was written (a pasted curl command) is sent so, not read for variables.
    mutating func escapeTemplates() {
        url = TemplateEscape.escaping(url)
        for index in params.indices {
            params[index].name = TemplateEscape.escaping(params[index].name)
            params[index].value = TemplateEscape.escaping(params[index].value)
        }
        // Header names are never filled in, so they stay as they are.
        for index in headers.indices { headers[index].value = TemplateEscape.escaping(headers[index].value) }
        // A JSON body's strings are filled in as they read, so their `{{` are escaped there; the
        // same rule and the same row as sending's (`build`). A config's default type for a
        // guessed one is not known here: text escaped so and then filled in as JSON reads back
        // as the text, since `\{` is no JSON escape.
        if bodyMode == .form {
            // A form's fields are decoded before they are filled in, so a `%7B%7B` in its text
            // is a `{{` there: escaped in the fields, which the text shows as `\{{`.
            body = FormText.text(of: Parameters(FormText.fields(of: body).map {
                JSONMember(TemplateEscape.escaping($0.name), .string(TemplateEscape.escaping($0.value)))
            }))
        } else {
            let type = enabledHeaders { $0 }["Content-Type"] ?? bodyMode.contentType
            body = Self.fillsBodyAsJSON(bodyMode, contentType: type, overriding: nil)
                ? JSONTemplateFill.escapingTemplates(in: body) : TemplateEscape.escaping(body)
        }
        switch auth {
        case .none: break
        case .basic(let user, let password): auth = .basic(user: TemplateEscape.escaping(user), password: TemplateEscape.escaping(password))
        case .bearer(let token): auth = .bearer(token: TemplateEscape.escaping(token))
        }
    }

    /// The header rows switched on, in order, as they are sent: their values through `value`
    /// (filled in, or as typed).
    private func enabledHeaders<Failure: Error>(_ value: (String) throws(Failure) -> String) throws(Failure) -> HTTPHeaders {
        var enabled = HTTPHeaders()
        for row in headers where row.enabled && !row.name.isEmpty { enabled.add(row.name, try value(row.value)) }
        return enabled
    }

    /// Whether sending fills a body's JSON strings one by one rather than its text: a JSON body
    /// always, raw text when its type (`contentType`: the first Content-Type row, else the
    /// mode's) or the type that overrides a guessed one is JSON; a form or multipart body never.
    /// One rule for filling in (`build`) and for escaping what must stay literal.
    static func fillsBodyAsJSON(_ mode: BodyMode, contentType: String, overriding: String?) -> Bool {
        switch mode {
        case .json: true
        case .raw: MIMEType.isJSON(body: contentType, header: overriding)
        case .none, .form, .multipart: false
        }
    }

    /// A draft of a ready request: query parameters become rows, body parameters the body. A
    /// relative URL is joined to `baseURL`, or kept as it is when that is nil (a workspace entry
    /// as written, sent against the workspace's base URL).
    public init(_ request: Request, baseURL: String?) {
        let path = request.customURL ?? request.path
        let url = path.contains("://") ? path : baseURL.map { $0 + (path.hasPrefix("/") ? path : "/" + path) } ?? path
        var params: [KeyValueRow] = []
        var bodyMode = BodyMode.none
        var body = ""
        var headers = request.headers.map { KeyValueRow($0.name, $0.value) }
        switch request.requestSerializer {
        case .raw(let data, let contentType):
            let type = contentType.lowercased()
            body = String(decoding: data, as: UTF8.self)
            // A body sent as a form is edited as one only when it reads back as the same fields
            // (curl -d '{"a":1}' is sent with the form type, but is not a form).
            let isForm = type.hasPrefix("application/x-www-form-urlencoded") && FormText.isForm(body)
            // JSON as the workspace writer reads it (`MIMEType.isJSON`), so the mode and the saved form agree.
            bodyMode = MIMEType.isJSON(type) ? .json : isForm ? .form : .raw
            params = request.params.map { KeyValueRow($0.key, $0.value.textValue) }
            // A content type other than the mode's own is kept as a header row, so it is sent
            // and saved as it was.
            if contentType != bodyMode.contentType, !headers.contains(where: { $0.name.lowercased() == "content-type" }) {
                headers.append(KeyValueRow("Content-Type", contentType))
            }
        case .json where !request.method.encodesParametersInQuery:
            bodyMode = .json
            body = request.params.jsonObject.serialized()
        case .urlEncodedForm where !request.method.encodesParametersInQuery && request.form == nil:
            bodyMode = request.params.isEmpty ? .none : .form
            body = FormText.text(of: request.params)
        default:
            params = request.params.map { KeyValueRow($0.key, $0.value.textValue) }
        }
        // A multipart body is edited as curl -F lines when every part can be one.
        if let form = request.form, let lines = MultipartText.text(of: form) {
            bodyMode = .multipart
            body = lines
        }
        self.init(
            name: request.name ?? path, method: request.method.rawValue, url: url, params: params,
            headers: headers, bodyMode: bodyMode, body: body,
            timeoutSeconds: request.timeout.map { Double($0.wholeMilliseconds) / 1000 } ?? Self.defaultTimeoutSeconds,
            followRedirects: request.followRedirects ?? true
        )
        hasOwnTimeout = request.timeout != nil
    }

    /// A draft of a workspace entry as written, which saves back to that entry. A query the
    /// reader put in the URL (a POST's `query:`) comes back as rows, decoded. A URL with a
    /// fragment after its query keeps both in its text: rows go before a fragment nowhere, and
    /// a fragment read as the last value would be sent (found by a new user's trial: saved,
    /// `#access_token=…` went to the server).
    public init(entry request: Request, named name: String) {
        self.init(request, baseURL: nil)
        self.name = name
        entryName = name
        if let mark = url.firstIndex(of: "?"), !url.contains("://"), !url[mark...].contains("#") {
            params += FormText.fields(of: String(url[url.index(after: mark)...])).map { KeyValueRow($0.name, $0.value) }
            url = String(url[..<mark])
        }
    }

    /// A draft of a recorded request, for re-sending it. A header or parameter whose value the
    /// record hid (`[REDACTED]`) starts switched off, and a hidden URL password is dropped (the
    /// user name stays), so the marker is not sent as a credential.
    public init(_ message: DebugMessage) {
        let original = message.original
        var url = (original?.url ?? "").replacingOccurrences(of: Self.hiddenPassword, with: "@")
        var params: [KeyValueRow] = []
        if let components = URLComponents(string: url), let items = components.queryItems, !items.isEmpty {
            let rows = items.map { KeyValueRow(enabled: !Self.isHidden($0.value ?? ""), $0.name, $0.value ?? "") }
            // Rows only when they send the query as it went out (found by a new user's trial:
            // `?q=\{{v}}` came back `%5C%7B%7Bv%7D%7D`), or a value the record hid must go off.
            // The query as the URL's text has it: URLComponents may have escaped it already.
            let written = url.firstIndex(of: "?").map { String(url[url.index(after: $0)...].prefix { $0 != "#" }) }
            let encoded = Parameters(items.map { JSONMember($0.name, .string($0.value ?? "")) }).percentEncoded
            if encoded == written || rows.contains(where: { !$0.enabled }) {
                params = rows
                url = String(url.prefix { $0 != "?" })
            }
        }
        let body = original?.body
        let type = body?.contentType?.lowercased() ?? ""
        // A form only when its text reads back as the same fields, as a workspace entry's is: the
        // editor sends a form's fields, encoded anew.
        let isForm = type.contains("x-www-form-urlencoded") && body.map { FormText.isForm($0.text ?? "") } == true
        let bodyMode: BodyMode = body == nil ? .none : MIMEType.isJSON(type) ? .json : isForm ? .form : .raw
        // What the agent adds on its own stays automatic: re-sending adds it afresh (a changed body
        // gets its own Content-Type), instead of freezing it into the draft.
        let skipped = Set(["content-length", "host"] + (original?.automaticHeaders ?? []).map { $0.lowercased() })
        var headers = (original?.headers ?? []).filter { !skipped.contains($0.name.lowercased()) }
            .map { KeyValueRow(enabled: !Self.isHidden($0.value), $0.name, $0.value) }
        // A type other than the mode's own stays, as a row, though the agent added it (a form
        // that is edited as text: it is sent with the form's type, as it went out). Not a
        // multipart one, whose boundary the editor's parts do not keep.
        if let recordedType = body?.contentType, recordedType.lowercased() != bodyMode.contentType.lowercased(),
           !recordedType.lowercased().hasPrefix("multipart/"), !headers.contains(where: { $0.name.lowercased() == "content-type" }) {
            headers.append(KeyValueRow("Content-Type", recordedType))
        }
        self.init(
            name: message.name ?? "re-sent #\(message.requestID)", method: original?.method ?? "GET", url: url, params: params,
            headers: headers,
            bodyMode: bodyMode, body: body?.text ?? "",
            timeoutSeconds: Double(original?.timeoutMilliseconds ?? 15_000) / 1000,
            followRedirects: !Self.stayedAtRedirect(message)
        )
        // What went out is literal: a `{{…}}` in it (sent as typed, or captured from a server)
        // is sent again as it was, never read as a variable or a secret's name.
        escapeTemplates()
    }

    /// Whether `message` ended at a redirect it did not follow: a record keeps no redirect
    /// setting, but an answer of 301, 302, 303, 307 or 308 with a `Location`, and no error but
    /// its status, is one that following would have gone on from.
    static func stayedAtRedirect(_ message: DebugMessage) -> Bool {
        guard let response = message.response, [301, 302, 303, 307, 308].contains(response.statusCode),
              message.error == nil || message.error?.kind == .unacceptableStatus else { return false }
        return response.headers.contains { $0.name.lowercased() == "location" }
    }

    /// What the record of `message` hid and what re-sending it does about each, for the status
    /// line; nil when it hid nothing.
    /// Read from the draft re-sending makes (`init(_:)`), so it names exactly what that did.
    public static func hiddenSummary(of message: DebugMessage) -> String? {
        guard let original = message.original else { return nil }
        let draft = RequestDraft(message)
        var parts: [String] = []
        let rows = (draft.headers + draft.params).filter { !$0.enabled && isHidden($0.value) }.map(\.name)
        if !rows.isEmpty { parts.append(rows.joined(separator: ", ") + " (switched off)") }
        if original.url.contains(hiddenPassword) { parts.append("the URL's password (dropped)") }
        if isHidden(draft.url) { parts.append("part of the URL (holds \(RedactionPolicy.marker))") }
        if isHidden(draft.body) { parts.append("part of the body (holds \(RedactionPolicy.marker))") }
        return parts.isEmpty ? nil : "the record hid " + parts.joined(separator: ", ") + ": fill in before sending"
    }

    /// The switched-on header and query rows whose value still holds `[REDACTED]` from a
    /// record: sending them would send the marker as a credential.
    public var rowsHoldingHiddenValues: [String] {
        (headers + params).filter { $0.enabled && Self.isHidden($0.value) }.map(\.name)
    }

    private static let hiddenPassword = ":" + RedactionPolicy.marker + "@"

    private static func isHidden(_ value: String) -> Bool {
        value.contains(RedactionPolicy.marker)
    }

    /// The request to send, with `{{name}}` filled from `variables` as a chain's run fills a
    /// step (outside a JSON body's strings, only one JSON value).
    public func makeRequest(variables: ChainVariables, defaultContentType: String? = nil) throws(RequestError) -> Request {
        try makeRequest(defaultContentType: defaultContentType,
                        expanding: { text throws(RequestError) in try variables.expand(text) },
                        outsideJSONStrings: { text throws(RequestError) in try variables.expand(outsideJSONStrings: text) })
    }

    /// The request to send, every text field passed through `expand`. A relative URL is left
    /// for the agent to join to its base URL.
    /// `bodyIsText`: the entry the draft saves to writes its body as text (`body:`), where
    /// templates are filled in as they stand, not as `json:` members or `form:` fields; the
    /// editor then sends it as the file does.
    /// `defaultContentType`: the config's default `Content-Type` header, on the wire when the
    /// draft has none (a text body under it is filled in as JSON).
    /// `outsideJSONStrings`: fills a JSON body's text outside its strings, where a value that
    /// came from a server (a chain's capture) must be one JSON value
    /// (`ChainVariables.standingOutsideJSONString`).
    public func makeRequest(bodyIsText: Bool = false, defaultContentType: String? = nil,
                            expanding expand: (String) throws(RequestError) -> String,
                            outsideJSONStrings: (String) throws(RequestError) -> String) throws(RequestError) -> Request {
        try build(expanding: expand, outsideJSONStrings: outsideJSONStrings, forSaving: false, bodyIsText: bodyIsText,
                  defaultContentType: defaultContentType).request
    }

    /// The draft as a workspace entry keeps it: templates as typed, switched-off rows left out,
    /// the query apart (it goes under `query:` whatever the method), and only what differs from
    /// the defaults. Literal basic-auth credentials become the header they send, so the
    /// workspace writer moves them to the secrets file.
    /// A body that does not read (a multipart line that is not a part) is refused.
    /// `bodyIsText`: the entry writes its body as text, and a form body stays text.
    public func writtenRequest(bodyIsText: Bool = false) throws(RequestError) -> (request: Request, query: Parameters) {
        try build(expanding: { $0 }, outsideJSONStrings: { $0 }, forSaving: true, bodyIsText: bodyIsText)
    }

    /// `base` (a stored request, or a chain step, with every field the editor does not show)
    /// with the fields the editor owns as this draft has them; `edited` is the draft made into a
    /// request. The one rule for what the editor overrides, for workspace entries and chain steps.
    func applying(_ edited: Request, onto base: Request) -> Request {
        var request = base
        request.name = edited.name
        request.method = edited.method
        request.customURL = edited.customURL
        request.path = edited.path
        request.headers = edited.headers
        request.params = edited.params
        // A multipart or file body the editor cannot show stays unless the editor has a body.
        if bodyMode != .none || base.form == nil && base.uploadFile == nil {
            request.requestSerializer = edited.requestSerializer
            request.rawContentTypeIsFallback = edited.rawContentTypeIsFallback
            request.form = edited.form
            request.uploadFile = nil
        }
        if request.baseURL == nil { request.baseURL = edited.baseURL }
        if hasOwnTimeout { request.timeout = edited.timeout }
        // Redirects follow the stored request (or the config) unless the editor turned them off.
        if !followRedirects { request.followRedirects = false }
        return request
    }

    /// A JSON body with its templates filled in as the workspace fills it: as a `json:` entry's
    /// members (`asMembers`, and `WorkspaceWriter.jsonMembers` takes it), each string's value as a
    /// whole, so a value with a quote or a backslash stays one string. A body saved as text (not
    /// JSON until filled in, `{"n": {{n}}}`; numbers a `json:` entry cannot hold; an entry written
    /// as `body:`) keeps its layout, its strings still filled in whole and the rest where the
    /// template stands (`JSONTemplateFill`, as a `body:` entry under a JSON type is); under
    /// another type it is filled in as text. One without templates is sent as typed.
    /// `isJSON`: the body is JSON by its own type or the `Content-Type` header's (either).
    /// `outsideJSONStrings` fills the text outside the strings.
    static func expandingJSON(_ body: String, contentType: String, isJSON: Bool, asMembers: Bool = true,
                              _ expand: (String) throws(RequestError) -> String,
                              outsideJSONStrings: (String) throws(RequestError) -> String) throws(RequestError) -> String {
        guard body.contains("{{") else { return try expand(body) }
        if asMembers, let json = WorkspaceWriter.jsonMembers(of: Data(body.utf8), contentType: contentType) {
            let filled = try json.mappingStrings(expand)
            try ChainVariables.refuseRepeatedNames(in: filled)
            return filled.serialized()
        }
        guard isJSON else { return try expand(body) }
        return try JSONTemplateFill.fill(body, string: expand, elsewhere: outsideJSONStrings, repeatedName: ChainVariables.repeatedNameError)
    }

    /// The one way a draft becomes a request, to send (`expand` fills templates in; the query
    /// goes into the URL) or to save (templates kept; the query apart; defaults left out).
    private func build(expanding expand: (String) throws(RequestError) -> String,
                       outsideJSONStrings: (String) throws(RequestError) -> String, forSaving: Bool,
                       bodyIsText: Bool = false, defaultContentType: String? = nil) throws(RequestError) -> (request: Request, query: Parameters) {
        var members: [JSONMember] = []
        for row in params where row.enabled && !row.name.isEmpty {
            // Names are filled in too, as a workspace's `query:` fills them.
            members.append(JSONMember(try expand(row.name), .string(try expand(row.value))))
        }
        let query = Parameters(members)
        // Without a scheme it is plain HTTP, as `curlew send` and curl read it.
        var url = URLText.typed(try expand(url.trimmingCharacters(in: .whitespaces)), besideBase: true)
        if !forSaving, !query.isEmpty { url += (url.contains("?") ? "&" : "?") + query.percentEncoded }
        var headers = try enabledHeaders(expand)
        switch auth {
        case .none: break
        case .basic(let user, let password) where forSaving:
            // Saved as a template only when one of them holds one; escaped braces are text.
            if let literalUser = Template.textWithoutTemplates(in: user), let literalPassword = Template.textWithoutTemplates(in: password) {
                headers.set("Authorization", HTTPHeaders.basicAuthorization("\(literalUser):\(literalPassword)"))
            } else {
                headers.set("Authorization", "Basic {{$base64 \(user):\(password)}}")
            }
        case .basic(let user, let password):
            headers.set("Authorization", HTTPHeaders.basicAuthorization("\(try expand(user)):\(try expand(password))"))
        case .bearer(let token):
            headers.set("Authorization", "Bearer " + (try expand(token)))
        }
        let method = HTTPMethod(rawValue: method.uppercased())
        var request = URLText.startsWithScheme(url) ? Request.url(url, method: method, headers: headers) : Request(method, url, headers: headers)
        if forSaving {
            if hasOwnTimeout { request.timeout = .milliseconds(Int64(timeoutSeconds * 1000)) }
            if !followRedirects { request.followRedirects = false }
        } else {
            request.name = name
            request.responseSerializer = .data
            // Without a timeout of its own the request has the config's.
            if hasOwnTimeout { request.timeout = .milliseconds(Int64(timeoutSeconds * 1000)) }
            request.followRedirects = followRedirects
        }
        let contentType = headers["Content-Type"] ?? bodyMode.contentType
        // A mode's text or JSON type is a guess, which a config default overrides, as the saved
        // entry reads it.
        request.rawContentTypeIsFallback = GuessedBodyType.isGuess(contentType)
        switch bodyMode {
        case .none: break
        case .multipart:
            do {
                request.form = try MultipartText.form(body) { text throws(RequestError) in try expand(text) }
            } catch let error as RequestError {
                throw error
            } catch {
                throw RequestError(.invalidBody, "multipart body: \(error)")
            }
        case .raw:
            // Text, unless a header types it JSON: then its strings are filled in whole, as the file does.
            let isJSON = Self.fillsBodyAsJSON(.raw, contentType: contentType, overriding: request.contentTypeOverridingRawBody(configDefault: defaultContentType))
            let filled = forSaving ? try expand(body) : try Self.expandingJSON(body, contentType: contentType, isJSON: isJSON,
                                                                                asMembers: false, expand, outsideJSONStrings: outsideJSONStrings)
            request.requestSerializer = .raw(Data(filled.utf8), contentType: contentType)
        case .json:
            // Saved as typed; sent as the file will fill it in.
            let filled = forSaving ? try expand(body) : try Self.expandingJSON(body, contentType: contentType,
                                                                                isJSON: Self.fillsBodyAsJSON(.json, contentType: contentType, overriding: nil), asMembers: !bodyIsText,
                                                                                expand, outsideJSONStrings: outsideJSONStrings)
            request.requestSerializer = .raw(Data(filled.utf8), contentType: contentType)
        case .form where bodyIsText:
            // An entry written as text is filled in as text, as `curlew run` fills it, and saved as text.
            request.requestSerializer = .raw(Data(try expand(body).utf8), contentType: contentType)
        case .form:
            // Fields are decoded, then filled in one by one, so a value with & or = stays one value.
            var fields: [JSONMember] = []
            for field in FormText.fields(of: body) { fields.append(JSONMember(try expand(field.name), .string(try expand(field.value)))) }
            request.params = Parameters(fields)
            request.requestSerializer = .urlEncodedForm
        }
        return (request, query)
    }

    /// Refuses an empty URL before sending, as `curlew send` does: it is not meant as the base
    /// URL's root.
    func checkURLGiven() throws(RequestError) {
        guard url.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return }
        throw RequestError(.invalidURL, "the URL is empty: give one (http://host/path), or a path for the base URL (/users)")
    }

    /// Refuses to send what still holds `[REDACTED]` from a record: a switched-on header or query
    /// row (the marker would go out as a credential), or the URL (a path the record hid a
    /// repeated password in, which the server would only refuse). Every sending path checks it.
    func checkNothingHidden() throws(RequestError) {
        let stillHidden = rowsHoldingHiddenValues
        guard stillHidden.isEmpty else {
            throw RequestError(.unresolvedVariable, "\(stillHidden.joined(separator: ", ")) still \(stillHidden.count == 1 ? "holds" : "hold") \(RedactionPolicy.marker) from the record; fill in the value or switch the row off")
        }
        if Self.isHidden(url) {
            throw RequestError(.unresolvedVariable, "the URL still holds \(RedactionPolicy.marker) from the record; fill in the value (write %5BREDACTED%5D to send the text itself)")
        }
    }
}
