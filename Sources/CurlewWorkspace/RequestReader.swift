import CurlewAgent
import CurlewSessions
import Foundation

/// Reads one entry of `requests:` into the agent's `Request`, and its `expect:` list. The same
/// code checks a workspace when it loads (no templates expanded) and builds the request to send.
enum RequestReader {
    static let keys = ["method", "url", "baseURL", "query", "headers", "json", "form", "body", "contentType", "multipart", "bodyFile",
                       "timeout", "followRedirects", "allowInsecureRedirects", "httpVersion", "tls", "cache", "retry", "mock", "duplicates",
                       "download", "cookies", "acceptableStatus", "reachabilityPrecheck", "response", "useCDN", "defaultParams",
                       "requireJSON", "businessCode", "signer", "folder", "description", "expect"]

    /// The fields that do not become part of the request.
    struct Annotations: Sendable {
        var folder: String?
        var description: String?
        var expectations: [Expectation] = []
        /// The URL with a chain's captured names as written (`ReadContext.capturesAsWritten`),
        /// typed as the request's is: where the request goes as written.
        var urlAsWritten = ""
    }

    /// `expectations`, when given, are the entry's `expect:` as read when the workspace was
    /// loaded (they hold no templates), so they are not read again.
    static func read(_ node: NodeReader, name: String, _ context: ReadContext, expectations known: [Expectation]? = nil) throws(WorkspaceError) -> (Request, Annotations) {
        var map = try node.mapping()
        var request = Request(.get, "", name: name)
        var annotations = Annotations()
        annotations.folder = try map.take("folder")?.string()
        annotations.description = try map.take("description")?.scalarText()

        let urlNode = try map.require("url", "a URL or a path such as /users")
        var url = try urlNode.text(context)
        // Whether it is a full URL or a path joined to the base is read as written: a server's
        // value (`//elsewhere/x`) does not turn a path into another host.
        annotations.urlAsWritten = URLText.typed(try urlNode.text(context.capturesAsWritten), besideBase: true)
        let isFullURL = URLText.startsWithScheme(annotations.urlAsWritten)
        let queryNode = map.take("query")
        // A server's answer does not choose the host a request goes to (its credentials with it).
        if let value = map.take("baseURL") { request.baseURL = try value.text(context.refusingCaptures) }
        if let value = map.take("headers") {
            request.headers = HTTPHeaders(try value.textPairs(context).map { HeaderField(name: $0.name, value: $0.value) })
        }

        let bodyKeys = ["json", "form", "body", "multipart", "bodyFile"].filter { map.keys.contains($0) }
        guard bodyKeys.count <= 1 else {
            throw WorkspaceError(.invalid, at: map.positionOf(bodyKeys[1]), keyPath: node.keyPath,
                                 "a request has one body: \(bodyKeys.joined(separator: " and ")) cannot both be set")
        }
        // A field a server's answer must not choose refuses a captured name.
        let contentType = try map.take("contentType")?.text(context.refusingCaptures)
        if let value = map.take("json") {
            let json = try value.templatedJSON(context, refusesInexactNumbers: true)
            request.requestSerializer = .raw(Data(json.serialized().utf8), contentType: contentType ?? GuessedBodyType.json)
            request.rawContentTypeIsFallback = GuessedBodyType.isGuess(contentType)
        } else if let value = map.take("form") {
            request.params = try ConfigReader.parameters(value, context, asText: true)
            request.requestSerializer = .urlEncodedForm
        } else if let value = map.take("body") {
            let type = contentType ?? GuessedBodyType.text
            request.rawContentTypeIsFallback = GuessedBodyType.isGuess(contentType)
            // Under a JSON type a string's templates are filled in whole, as a `json:` entry's are.
            let isJSON = MIMEType.isJSON(body: type, header: request.contentTypeOverridingRawBody(configDefault: context.defaultContentType))
            request.requestSerializer = .raw(Data((isJSON ? try value.jsonText(context) : try value.text(context)).utf8), contentType: type)
        } else if let value = map.take("multipart") {
            request.form = try multipart(value, context)
        } else if let value = map.take("bodyFile") {
            request.uploadFile = try value.filePath(context)
            if let contentType { request.headers.set("Content-Type", contentType) }
        }
        // The query becomes the request's parameters where the agent puts those in the URL (GET,
        // HEAD, DELETE, or beside a raw body); otherwise it is written into the URL itself.
        let method = try map.take("method").map { value throws(WorkspaceError) in
            let text = try value.text(context.refusingCaptures)
            let method = HTTPMethod(rawValue: text.uppercased())
            do { try method.validate() } catch { throw value.error("\"\(text)\" is not an HTTP method") }
            return method
        } ?? (bodyKeys.isEmpty ? .get : .post)
        request.method = method
        // The agent sends params in the URL only for GET, HEAD and DELETE and for raw bodies.
        // A GET's `form:` already fills the parameters; the query then goes in the URL beside them,
        // percent-encoded.
        let paramsGoToURL = method.encodesParametersInQuery || bodyKeys.contains { ["json", "body"].contains($0) }
        let queryInURL = !paramsGoToURL || !request.params.isEmpty
        let query = try queryNode.map { value throws(WorkspaceError) in
            try ConfigReader.parameters(value, context, asText: true)
        }
        if let query, !query.isEmpty {
            if queryInURL {
                url += (url.contains("?") ? "&" : "?") + query.percentEncoded
            } else {
                request.params = query
            }
        }
        // Read as the interface reads it: `localhost:8080/x` is a URL, `users/1` a path.
        if isFullURL { request.customURL = URLText.typed(url, besideBase: true) } else { request.path = url }
        if let value = map.take("timeout") { request.timeout = try ConfigReader.positive(value.duration(), value) }
        if let value = map.take("followRedirects") { request.followRedirects = try value.bool() }
        if let value = map.take("allowInsecureRedirects") { request.allowInsecureRedirects = try value.bool() }
        if let value = map.take("httpVersion") { request.httpVersion = try ConfigReader.httpVersion(value) }
        if let value = map.take("tls") { request.tls = try ConfigReader.tlsOverrides(value, context.refusingCaptures) }
        if let value = map.take("cache") { request.cache = try cacheOptions(value) }
        if let value = map.take("retry") { request.retry = try ConfigReader.retry(value) }
        if let value = map.take("mock") {
            var mockMap = try value.mapping()
            request.mock = try ConfigReader.mockAction(&mockMap, value, context)
            try mockMap.finish(known: WorkspaceKeys.mockAction)
        }
        if let value = map.take("duplicates") { request.duplicatePolicy = try ConfigReader.duplicatePolicy(value) }
        if let value = map.take("download") { request.download = Download(to: try value.filePath(context)) }
        if let value = map.take("cookies") { request.usesCookies = try value.bool() }
        if let value = map.take("acceptableStatus") { request.acceptableStatusCodes = try ConfigReader.statusRange(value) }
        if let value = map.take("reachabilityPrecheck") { request.reachabilityPrecheck = try value.bool() }
        if let value = map.take("response") {
            request.responseSerializer = try value.oneOf([("automatic", .automatic), ("data", .data), ("text", .text), ("json", .json)])
        }
        if let value = map.take("useCDN") { request.useCDN = try value.bool() }
        if let value = map.take("defaultParams") { request.usesDefaultParams = try value.bool() }
        if let value = map.take("requireJSON") { request.validation.requiresJSONContentType = try value.bool() }
        if let value = map.take("businessCode") { request.validation.business = try ConfigReader.businessCode(value) }
        if let value = map.take("signer") { request.signer = try value.string() }
        if let value = map.take("expect") {
            if let known { annotations.expectations = known } else { annotations.expectations = try expectations(value) }
            // A status assertion decides; the agent's own status check would fail the request first.
            if annotations.expectations.contains(where: { if case .status = $0 { true } else { false } }), request.acceptableStatusCodes == nil {
                request.acceptableStatusCodes = 100..<600
            }
        }
        try map.finish(known: keys)
        return (request, annotations)
    }

    static func multipart(_ node: NodeReader, _ context: ReadContext) throws(WorkspaceError) -> MultipartForm {
        var form = MultipartForm()
        for partNode in try node.list() {
            var part = try partNode.mapping()
            let name = try part.require("name", "the part's field name").text(context)
            let filename = try part.take("filename")?.text(context)
            let mimeType = try part.take("type")?.text(context)
            let headers = HTTPHeaders(try part.take("headers")?.textPairs(context).map { HeaderField(name: $0.name, value: $0.value) } ?? [])
            let value = part.take("value")
            let file = part.take("file")
            switch (value, file) {
            case (let value?, nil):
                form.append(name: name, data: Data(try value.text(context).utf8), filename: filename, mimeType: mimeType, headers: headers)
            case (nil, let file?):
                form.append(name: name, fileAt: try file.filePath(context), filename: filename, mimeType: mimeType, headers: headers)
            default:
                throw partNode.error("a part has either value or file")
            }
            try part.finish(known: WorkspaceKeys.multipartPart)
        }
        return form
    }

    static func cacheOptions(_ node: NodeReader) throws(WorkspaceError) -> CacheOptions {
        var map = try node.mapping()
        var options = CacheOptions()
        if let value = map.take("policy") { options.policy = try ConfigReader.cachePolicy(value) }
        if let value = map.take("ttl") { options.timeToLive = try value.duration() }
        if let value = map.take("version") { options.version = try value.string() }
        if let value = map.take("ignore") { options.ignoreCache = try value.bool() }
        try map.finish(known: WorkspaceKeys.requestCache)
        return options
    }

    static let expectKeys = ["status", "headers", "json", "bodyContains", "maxDuration", "shape"]

    static func expectations(_ node: NodeReader) throws(WorkspaceError) -> [Expectation] {
        var map = try node.mapping()
        var expectations: [Expectation] = []
        if let value = map.take("status") {
            var ranges: [Range<Int>] = []
            for status in try value.listOrOne() { ranges.append(try ConfigReader.statusRange(status)) }
            expectations.append(.status(ranges))
        }
        if let value = map.take("headers") {
            var headers = try value.mapping()
            for name in headers.keys {
                expectations.append(.header(name, try match(headers.entry(name), allowsJSON: false)))
            }
        }
        if let value = map.take("json") {
            var paths = try value.mapping()
            for text in paths.keys {
                let entry = paths.entry(text)
                let path: JSONPath
                do { path = try JSONPath(text) } catch { throw entry.error(error.message) }
                expectations.append(.json(path, try match(entry, allowsJSON: true)))
            }
        }
        if let value = map.take("bodyContains") {
            for text in try value.listOrOne() {
                let written = try text.scalarText()
                try checkTemplates(in: written, text)
                expectations.append(.bodyContains(written))
            }
        }
        if let value = map.take("maxDuration") { expectations.append(.maxDuration(try value.duration())) }
        if let value = map.take("shape") { expectations.append(.shape(try shape(value))) }
        try map.finish(known: expectKeys)
        return expectations
    }

    /// `{exists: true}`, `{equals: value}`, `{matches: regex}`, or a bare value meaning equals.
    /// Refuses an assertion's text whose templates could never be filled (a `{{` never closed,
    /// an unknown built-in), as a request's fields are refused, rather than failing each run.
    static func checkTemplates(in text: String, _ node: NodeReader) throws(WorkspaceError) {
        do throws(Template.Failure) { _ = try Template().expandingVariablesOnly(text) } catch { throw node.error("\(error)") }
    }

    static func match(_ node: NodeReader, allowsJSON: Bool) throws(WorkspaceError) -> Expectation.Match {
        guard case .mapping = node.node else {
            let value = allowsJSON ? try node.json() : .string(try node.scalarText())
            try checkTemplates(in: value.serialized(), node)
            return .equals(value)
        }
        var map = try node.mapping()
        let keys = map.keys
        guard keys.count == 1 else { throw node.error("expected one of exists, equals or matches") }
        let match: Expectation.Match
        if let value = map.take("exists") {
            match = .exists(try value.bool())
        } else if let value = map.take("equals") {
            let equals: JSONValue = allowsJSON ? try value.json() : .string(try value.scalarText())
            try checkTemplates(in: equals.serialized(), value)
            match = .equals(equals)
        } else if let value = map.take("matches") {
            let pattern = try value.string()
            // Its templates are filled in as literal text when it is checked.
            guard let written = Template.replacingExpressions(in: pattern, with: "x") else {
                throw value.error("\(pattern.debugDescription): \(Template.Failure.unclosed)")
            }
            do { _ = try TextPattern(written) } catch { throw value.error("not a regular expression (ICU syntax): \(pattern.debugDescription)") }
            match = .matches(pattern)
        } else {
            try map.finish(known: WorkspaceKeys.match)
            throw node.error("expected one of exists, equals or matches")
        }
        try map.finish(known: WorkspaceKeys.match)
        return match
    }

    /// A JSON shape: a type name (`string`, `number`, `integer`, `bool`, `null`, `any`, with `?`
    /// for optional), a mapping of members, or a list of one element shape.
    static func shape(_ node: NodeReader) throws(WorkspaceError) -> JSONShape {
        switch node.node {
        case .scalar:
            var name = try node.string()
            let optional = name.hasSuffix("?")
            if optional { name.removeLast() }
            let base: JSONShape = try NodeReader(.scalar(name, isPlain: false, node.node.position), keyPath: node.keyPath).oneOf([
                ("string", .string), ("number", .number), ("integer", .integer), ("bool", .bool), ("null", .null), ("any", .any),
            ])
            return optional ? .optional(base) : base
        case .sequence:
            let elements = try node.list()
            guard elements.count == 1 else { throw node.error("a list shape has exactly one element shape") }
            return .array(try shape(elements[0]))
        case .mapping:
            var map = try node.mapping()
            var members: [String: JSONShape] = [:]
            for key in map.keys { members[key] = try shape(map.entry(key)) }
            return .object(members)
        }
    }
}
