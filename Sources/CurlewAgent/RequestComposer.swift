import CurlewTransport
import Foundation

/// Turns a `Request` and the config into what goes on the wire, refusing what cannot be sent
/// (malformed URL, header injection) before the network is touched.
struct RequestComposer: Sendable {
    let config: NetworkConfig
    /// The config's TLS settings as the transport applies them, worked out once when they name no
    /// file (a file is checked again for every request, since it may change or vanish).
    private let configSecurity: Result<TLSOptions, RequestError>?
    /// The config's default headers with its User-Agent, as a request without headers of its own sends them.
    private let baseHeaders: HTTPHeaders
    /// `baseHeaders` checked once: most requests send them as they are.
    private let baseHeadersCheck: Result<Void, RequestError>
    /// `baseHeaders` as the transport takes them, and their names (all of them automatic for a
    /// request without headers of its own), made once.
    private let baseTransferHeaders: [(name: String, value: String)]
    private let baseHeaderNames: [String]
    /// The bytes `baseHeaders` take in a request head.
    private let baseHeaderBytes: Int
    /// The config's timeout in whole milliseconds, for requests without their own.
    private let configTimeoutMilliseconds: Int64
    /// Headers a redirect to another origin drops.
    private let originBoundHeaderNames: [String]
    /// Whether the config's default headers hold an `Authorization` field, whose credentials
    /// what is shown of a request hides.
    private let defaultsCarryAuthorization: Bool

    init(config: NetworkConfig) {
        self.config = config
        configSecurity = config.tls.namesNoFile ? Result { () throws(RequestError) in try Self.transportSecurity(config.tls) } : nil
        baseHeaders = Self.addingUserAgent(to: config.defaultHeaders, config: config)
        baseHeadersCheck = Result { [baseHeaders] () throws(RequestError) in try baseHeaders.validate() }
        baseTransferHeaders = baseHeaders.fields.map { ($0.name, $0.value) }
        baseHeaderNames = baseHeaders.fields.map(\.name)
        baseHeaderBytes = RequestHeadLimit.size(of: baseHeaders.fields)
        configTimeoutMilliseconds = config.requestTimeout.wholeMilliseconds
        originBoundHeaderNames = TransferRequest.credentialHeaderNames + config.secretHeaderNames
        defaultsCarryAuthorization = config.defaultHeaders.fields.contains { RedactionPolicy.isAuthorization($0.name) }
    }

    /// `text` (a URL, or a message quoting one) with its URL passwords hidden, and the
    /// credentials of the `Authorization` fields `request` sends, its own and the config's
    /// default ones, wherever it repeats them (`RedactionPolicy.hidingPasswords`): what a row
    /// and a refusal show of a request. Without such a field (nearly always) the headers are
    /// not joined.
    func hidingPasswords(in text: String, of request: Request) -> String {
        let own = request.headers.fields
        guard defaultsCarryAuthorization || own.contains(where: { RedactionPolicy.isAuthorization($0.name) }) else {
            return URLPassword.masking(in: text)
        }
        return request.hidingPasswords(in: text, sendingAlso: config.defaultHeaders.fields)
    }

    /// `preview` composes without touching the disk: a download's partial file is left alone.
    func compose(_ request: Request, preview: Bool = false) throws(RequestError) -> (transfer: TransferRequest, composed: ComposedRequest) {
        let (transfer, description) = try composition(of: request, preview: preview, describing: true)
        return (transfer, description!.described(request, transfer: transfer))
    }

    /// What goes on the wire, with what describing it takes when `describing`: a request nobody
    /// reads the description of (no observer, no `debug` callback) is sent without building it.
    /// A refusal hides the credentials the request's `Authorization` fields carry, as a row
    /// does (`RedactionPolicy.hidingPasswords`): it quotes the URL, which may repeat them.
    func composition(of request: Request, preview: Bool = false, describing: Bool) throws(RequestError) -> (transfer: TransferRequest, description: Description?) {
        do {
            return try composing(request, preview: preview, describing: describing)
        } catch {
            var refusal = error
            refusal.message = hidingPasswords(in: error.message, of: request)
            throw refusal
        }
    }

    private func composing(_ request: Request, preview: Bool, describing: Bool) throws(RequestError) -> (transfer: TransferRequest, description: Description?) {
        try request.method.validate()
        let params = request.usesDefaultParams ? request.params.merged(over: config.defaultParams) : request.params
        // The request's own fields win; a User-Agent of the config's goes last, as ever.
        var headers = request.headers.isEmpty
            ? baseHeaders : Self.addingUserAgent(to: request.headers.merged(over: config.defaultHeaders), config: config)

        var queryParams = Parameters()
        var body: Data?
        var upload: UploadSource?
        var record: TransferRecord?
        if let form = request.form {
            // The params become the first text parts, as HLNetworking's formData does.
            var parts = try params.formFields.map { field throws(RequestError) in
                try MultipartForm.Part(name: field.name, content: .data(Data(field.value.utf8))).transferPart()
            }
            parts += try form.parts.map { part throws(RequestError) in try part.transferPart() }
            upload = .multipart(parts)
            // A multipart body's type carries its boundary, which libcurl writes: a config default
            // type in its place would leave the server unable to read the parts. The request's
            // own type (`multipart/mixed`) stays, and libcurl adds the boundary to it.
            // Removed only when there: a removal makes the config's shared header list a copy.
            if request.headers["Content-Type"] == nil, headers["Content-Type"] != nil { headers.remove("Content-Type") }
            record = TransferRecord(formParts: parts.map { Self.summary(of: $0, limit: config.debugBodyLimit) })
        } else if let path = request.uploadFile {
            try LocalFile.checkReadable(path, purpose: "upload")
            queryParams = params
            upload = .file(path: path)
            if headers["Content-Type"] == nil { headers.set("Content-Type", MIMEType.guess(forPath: path)) }
            record = TransferRecord(uploadFile: path, uploadBytes: LocalFile.size(path))
        } else {
            switch request.requestSerializer {
        case .raw(let data, let contentType):
            queryParams = params
            body = data
            // `headers` holds the request's own Content-Type, else the config's default one.
            if request.contentTypeOverridingRawBody(configDefault: headers["Content-Type"]) == nil {
                headers.set("Content-Type", contentType)
            }
        case .urlEncodedForm where request.method.encodesParametersInQuery,
             .json where request.method.encodesParametersInQuery:
            queryParams = params
        case .urlEncodedForm where params.isEmpty, .json where params.isEmpty:
            // No parameters, no body: and no Content-Type the user did not set.
            break
        case .urlEncodedForm:
            body = Data(params.percentEncoded.utf8)
            if headers["Content-Type"] == nil { headers.set("Content-Type", "application/x-www-form-urlencoded") }
        case .json:
            body = Data(params.jsonObject.serialized().utf8)
            if headers["Content-Type"] == nil { headers.set("Content-Type", "application/json") }
        }
        }

        let url = try composeURL(request, query: queryParams)
        var download: DownloadTarget?
        if let asked = request.download {
            guard request.method != .head else {
                throw RequestError(.invalidMethod, "a download needs a response body, and the answer to HEAD has none")
            }
            try LocalFile.checkWritableDestination(asked.destination)
            var target = DownloadTarget(path: asked.destination, resumable: asked.resumable)
            target.writesDirectly = LocalFile.isCharacterDevice(asked.destination)
            if target.writesDirectly {
                target.resumable = false
            } else if asked.resumable, headers["Range"] == nil, let point = target.resumePoint(for: url) {
                target.resumeFrom = point
                for header in point.headers { headers.set(header.name, header.value) }
            } else if !preview, !asked.resumable || headers["Range"] != nil {
                target.discardPartial()
            }
            download = target
            record = record ?? TransferRecord()
            record?.downloadDestination = asked.destination
            record?.resumeRequestedFrom = target.resumeFrom?.offset
        }
        let sendsBaseHeaders = headers.sharesStorage(with: baseHeaders) || Self.sameBytes(headers, baseHeaders)
        if sendsBaseHeaders { try baseHeadersCheck.get() } else { try headers.validate() }
        try Self.checkHeadSize(method: request.method.rawValue, url: url,
                               fieldBytes: sendsBaseHeaders ? baseHeaderBytes : RequestHeadLimit.size(of: headers.fields))
        let security: TLSOptions
        if let tls = request.tls.map(config.tls.applying) {
            security = try Self.transportSecurity(tls)
        } else if let configSecurity {
            security = try configSecurity.get()
        } else {
            security = try Self.transportSecurity(config.tls)
        }
        return (TransferRequest(
            url: url,
            method: request.method.rawValue,
            headers: sendsBaseHeaders ? baseTransferHeaders : headers.fields.map { ($0.name, $0.value) },
            body: body,
            upload: upload,
            download: download,
            spillThreshold: config.memoryBodyLimit,
            spillDirectory: config.temporaryDirectory,
            usesCookies: usesCookies(request),
            streamsBody: request.streamsResponse,
            totalTimeout: request.timeout ?? config.requestTimeout,
            connectTimeout: config.connectTimeout,
            followRedirects: request.followRedirects ?? config.followRedirects,
            maxRedirects: config.maxRedirects,
            allowsInsecureRedirects: request.allowInsecureRedirects ?? config.allowInsecureRedirects,
            originBoundHeaderNames: originBoundHeaderNames,
            maxResponseBytes: config.maxResponseBytes,
            requestCaptureLimit: config.debugBodyLimit,
            tls: security,
            protocolPreference: request.httpVersion ?? config.httpVersion
        ), describing ? Description(headers: headers, sendsBaseHeaders: sendsBaseHeaders, params: params, record: record,
                                    configTimeoutMilliseconds: configTimeoutMilliseconds, baseHeaderNames: baseHeaderNames) : nil)
    }

    /// What a composed request's description (`ComposedRequest`) is made of, besides its transfer.
    struct Description {
        let headers: HTTPHeaders
        let sendsBaseHeaders: Bool
        let params: Parameters
        let record: TransferRecord?
        let configTimeoutMilliseconds: Int64
        let baseHeaderNames: [String]

        /// The request as composed, for debug messages and previews; `request` is the one composed
        /// into `transfer`.
        func described(_ request: Request, transfer: TransferRequest) -> ComposedRequest {
            ComposedRequest(
                method: transfer.method,
                url: URLPassword.masking(in: transfer.url),
                headers: headers.fields,
                params: params.jsonObject,
                body: transfer.body.map { BodySnapshot(data: $0, contentType: headers["Content-Type"], limit: transfer.requestCaptureLimit) },
                timeoutMilliseconds: request.timeout?.wholeMilliseconds ?? configTimeoutMilliseconds,
                automaticHeaders: request.headers.isEmpty && sendsBaseHeaders
                    ? baseHeaderNames : headers.fields.compactMap { field in request.headers[field.name] == nil ? field.name : nil },
                transfer: record
            )
        }
    }

    /// The security policy as the transport applies it: pins from certificate files computed,
    /// pinned certificates read, every file checked before anything is sent.
    static func transportSecurity(_ tls: TLSSettings) throws(RequestError) -> TLSOptions {
        var options = TLSOptions(
            verifyPeer: !tls.allowInvalidCertificates,
            verifyHost: tls.validatesDomainName && !tls.allowInvalidCertificates,
            caFile: tls.certificateAuthorityFile
        )
        for (purpose, path) in [("CA bundle", tls.certificateAuthorityFile), ("client certificate", tls.clientCertificate), ("client key", tls.clientKey)] {
            if let path { try LocalFile.checkReadable(path, purpose: purpose) }
        }
        options.clientCertificate = tls.clientCertificate
        options.clientKey = tls.clientKey
        switch tls.pinning {
        case .none:
            break
        case .publicKey(let pins):
            guard !pins.isEmpty else { throw RequestError(.invalidTLSSettings, "public-key pinning needs at least one pin") }
            options.pinnedPublicKey = try pins.map { pin throws(RequestError) in
                if PublicKeyPin.isPin(pin) { return pin }
                if ASCII.hasPrefixIgnoringCase(pin, "sha256//") {
                    throw RequestError(.invalidTLSSettings, "pin \(pin.debugDescription) is malformed: sha256// and the base64 of 32 bytes (44 characters, ending in =)")
                }
                try LocalFile.checkReadable(pin, purpose: "pinned certificate")
                guard let computed = PublicKeyPin.ofCertificate(at: pin) else {
                    throw RequestError(.invalidTLSSettings, "\(pin) is neither a sha256// pin nor a PEM or DER certificate")
                }
                return computed
            }.joined(separator: ";")
        case .certificate(let paths):
            guard !paths.isEmpty else { throw RequestError(.invalidTLSSettings, "certificate pinning needs at least one certificate") }
            guard !tls.allowInvalidCertificates else {
                throw RequestError(.invalidTLSSettings, "certificate pinning is a certificate check, which allowInvalidCertificates turns off; pin the public key instead")
            }
            var bundle = Data()
            for path in paths {
                try LocalFile.checkReadable(path, purpose: "pinned certificate")
                guard let size = LocalFile.size(path), size <= 1 << 20, let contents = FileManager.default.contents(atPath: path),
                      String(decoding: contents, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----") else {
                    throw RequestError(.invalidTLSSettings, "\(path) is not a PEM certificate")
                }
                bundle.append(contents)
                bundle.append(0x0A)
            }
            options.trustedCertificates = bundle
            options.caFile = nil
        }
        return options
    }

    /// A form part as the debug message shows it.
    private static func summary(of part: FormPart, limit: Int) -> TransferRecord.FormPartSummary {
        switch part.content {
        case .data(let data):
            let text = data.count <= limit && part.filename == nil ? String(data: data, encoding: .utf8) : nil
            return .init(name: part.name, filename: part.filename, contentType: part.contentType, size: Int64(data.count), value: text)
        case .file(let path):
            return .init(name: part.name, filename: part.filename, contentType: part.contentType, file: path, size: LocalFile.size(path) ?? 0)
        }
    }

    /// URL precedence as in HLNetworking: a full custom URL, then the request's base URL, then the
    /// config's (or its CDN URL). The API version goes between base and path as `v{version}`.
    /// Whether `request` keeps and sends cookies: its own say, else the config's.
    func usesCookies(_ request: Request) -> Bool {
        request.usesCookies ?? config.cookies.enabled
    }

    func composeURL(_ request: Request, query: Parameters) throws(RequestError) -> String {
        var url: String
        if let custom = request.customURL, URLText.startsWithScheme(custom) {
            url = custom
        } else if URLText.startsWithScheme(request.path) {
            url = request.path
        } else {
            let base = request.baseURL ?? (request.useCDN ? (config.cdnURL ?? config.baseURL) : config.baseURL)
            let path = request.customURL ?? request.path
            guard !base.isEmpty else {
                // A path may be a URL typed without its scheme (`/user:pw@host`): its password hidden.
                let shown = URLPassword.hiding(inMistyped: path) { $0 }
                let example = "http://localhost:8080" + (shown.hasPrefix("/") ? "" : "/") + shown
                throw RequestError(.invalidURL, path.isEmpty ? "no URL: give a full URL such as http://localhost:8080/get"
                    : "\(ClippedText.quoted(shown)) is a path and there is no base URL: give a full URL such as \(ClippedText.quoted(example)), or set a base URL")
            }
            url = Self.trimmingSlashes(base, leading: false)
            if let version = config.apiVersion, !version.isEmpty {
                url += "/v" + version
            }
            if !path.isEmpty {
                url += path.hasPrefix("?") ? path : "/" + Self.trimmingSlashes(path, leading: true)
            }
        }
        try Self.checkLength(of: url)
        if !Self.hasPlainHTTPShape(url) {
            try Self.validate(url)
            url = Self.percentEncodingNonASCII(url)
        }
        if !query.isEmpty {
            url = URLText.appendingQuery(query.percentEncoded, to: url)
            try Self.checkLength(of: url)
        }
        return url
    }

    /// A refusal's size of `count` bytes against what a request head can hold, and that limit:
    /// at one precision that tells them apart (`1.05 MiB` against `1.00 MiB`).
    private static func sizeAgainstLimit(_ count: Int) -> (size: String, limitText: String) {
        let (size, limits) = ByteCountText.apart(Int64(count), Int64(RequestHeadLimit.bytes), Int64(RequestHeadLimit.available))
        return (size, "libcurl sends a request head of at most \(limits[0]), which leaves \(limits[1]) for the method, the URL and the headers")
    }

    /// Refuses a URL that alone would not fit in a request head, before anything parses it. The
    /// refusal names the URL by its scheme and host alone: its path or query may hold a secret a
    /// variable filled in, which a quote cut short would show in part, where no redaction
    /// finds it (found by a new user's trial: the start of a password went to the log, HAR and
    /// JUnit report).
    private static func checkLength(of url: String) throws(RequestError) {
        let count = url.utf8.count
        guard count > RequestHeadLimit.available else { return }
        let origin = url[..<URLText.afterAuthority(url).startIndex]
        let (size, limitText) = sizeAgainstLimit(count)
        throw RequestError(.invalidURL, "the URL is \(size) (\(Self.quoted(String(origin), limit: 200))…); " + limitText)
    }

    /// Refuses a request whose method, URL and header fields together would not fit in a request
    /// head, as an error of the largest of the three.
    static func checkHeadSize(method: String, url: String, fieldBytes: Int) throws(RequestError) {
        let (methodBytes, urlBytes) = (method.utf8.count, url.utf8.count)
        let total = methodBytes + urlBytes + fieldBytes
        guard total > RequestHeadLimit.available else { return }
        let kind: RequestError.Kind = methodBytes > max(urlBytes, fieldBytes) ? .invalidMethod : fieldBytes > urlBytes ? .invalidHeader : .invalidURL
        let parts = (methodBytes > 1024 ? "the method \(ByteCountText.of(Int64(methodBytes))), " : "")
            + "the URL \(ByteCountText.of(Int64(urlBytes))), the headers \(ByteCountText.of(Int64(fieldBytes)))"
        let (size, limitText) = sizeAgainstLimit(total)
        throw RequestError(kind, "the request head would be \(size) (\(parts)); " + limitText)
    }

    /// A refused URL as its error quotes it, its first `limit` characters: its password hidden, read as the URL meant where it
    /// is mistyped, and what reads like one where no URL reads it (`https://\u{301}/u:pw@h`).
    private static func quoted(_ url: String, limit: Int = 200) -> String {
        ClippedText.quoted(shown(url), limit: limit)
    }

    /// `url` as a refusal shows it, unclipped: the text `checkCharacters` counts positions in.
    /// Its password and the values of secret parameters in its query and fragment (the default
    /// names) are hidden, as a log hides them by default, so a position counted here is where the
    /// character stands in what a report prints.
    private static func shown(_ url: String) -> String {
        URLPassword.hiding(inMistyped: url) { RequestKey.hidingSecretParameters(in: $0, alsoInFragment: true) { _ in URLPassword.marker } }
    }

    /// A space, tab or control character as a refusal names it.
    private static func unsentCharacter(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case " ": "a space"
        case "\t": "a tab"
        case "\n": "a line feed"
        case "\r": "a carriage return"
        default: "the control character U+" + hexDigits(scalar, count: 4)
        }
    }

    /// `%XX` for a byte below 0x80.
    private static func percentEncoded(_ scalar: Unicode.Scalar) -> String {
        "%" + hexDigits(scalar, count: 2)
    }

    private static func hexDigits(_ scalar: Unicode.Scalar, count: Int) -> String {
        let digits = String(scalar.value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, count - digits.count)) + digits
    }

    /// Refuses a space, tab or control character in `url`, naming it, where it is and how to
    /// write it: the check `URLText.checkCharacters` gives importers.
    static func checkCharacters(_ url: String) throws(RequestError) {
        // Found in the URL as the refusal shows it (a password masked), so the position counts
        // there; one in the password itself is said to be there.
        let shownText = shown(url)
        let shown = shownText.unicodeScalars
        if let index = shown.firstIndex(where: URLText.cannotHold) {
            let position = shown.distance(from: shown.startIndex, to: index) + 1
            let character = shown[index]
            let inHost = hostAndPort(of: shownText).map { $0.startIndex <= index && index < $0.endIndex } ?? false
            // Only such characters after it: a line end or spaces pasted with the URL. A host
            // cannot hold one even percent-encoded.
            let advice = shown[index...].allSatisfy(URLText.cannotHold) ? "a URL cannot hold it as it is: remove it (and what follows it)"
                : inHost ? "a host or port cannot hold it, even percent-encoded: remove it"
                : "a URL cannot hold it as it is: write it percent-encoded, as \(Self.percentEncoded(character))"
            // The reason and the advice first, the URL last: a status line cut short keeps them.
            throw RequestError(.invalidURL, "URL has \(Self.unsentCharacter(character)) at character \(position); " + advice + " (in \(Self.quoted(url)))")
        }
        // Hidden in the text shown: inside a secret parameter's value (the URL with only its
        // password hidden still has it), or else inside the password.
        let withoutPassword = URLPassword.hiding(inMistyped: url) { $0 }.unicodeScalars
        let (text, place) = withoutPassword.contains(where: URLText.cannotHold) ? (withoutPassword, "a secret parameter's value") : (url.unicodeScalars, "its password")
        if let index = text.firstIndex(where: URLText.cannotHold) {
            let character = text[index]
            let advice = text[index...].allSatisfy(URLText.cannotHold) ? "a URL cannot hold it as it is: remove it (and what follows it)"
                : "a URL cannot hold it as it is: write it percent-encoded, as \(Self.percentEncoded(character))"
            throw RequestError(.invalidURL, "URL has \(Self.unsentCharacter(character)) in \(place); " + advice + " (in \(Self.quoted(url)))")
        }
    }

    /// Refuses an IPv6 address never closed and a port that is not a number from 1 to 65535:
    /// the check `URLText.checkAddress` gives importers.
    static func checkAddress(_ url: String) throws(RequestError) {
        if hasUnclosedIPv6Bracket(url) {
            throw RequestError(.invalidURL, "URL \(Self.quoted(url)) opens an IPv6 address with [ and does not close it with ]")
        }
        if let port = portText(of: url), !port.isEmpty, !isPort(port) {
            // An `@` past where the authority seems to end: a password holding `#`, `?` or `/`
            // (`bob:pa#ss@host`, `bob:pa/ss@host`), which the port text, and the URL with the
            // password read where it is not, would repeat: neither is quoted.
            guard !passwordMayHoldDelimiter(url) else {
                throw RequestError(.invalidURL, "the URL has a port that is not a number, or a password with #, ? or / in it: "
                    + "write those percent-encoded, as %23, %3F and %2F")
            }
            throw RequestError(.invalidURL, "URL \(Self.quoted(url)) has port \(String(port.prefix(40)).debugDescription): a port is a number from 1 to 65535")
        }
    }

    /// Checks a URL that is not of the plain shape with the full parser.
    private static func validate(_ url: String) throws(RequestError) {
        try checkCharacters(url)
        try checkAddress(url)
        guard let components = URLComponents(string: url) else {
            throw RequestError(.invalidURL, "URL \(Self.quoted(url)) is not a valid URL")
        }
        guard let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw RequestError(.invalidURL, "URL \(Self.quoted(url)) must start with http:// or https://")
        }
        guard let host = components.host, !host.isEmpty else {
            throw RequestError(.invalidURL, "URL \(Self.quoted(url)) has no host")
        }
    }

    /// Whether `text` is a port: digits only, a number from 1 to 65535.
    static func isPort(_ text: Substring) -> Bool {
        text.allSatisfy { $0.isASCII && $0.isNumber } && (1...65535).contains(Int(text) ?? 0)
    }

    /// `url`'s host and port as written: its authority after any user information; nil without `://`.
    private static func hostAndPort(of url: String) -> Substring? {
        guard let schemeEnd = url.range(of: "://") else { return nil }
        let afterScheme = url[schemeEnd.upperBound...]
        let authority = afterScheme[..<(afterScheme.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? afterScheme.endIndex)]
        return authority.lastIndex(of: "@").map { authority[authority.index(after: $0)...] } ?? authority
    }

    /// Whether an `@` follows the authority's first `:` beyond a `#` or `?` that would end it,
    /// before the path: what a password holding those reads like.
    private static func passwordMayHoldDelimiter(_ url: String) -> Bool {
        guard let schemeEnd = url.range(of: "://") else { return false }
        let afterScheme = url[schemeEnd.upperBound...]
        let authority = afterScheme[..<(afterScheme.firstIndex { $0 == "/" || $0 == "#" || $0 == "?" } ?? afterScheme.endIndex)]
        // A colon in what reads as the authority, and an `@` anywhere after where it ends.
        guard authority.contains(":"), authority.endIndex < afterScheme.endIndex else { return false }
        return afterScheme[authority.endIndex...].contains("@")
    }

    /// Whether `url`'s host starts with `[` and no `]` closes it.
    static func hasUnclosedIPv6Bracket(_ url: String) -> Bool {
        guard let authority = hostAndPort(of: url) else { return false }
        return authority.hasPrefix("[") && !authority.contains("]")
    }

    /// What follows the host's colon in `url`'s authority (after any user information, and after
    /// the bracket of an IPv6 address), or nil when there is no colon there.
    static func portText(of url: String) -> Substring? {
        guard var authority = hostAndPort(of: url) else { return nil }
        if authority.hasPrefix("["), let bracket = authority.firstIndex(of: "]") { authority = authority[authority.index(after: bracket)...] }
        guard let colon = authority.firstIndex(of: ":") else { return nil }
        return authority[authority.index(after: colon)...]
    }

    /// Bytes outside ASCII after the authority (path, query, fragment) as `%XX`, as a browser
    /// sends them: libcurl encodes them in the path but sends a query's raw, which servers refuse.
    /// The host keeps its form (libcurl converts an international name itself).
    static func percentEncodingNonASCII(_ url: String) -> String {
        guard url.utf8.contains(where: { $0 >= 0x80 }) else { return url }
        let rest = URLText.afterAuthority(url)
        var encoded = String(url[..<rest.startIndex])
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in rest.utf8 {
            if byte < 0x80 {
                encoded.unicodeScalars.append(UnicodeScalar(byte))
            } else {
                encoded.unicodeScalars.append(contentsOf: [UnicodeScalar(UInt8(ascii: "%")), UnicodeScalar(hex[Int(byte >> 4)]), UnicodeScalar(hex[Int(byte & 0x0F)])])
            }
        }
        return encoded
    }

    /// The common case checked byte by byte: `http://` or `https://`, a host of name characters,
    /// then nothing but printable ASCII. Anything else goes through the full parser.
    private static func hasPlainHTTPShape(_ url: String) -> Bool {
        url.withUTF8Bytes(hasPlainHTTPShape)
    }

    private static func hasPlainHTTPShape(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = httpSchemePrefixLength(bytes)
        guard index > 0 else { return false }
        let hostStart = index
        while index < bytes.count, isHostNameByte(bytes[index]) { index += 1 }
        guard index > hostStart else { return false }
        if index < bytes.count, bytes[index] == UInt8(ascii: ":") {
            index += 1
            // A port past 65535, or 0, is for the full check, which says so; an empty one is no port.
            var port = 0
            let portStart = index
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                port = port * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                guard port <= 65535 else { return false }
                index += 1
            }
            if index > portStart, port == 0 { return false }
        }
        guard index == bytes.count || bytes[index] == UInt8(ascii: "/") || bytes[index] == UInt8(ascii: "?") || bytes[index] == UInt8(ascii: "#") else {
            return false
        }
        while index < bytes.count {
            guard isPlainURLByte(bytes[index]) else { return false }
            index += 1
        }
        return true
    }

    /// A letter, digit, `-` or `.`: what a plain host name is made of.
    private static func isHostNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."): true
        default: false
        }
    }

    /// Printable ASCII that a URL may hold as it is: not a space or control, and none of `\` `"` `<` `>` `{` `}` `|` `^` and the backtick.
    private static func isPlainURLByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "\\"), UInt8(ascii: "\""), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "{"), UInt8(ascii: "}"),
             UInt8(ascii: "|"), UInt8(ascii: "^"), UInt8(ascii: "`"): false
        default: byte > 0x20 && byte < 0x7F
        }
    }

    /// The length of a lowercase `http://` or `https://` at the start of `bytes`, 0 without one.
    private static func httpSchemePrefixLength(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        guard bytes.count >= 7, bytes[0] == UInt8(ascii: "h"), bytes[1] == UInt8(ascii: "t"), bytes[2] == UInt8(ascii: "t"),
              bytes[3] == UInt8(ascii: "p") else { return 0 }
        let colon = bytes[4] == UInt8(ascii: "s") ? 5 : 4
        guard bytes.count >= colon + 3, bytes[colon] == UInt8(ascii: ":"), bytes[colon + 1] == UInt8(ascii: "/"),
              bytes[colon + 2] == UInt8(ascii: "/") else { return 0 }
        return colon + 3
    }

    private static func trimmingSlashes(_ text: String, leading: Bool) -> String {
        var result = Substring(text)
        if leading {
            while result.hasPrefix("/") { result = result.dropFirst() }
        } else {
            while result.hasSuffix("/") { result = result.dropLast() }
        }
        return String(result)
    }
}

extension RequestComposer {
    /// Whether two header lists are the same bytes in the same order. (`==` compares names and
    /// values as `String`s, which calls canonically equivalent text equal: a name with the Kelvin
    /// sign would pass for one with `K`, which was checked, and skip the check.)
    private static func sameBytes(_ left: HTTPHeaders, _ right: HTTPHeaders) -> Bool {
        guard left.fields.count == right.fields.count else { return false }
        for (mine, theirs) in zip(left.fields, right.fields) where !mine.name.hasSameBytes(as: theirs.name) || !mine.value.hasSameBytes(as: theirs.value) {
            return false
        }
        return true
    }

    /// `headers` with the config's User-Agent last, unless they name one or the config has none.
    fileprivate static func addingUserAgent(to headers: HTTPHeaders, config: NetworkConfig) -> HTTPHeaders {
        guard headers["User-Agent"] == nil, !config.userAgent.isEmpty else { return headers }
        var headers = headers
        headers.set("User-Agent", config.userAgent)
        return headers
    }
}

extension TLSSettings {
    /// Whether applying these settings reads no file: no authority file, client certificate or
    /// key, and no pinning (whose pins may be certificate files).
    var namesNoFile: Bool {
        certificateAuthorityFile == nil && clientCertificate == nil && clientKey == nil && pinning == .none
    }
}
