import ArgumentParser
import CurlewAgent
import Foundation

/// `curlew send`: one request, shown the way it went over the wire, with its timing breakdown.
struct SendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Send one request and show the response and where its time went.",
        discussion: """
        Exit status: 0 for a 2xx or 3xx response, 22 for any other status, and curl's numbers for \
        network failures (6 could not resolve, 7 could not connect, 28 timed out, 35 TLS, ...).
        """
    )

    @Argument(help: "[METHOD] URL. METHOD defaults to GET, or POST when a body is given. A URL without a scheme is http:// (example.com/get); :8080/get is localhost.")
    var words: [String]

    @Option(name: .customShort("H"), help: "A header, 'Name: value'. Repeatable.")
    var header: [String] = []

    @Option(name: [.customShort("u"), .customLong("user")],
            help: "Basic authentication, 'user:password', as curl's -u: an Authorization header (an -H Authorization wins), hidden in reports and logs.")
    var user: String?

    @Option(name: [.customShort("d"), .customLong("data"), .customLong("data-binary")],
            help: "Request body, sent as a form unless -H sets Content-Type; @FILE reads a file as it is (so --data-binary is the same), @- standard input. Given again, the parts are joined with &, as curl joins them.")
    var data: [String] = []

    @Option(name: .customLong("json"), help: "JSON request body (@FILE reads a file, @- standard input); sets Content-Type and Accept to application/json.")
    var json: String?

    @Option(parsing: .unconditional, help: "Seconds the whole request may take (default: 15, or a day with --output).")
    var timeout: SecondsArgument?

    @Option(name: .customLong("connect-timeout"), parsing: .unconditional, help: "Seconds establishing the connection may take (default: 10).")
    var connectTimeout = SecondsArgument(argument: "10")!

    @Option(help: "Append the exchange to this session log (JSON Lines, created mode 0600).")
    var log: String?

    @Option(name: .customLong("repeat"), parsing: .unconditional, help: "Send the request this many times in a row, one summary line each.")
    var repeatCount: Int = 1

    @Option(parsing: .unconditional, help: "For a text/event-stream response: when it drops, reconnect up to this many times, after the server's retry (3 s by default) and with Last-Event-ID.")
    var reconnect: Int = 0

    @OptionGroup(title: "Bodies, files and protocol")
    var transfer: TransferOptions

    @OptionGroup(title: "TLS")
    var security: SecurityOptions

    @OptionGroup(title: "Middle layer")
    var pipeline: PipelineOptions

    @Flag(name: [.short, .long], help: "Also show the request exactly as sent on the wire.")
    var verbose = false

    @Flag(name: .customLong("no-body"), help: "Do not print the response body.")
    var hideBody = false

    @Flag(name: .customLong("no-redact"), help: "Show credentials and cookies in the report and keep them in the session log.")
    var noRedact = false

    @Flag(name: .customLong("allow-downgrade"), help: "Follow a redirect from https to plain http.")
    var allowDowngrade = false

    @Flag(name: .customLong("raw"), help: "Print what the server sent unchanged, control characters included.")
    var raw = false

    func validate() throws {
        // As `curlew run` refuses it: a session log is a file (found by a new user's trial: `./-` was written).
        if log == "-" { throw ValidationError("--log -: the session log is a file the interface and `curlew log` read; give a file name") }
        // A body where a URL or the method goes (`@-`, `@file`, `{"a":1}`): a value for curl's
        // data options send lacks, or a body given without -d. Named as what it is, not as a
        // method or a URL; a JSON body is not quoted (its members may be credentials).
        if let body = words.first(where: { $0.hasPrefix("@") }) {
            throw ValidationError("\(ClippedText.quoted(body, limit: 80)) reads like a body: give it to -d/--data or --json (@FILE reads a file, @- standard input)")
        }
        if words.contains(where: { $0.hasPrefix("{") && !$0.hasPrefix("{{") }) {
            throw ValidationError("a JSON body was given where the URL or the method goes: give it to --json (or -d with -H 'Content-Type: application/json')")
        }
        // A method holds no `/`: a second word with `://`, or with `/` and no `=` (a value with
        // `=` meant for an option is told below without its value), is a second URL.
        let urls = words.filter { $0.contains("://") || ($0.contains("/") && !$0.contains("=")) }
        if urls.count > 1 {
            throw ValidationError("two URLs given (\(urls.prefix(2).map { hidingSecrets(inMistyped: $0).debugDescription }.joined(separator: " and "))): curlew send sends one, optionally preceded by a method")
        }
        guard (1...2).contains(words.count) else {
            throw ValidationError("give a URL, optionally preceded by a method: curlew send [METHOD] URL")
        }
        guard data.isEmpty || json == nil else { throw ValidationError("use either -d/--data or --json, not both") }
        guard !transfer.givesBody || (data.isEmpty && json == nil) else {
            throw ValidationError("-F/--form and -T/--upload-file carry the body; do not also give -d/--data or --json")
        }
        guard repeatCount >= 1 else { throw ValidationError("--repeat must be at least 1") }
        guard (data + (json.map { [$0] } ?? [])).count(where: { $0 == "@-" }) <= 1 else {
            throw ValidationError("@- reads standard input, which can be read once: give it to one -d/--data or --json")
        }
        // curl asks for a password -u leaves out; a command that prompts would hang a script.
        // The value is not repeated: it may be a password typed in the wrong place.
        if let user, !user.contains(":") {
            throw ValidationError("-u/--user takes user:password (the password is not asked for; an empty one is user:)")
        }
        // curl's `-o -` is standard output, where Curlew's report already goes; a file named `-`
        // is never what was meant (found by a new user's trial).
        if transfer.output == "-" {
            throw ValidationError("-o - would make a file named \"-\": the response is printed on standard output already (--raw prints it unchanged); give -o a file name, or ./- for that file")
        }
        // The download would replace the log it is recorded in (found by a new user's trial).
        if let output = transfer.output, let log, Self.sameFile(output, log) {
            throw ValidationError("-o and --log name the same file (\(output)); give each its own")
        }
        guard (0...1000).contains(reconnect) else { throw ValidationError("--reconnect must be from 0 to 1000") }
        do {
            _ = try totalTimeout()
            _ = try connectTimeout.duration(field: "--connect-timeout")
        } catch {
            throw ValidationError(error.message)
        }
        if words.count == 2 {
            // The method's error quotes it escaped, so it is made from the method with its secrets
            // hidden (which is no token either: the marker's brackets are not token bytes).
            if (try? HTTPMethod(rawValue: words[0]).validate()) == nil {
                // A word with `=` is most often a value meant for a curl option send lacks
                // (`-b sid=…`, a cookie): what follows the `=` is not repeated.
                let shown = ClippedText.nameOnly(words[0][...]) { hidingSecrets(in: $0) } ?? hidingSecrets(in: words[0])
                do { try HTTPMethod(rawValue: shown).validate() } catch { throw ValidationError(error.message) }
                throw ValidationError("the method is not an HTTP token (letters, digits and !#$%&'*+-.^_`|~ only)")
            }
            // A token, but no method: a value given to a flag that takes none (curl's `-C -`).
            guard words[0].first?.isLetter == true else {
                throw ValidationError("\(hidingSecrets(in: words[0]).debugDescription) is not a method (methods start with a letter: GET, M-SEARCH); "
                    + "if it was meant for a flag before it, that flag takes no value (-C resumes on its own, not as curl's -C -)")
            }
        }
        let word = urlWord
        if words.count == 1, HTTPMethod.common.contains(HTTPMethod(rawValue: word.uppercased())) {
            throw ValidationError("\(word) is a method: give the URL after it, curlew send \(word.uppercased()) URL")
        }
        guard !word.isEmpty else {
            throw ValidationError("the URL is empty: curlew send [METHOD] URL")
        }
        // Quoted escaped (`debugDescription`) once hidden: an escaped copy of a secret with a
        // quote or a backslash in it would not be found.
        if let mistake = URLText.typingMistake(word) {
            throw ValidationError("\(hidingSecrets(inMistyped: word).debugDescription) is not a URL: \(mistake)")
        }
        guard !URLText.isPath(word) else {
            let shown = hidingSecrets(inMistyped: word)
            throw ValidationError("\(shown.debugDescription) is a path, not a URL: give the server too, e.g. http://localhost:8080\(shown)")
        }
        // Not repeated: a header without its colon is most often a credential typed in a hurry
        // (`-H "Authorization Bearer …"`).
        for line in header where !line.contains(":") {
            throw ValidationError("-H takes 'Name: value', and one given has no colon (it is not repeated here: it may hold a credential)")
        }
    }

    func run() async throws {
        var request: Request
        do { request = try makeRequest() } catch let error as RequestError { throw failing(with: error) }
        var config = NetworkConfig(
            requestTimeout: try totalTimeout(),
            connectTimeout: try connectTimeout.duration(field: "--connect-timeout"),
            allowInsecureRedirects: allowDowngrade,
            tls: security.settings
        )
        try pipeline.apply(to: &config, request: &request)
        transfer.apply(to: &config)
        let agent = Agent(config: config)
        do {
            // A jar that cannot be read is reported as such (26) before one that cannot be saved (23).
            try await agent.reloadJarFile()
            try agent.checkJarFileCanBeSaved()
        } catch {
            throw failing(with: error)
        }
        let redaction = self.redaction
        let logger = try log.map {
            var config = NetworkLoggerConfig(logFilePath: $0, redaction: redaction)
            config.createsDirectory = false
            return try NetworkLogger(config: config)
        }
        if let logger { agent.addObserver(logger) }

        // Events of a text/event-stream response are printed as they arrive.
        let escapes = !(raw || isatty(STDOUT_FILENO) == 0)
        let printer = EventPrinter { line in
            let line = redaction.redactText(line)
            print(escapes ? TerminalText.escapingControls(line) : line)
            fflush(nil)
        }
        if transfer.output == nil { request.streamsResponse = true }
        let shown = Shown(verbose: verbose, body: !hideBody && transfer.output == nil, raw: raw, redaction: redaction)
        // Ctrl-C (or SIGTERM) cancels the exchange in flight, which is still shown and logged;
        // watched from before it starts until the log is closed and the cookies saved.
        let interrupts = InterruptWatch(secondMessage: "interrupted again; stopping without finishing the log", secondExitStatus: 130)
        defer { interrupts.stop() }
        let exchanges = Task { [repeatCount, reconnect] in
            await Self.send(request, times: repeatCount, reconnects: reconnect, on: agent, printer: printer, shown: shown)
        }
        interrupts.cancels { exchanges.cancel() }
        let lastFailure = await exchanges.value
        await agent.waitForObservers()
        try logger?.close()
        if transfer.cookieJar != nil {
            let cookies = await agent.cookies()
            print(Self.forTerminal(CookieListing.text(cookies, revealsValues: noRedact), raw: raw))
            do { try await agent.saveCookies() } catch { throw failing(with: error) }
        }
        if let signal = interrupts.signalNumber {
            StandardStreams.error("curlew: interrupted\n")
            throw ExitCode(128 + signal)
        }
        if let lastFailure { throw failing(with: lastFailure.error) }
    }

    /// What the reports print.
    private struct Shown {
        var verbose: Bool
        var body: Bool
        var raw: Bool
        /// What the report hides: what the session log hides, unless `--no-redact`.
        var redaction: RedactionPolicy
    }

    /// Sends the request `times` times in a row, reconnecting a dropped event stream up to
    /// `reconnects` times, and prints each exchange; the last failure, if any. Stops early when
    /// the task is cancelled.
    private static func send(_ request: Request, times: Int, reconnects allowed: Int, on agent: Agent, printer: EventPrinter, shown: Shown) async -> RequestFailure? {
        func forTerminal(_ text: String) -> String { Self.forTerminal(text, raw: shown.raw) }
        var lastFailure: RequestFailure?
        for index in 1...times {
            var current = request
            var reconnects = 0
            while true {
                let (message, failure) = await agent.exchange(current, streamed: times == 1 ? printer.receive : nil)
                // A request counts as done once its log entry is on disk.
                await agent.waitForObservers()
                if let failure, failure.error.isConnectionDrop, reconnects < allowed, !Task.isCancelled,
                   let stream = message.stream, stream.eventCount > 0 || reconnects > 0 {
                    reconnects += 1
                    let wait = min(stream.retryMilliseconds ?? 3000, 60_000)
                    current.reconnectAttempt = reconnects
                    if let id = stream.lastEventID { current.headers.set("Last-Event-ID", id) }
                    print(forTerminal("stream dropped (\(failure.error.kind.rawValue)); reconnecting in \(wait) ms"
                        + (stream.lastEventID.map { " with Last-Event-ID \($0)" } ?? "") + " (\(reconnects) of \(allowed))"))
                    fflush(nil)
                    do { try await Task.sleep(for: .milliseconds(wait)) } catch { return Self.hiding(failure, as: shown.redaction.redact(message)) }
                    continue
                }
                let shownMessage = shown.redaction.redact(message)
                if times == 1 {
                    let report = ExchangeReport(message: shownMessage, showsRequest: shown.verbose, showsBody: shown.body && printer.count == 0, showsError: false).text
                    // An exchange that got no response has nothing to show: its error goes to stderr.
                    if !report.isEmpty { print(forTerminal(report)) }
                    if shown.body, printer.count == 0, isatty(STDOUT_FILENO) == 0 {
                        // `StandardStreams.error` writes what `print` buffered first.
                        for notice in [Self.partialBodyNotice(shownMessage), Self.hiddenValuesNotice(message, shown: shownMessage)].compactMap({ $0 }) {
                            StandardStreams.error(notice + "\n")
                        }
                    }
                } else {
                    print(forTerminal("#\(index) " + ExchangeReport.summary(shownMessage)))
                    fflush(nil)
                }
                if let failure { lastFailure = Self.hiding(failure, as: shownMessage) }
                break
            }
            if Task.isCancelled { break }
        }
        return lastFailure
    }

    /// `failure` with its error's text as `shownMessage`, its redacted debug message, has it (the
    /// same error, its secrets hidden): with the request's own credentials too, such as a `-u`
    /// password a refused redirect's `Location` repeats, which text alone does not tell.
    private static func hiding(_ failure: RequestFailure, as shownMessage: DebugMessage) -> RequestFailure {
        var failure = failure
        if let hidden = shownMessage.error?.message { failure.error.message = hidden }
        return failure
    }

    /// A report shows a text body as the debug message keeps it (cut past `debugBodyLimit`) and a
    /// binary one as a preview. With stdout going to a file or a pipe, where whoever reads it may
    /// take it for the body, that is said on stderr, with the option that saves the body whole.
    private static func partialBodyNotice(_ message: DebugMessage) -> String? {
        guard let body = message.response?.body, body.size > 0, !message.hasUnkeptEventStreamBody else { return nil }
        if ExchangeReport.showsAsText(body) {
            guard body.isTruncated else { return nil }
            return "curlew: the response body is \(body.size) bytes; the report shows its first part. -o FILE saves it whole."
        }
        return "curlew: the response body is \(body.size) bytes of binary data; the report shows a preview. -o FILE saves it."
    }

    /// With stdout going to a file or a pipe, where the report may be taken for the body, a body
    /// the report shows with values hidden (a secret JSON member, an echoed credential) is said
    /// on stderr, with the options that show and save it as it came.
    private static func hiddenValuesNotice(_ message: DebugMessage, shown: DebugMessage) -> String? {
        guard let body = message.response?.body, let shownBody = shown.response?.body, body.data != shownBody.data else { return nil }
        return "curlew: the report hides secret values in the response body as [REDACTED]. --no-redact shows them; -o FILE saves the body as it came."
    }

    /// What the report, stderr and the session log hide: one policy for all three, so a report
    /// pasted into a ticket hides what the log hides.
    private var redaction: RedactionPolicy {
        var policy: RedactionPolicy = noRedact ? .disabled : RedactionPolicy()
        // A signature is a credential a server accepts for a while.
        if pipeline.signHMAC != nil { policy.hideAlso(headers: [HMACSignatureHeaders.signature]) }
        return policy
    }

    /// `text`, what was typed as a usage error quotes it, with what the report and the log would
    /// hide of it hidden, unless `--no-redact`: URL passwords, secret parameters and declared
    /// values, the credentials of the `Authorization` fields `-u` and `-H` give
    /// (`RedactionPolicy.hidingPasswords`) and the values of the other credential headers `-H`
    /// gives (`X-Api-Key`, `Cookie`…), wherever it repeats them.
    private func hidingSecrets(in text: String) -> String {
        guard !noRedact else { return text }
        var policy = redaction
        var fields = givenHeaders
        for field in fields.fields where policy.hidesValue(ofHeader: field.name) && field.value.utf8.count >= RedactionPolicy.minimumHiddenCredential {
            policy.hideAlso([field.value])
        }
        if let user, user.contains(":") { fields.add("Authorization", HTTPHeaders.basicAuthorization(user)) }
        return policy.redactText(RedactionPolicy.hidingPasswords(in: text, sentWith: fields.fields))
    }

    /// `hidingSecrets(in:)` for a URL typed with part of its start missing (`http:/user:pw@host`,
    /// `/user:pw@host`): hidden as the URL it may have been meant to be, shown as typed.
    private func hidingSecrets(inMistyped word: String) -> String {
        noRedact ? word : URLPassword.hiding(inMistyped: word) { hidingSecrets(in: $0) }
    }

    /// Prints the error on stderr and gives the exit status it maps to.
    private func failing(with error: RequestError) -> ExitCode {
        // A redirect's error quotes its Location, which may hold a password or a token.
        let text = "curlew: " + redaction.redactText(error.commandLineDescription) + "\n"
        StandardStreams.error(raw || isatty(STDERR_FILENO) == 0 ? text : TerminalText.escapingControls(text))
        return ExitCode(error.exitCode)
    }

    /// Whether two paths name one file: as written, after `.` and `..`, through symbolic links.
    private static func sameFile(_ first: String, _ second: String) -> Bool {
        func resolved(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path }
        return resolved(first) == resolved(second)
    }

    /// The whole request's limit: as given, else 15 s, or a day for a download, which may
    /// rightly take long.
    private func totalTimeout() throws(UserInputError) -> Duration {
        try timeout?.duration(field: "--timeout") ?? .seconds(transfer.output == nil ? 15 : 86_400)
    }

    /// What the network sent, made safe for a terminal unless `--raw` or stdout is not one.
    private static func forTerminal(_ text: String, raw: Bool) -> String {
        raw || isatty(STDOUT_FILENO) == 0 ? text : TerminalText.escapingControls(text)
    }

    /// The URL as given, without the whitespace around it.
    private var urlWord: String {
        words[words.count - 1].trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The `-H` lines as fields, in order, each split at its first colon and trimmed; a line
    /// without a colon, which `validate` refuses, is left out.
    private var givenHeaders: HTTPHeaders {
        var headers = HTTPHeaders()
        for line in header {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.add(String(line[..<colon]).trimmingCharacters(in: .whitespaces),
                        String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces))
        }
        return headers
    }

    private func makeRequest() throws -> Request {
        let method = words.count == 2 ? HTTPMethod(rawValue: words[0].uppercased())
            : transfer.impliedMethod ?? (data.isEmpty && json == nil ? .get : .post)
        var headers = givenHeaders
        if let user, headers["Authorization"] == nil {
            headers.add("Authorization", HTTPHeaders.basicAuthorization(user))
        }
        var request = Request.url(URLText.typed(urlWord), method: method, headers: headers)
        request.responseSerializer = .data
        // The exit status treats a 3xx the server did not let us follow as an answer, not a failure.
        request.acceptableStatusCodes = 200..<400
        if let json {
            if headers["Accept"] == nil { request.headers.set("Accept", "application/json") }
            request.requestSerializer = .raw(try Self.body(from: json), contentType: "application/json")
        } else if !data.isEmpty {
            var body = Data()
            for (index, part) in data.enumerated() {
                if index > 0 { body.append(UInt8(ascii: "&")) }
                body.append(try Self.body(from: part))
            }
            request.requestSerializer = .raw(body, contentType: "application/x-www-form-urlencoded")
        }
        try transfer.apply(to: &request)
        return request
    }

    private static func body(from argument: String) throws(RequestError) -> Data {
        guard argument.hasPrefix("@") else { return Data(argument.utf8) }
        let path = String(argument.dropFirst())
        // As curl reads it: standard input, to its end.
        if path == "-" {
            do { return try FileHandle.standardInput.readToEnd() ?? Data() } catch {
                throw RequestError(.localFile, "cannot read the body from standard input: \(error.localizedDescription)", code: 26)
            }
        }
        guard let contents = FileManager.default.contents(atPath: path) else {
            var info = stat()
            let reason = stat(path, &info) != 0 || access(path, R_OK) != 0 ? String(cString: strerror(errno))
                : (info.st_mode & S_IFMT) == S_IFDIR ? "it is a directory" : "reading it failed"
            throw RequestError(.localFile, "cannot read body file \(path): \(reason)", code: 26)
        }
        return contents
    }
}
