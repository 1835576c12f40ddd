import CurlewAgent
import Foundation

/// Reads curl command lines (as browsers' "Copy as cURL" writes them, for bash or cmd) into
/// requests. Flags Curlew has no use for are listed in `ignored`; flags it does not know are
/// errors, never dropped in silence.
public enum CurlImport {
    public struct Imported: Sendable {
        public var request: Request
        /// Flags understood but with no effect on the request (`-s`, `-v`, `--compressed`…).
        public var ignored: [String]
    }

    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public var reason: String
        public init(reason: String) { self.reason = reason }

        public var description: String { reason }
    }

    /// Flags that take a value and change nothing Curlew keeps.
    static let ignoredWithValue: Set<String> = ["-o", "--output", "-w", "--write-out", "--retry", "--proxy", "-x", "--limit-rate"]
    /// Flags without a value that change nothing Curlew keeps.
    static let ignoredSwitches: Set<String> = ["-s", "--silent", "-S", "--show-error", "-v", "--verbose", "-i", "--include", "--compressed",
                                               "-f", "--fail", "--globoff", "-g", "-N", "--no-buffer", "-#", "--progress-bar", "-O"]

    /// Every `curl …` command in `text` (several may follow one another).
    public static func parse(_ text: String, readFile: (String) throws -> Data = { try Data(contentsOf: URL(fileURLWithPath: $0)) }) throws(Failure) -> [Imported] {
        let tokens: [ShellWords.Token]
        do { tokens = try ShellWords.split(text) } catch { throw Failure(reason: error.reason) }
        var commands: [[String]] = []
        var startsCommand = true
        for token in tokens {
            guard case .word(let word) = token else {
                startsCommand = true
                continue
            }
            if startsCommand {
                guard word == "curl" || word.hasSuffix("/curl") || word == "curl.exe" else {
                    throw Failure(reason: "expected a command starting with curl, found \(ImportQuote.quoted(word, limit: 60))")
                }
                commands.append([])
                startsCommand = false
            } else {
                commands[commands.count - 1].append(word)
            }
        }
        guard !commands.isEmpty else { throw Failure(reason: "no curl command found") }
        var imported: [Imported] = []
        for command in commands { imported.append(try parseCommand(command, readFile: readFile)) }
        return imported
    }

    /// Short flags that take a value (attached, as in `-XPOST`, or as the next word).
    static let valueFlags: Set<Character> = ["X", "H", "d", "F", "u", "A", "e", "b", "T", "m", "o", "w", "x"]
    /// Short flags without a value, which may be written together (`-sSL`).
    static let switchFlags: Set<Character> = ["s", "S", "L", "k", "v", "i", "f", "I", "G", "N", "g", "#", "O"]

    /// Long options followed by a value, which is never read as options itself.
    static let longValueFlags: Set<String> = ["--request", "--url", "--header", "--data", "--data-ascii", "--data-raw", "--data-binary",
                                              "--data-urlencode", "--json", "--form", "--form-string", "--user", "--cookie", "--user-agent",
                                              "--referer", "--upload-file", "--max-time", "--connect-timeout"]

    /// `-sSL` as `-s -S -L`, and `-sXPOST` as `-s -X POST`, in one pass. The value after a flag
    /// that takes one (`-d -kX`) stays a value.
    static func expandingSwitchGroups(_ arguments: [String]) -> [String] {
        var expanded: [String] = []
        for argument in arguments {
            if let previous = expanded.last, isValueFlag(previous) {
                expanded.append(argument)
                continue
            }
            guard argument.hasPrefix("-"), !argument.hasPrefix("--"), argument.count > 2,
                  switchFlags.contains(argument[argument.index(after: argument.startIndex)]) else {
                expanded.append(argument)
                continue
            }
            var rest = argument.dropFirst()
            var words: [String] = []
            while let flag = rest.first {
                rest = rest.dropFirst()
                words.append("-\(flag)")
                if valueFlags.contains(flag) {
                    if !rest.isEmpty { words.append(String(rest)) }
                    break
                }
                // An unknown letter after known switches (`-sS4`, `-sUbob:pw`) stands with what
                // follows it as a word of its own, so the refusal names that letter, not the first.
                guard switchFlags.contains(flag) else { words[words.count - 1] += rest; break }
            }
            expanded += words
        }
        return expanded
    }

    /// A word that takes the next one as its value: `-X`, `--data`, an ignored option with a value.
    private static func isValueFlag(_ word: String) -> Bool {
        if word.count == 2, word.hasPrefix("-"), let flag = word.last, valueFlags.contains(flag) { return true }
        return longValueFlags.contains(word) || ignoredWithValue.contains(word)
    }

    private static func parseCommand(_ given: [String], readFile: (String) throws -> Data) throws(Failure) -> Imported {
        let arguments = expandingSwitchGroups(given)
        var method: String?
        var url: String?
        // The -H fields in order, a removed one left as nil, and where each name's stand: a
        // command of many `-H 'Name:'` removals costs one pass, not one over all fields each.
        var givenFields: [HeaderField?] = []
        var givenPositions: [String: [Int]] = [:]
        var data: [Data] = []
        var dataContentType = "application/x-www-form-urlencoded"
        var form = MultipartForm()
        var usesForm = false
        var asQuery = false
        var head = false
        var uploadFile: String?
        var bodyFiles: [(path: String, index: Int, stripsLineEnds: Bool)] = []
        var ignored: [String] = []
        // What -u, -A, -e, -b and --json make, added once the command is read: a header given
        // with -H (or removed with `-H 'Name:'`) replaces them, whichever comes first, as in curl.
        var generated: [(flag: String, header: HeaderField)] = []
        var givenByHand: Set<String> = []
        var request = Request(.get, "")
        request.followRedirects = false

        var index = 0
        func value(_ flag: String) throws(Failure) -> String {
            index += 1
            guard index < arguments.count else { throw Failure(reason: "\(flag) needs a value") }
            return arguments[index]
        }
        func file(_ path: String) throws(Failure) -> Data {
            do { return try readFile(path) } catch let failure as Failure { throw failure } catch {
                throw Failure(reason: "cannot read \(path): \(error.localizedDescription)")
            }
        }
        /// Literal data, or a file (`@path`) noted for later: kept as a reference or read.
        func addData(_ text: String, stripsLineEnds: Bool) {
            if text.hasPrefix("@") {
                bodyFiles.append((String(text.dropFirst()), data.count, stripsLineEnds))
                data.append(Data())
            } else {
                data.append(Data(text.utf8))
            }
        }
        func seconds(_ text: String, _ flag: String) throws(Failure) -> Duration {
            guard let value = Double(text), value > 0, value <= 86_400 else { throw Failure(reason: "\(flag) \(text): expected seconds") }
            return .milliseconds(Int64(value * 1000))
        }

        while index < arguments.count {
            var argument = arguments[index]
            var attached: String?
            // -XPOST, -H'A: b': a short flag with its value attached.
            if argument.hasPrefix("-"), !argument.hasPrefix("--"), argument.count > 2,
               valueFlags.contains(argument[argument.index(after: argument.startIndex)]) {
                attached = String(argument.dropFirst(2))
                argument = String(argument.prefix(2))
            }
            func take() throws(Failure) -> String {
                if let attached { return attached }
                return try value(argument)
            }
            /// The command's URL, positional or `--url`: one per command.
            func setURL(_ given: String) throws(Failure) {
                guard url == nil else { throw Failure(reason: "a second URL \(ImportQuote.quoted(given, limit: 120)): import one URL per curl command") }
                url = given
            }
            switch argument {
            case "-X", "--request": method = try take()
            case "--url": try setURL(try take())
            case "-H", "--header":
                let line = try take()
                guard let colon = line.firstIndex(of: ":") else {
                    if line.hasPrefix("@") { throw Failure(reason: "-H @file is not supported: put the headers in the command") }
                    // The line is not repeated: without its colon it may be a credential's value.
                    throw Failure(reason: "-H with a line without a colon: expected Name: value")
                }
                let name = String(line[..<colon]).trimmingCharacters(in: .whitespaces)
                givenByHand.insert(name.lowercased())
                let headerValue = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                if headerValue.isEmpty && line.hasSuffix(":") {
                    for position in givenPositions.removeValue(forKey: name.lowercased()) ?? [] { givenFields[position] = nil }
                } else {
                    givenPositions[name.lowercased(), default: []].append(givenFields.count)
                    givenFields.append(HeaderField(name: name, value: headerValue))
                }
            case "-d", "--data", "--data-ascii": addData(try take(), stripsLineEnds: true)
            case "--data-raw": data.append(Data(try take().utf8))
            case "--data-binary": addData(try take(), stripsLineEnds: false)
            case "--data-urlencode": data.append(Data(try urlencoded(try take(), file).utf8))
            case "--json":
                addData(try take(), stripsLineEnds: false)
                dataContentType = "application/json"
                generated.append(("--json", HeaderField(name: "Accept", value: "application/json")))
            case "-F", "--form", "--form-string":
                usesForm = true
                try formPart(try take(), literal: argument == "--form-string", into: &form, file)
            case "-u", "--user":
                let credentials = try take()
                // curl asks for the password of a user given alone; an import has nobody to ask.
                guard credentials.contains(":") else {
                    // The value is not repeated: it may be a password given without its user.
                    throw Failure(reason: "\(argument) without a colon: curl would ask for the password; write it as \(argument) user:password")
                }
                let basic = HTTPHeaders.basicAuthorization(credentials)
                generated.append(("-u", HeaderField(name: "Authorization", value: basic)))
            case "-b", "--cookie":
                let cookie = try take()
                guard cookie.contains("=") else {
                    // Not repeated: it may be a cookie's value given without its name.
                    throw Failure(reason: "-b without name=value: a cookie file is not imported; give the cookies as name=value")
                }
                generated.append(("-b", HeaderField(name: "Cookie", value: cookie)))
            case "-A", "--user-agent": generated.append(("-A", HeaderField(name: "User-Agent", value: try take())))
            case "-e", "--referer": generated.append(("-e", HeaderField(name: "Referer", value: try take())))
            case "-G", "--get": asQuery = true
            case "-I", "--head": head = true
            case "-T", "--upload-file": uploadFile = try take()
            case "-k", "--insecure": request.tls = TLSOverrides(allowInvalidCertificates: true)
            case "--http1.1": request.httpVersion = .http1_1
            case "--http2": request.httpVersion = .http2
            case "--http2-prior-knowledge": request.httpVersion = .http2PriorKnowledge
            case "-L", "--location": request.followRedirects = true
            case "-m", "--max-time": request.timeout = try seconds(try take(), argument)
            case "--connect-timeout":
                _ = try seconds(try take(), argument)
                ignored.append("--connect-timeout (a workspace's config sets it for every request)")
            case _ where ignoredSwitches.contains(argument): ignored.append(argument)
            // The value said as a log would show it: a proxy's password, an output path's token
            // (found by a new user's trial: `-x http://u:PASS@proxy` was printed whole).
            case _ where ignoredWithValue.contains(argument): ignored.append("\(argument) \(RedactionPolicy().redactText(try take()))")
            case _ where argument.hasPrefix("-") && argument != "-":
                // `--user=bob:pw` is no curl option, but what follows its `=` is a value all the
                // same, and may be a credential; so may what follows an unknown short option
                // (`-Ubob:pw`, curl's proxy user): neither is repeated.
                let joined = argument.hasPrefix("--") ? ClippedText.nameOnly(argument[...]) : argument.count > 2 ? String(argument.prefix(2)) + "…" : nil
                let option = joined ?? argument
                let hint = joined == nil ? "" : argument.hasPrefix("--") ? "; curl takes an option's value as the next word"
                    : "; what follows it is not repeated (it may be a credential)"
                throw Failure(reason: "unknown curl option \(option)" + (url.map { " (in the command for \(ImportQuote.quoted($0, limit: 120)))" } ?? "") + hint)
            default:
                try setURL(argument)
            }
            index += 1
        }
        guard var target = url else { throw Failure(reason: "the curl command has no URL") }
        target = try Self.withCurlsSlashes(target)
        // By bytes: a combining mark after the slashes makes "/" and the mark one Character, and
        // a Character search would not see the "://".
        // A scheme is letters, digits, + - . from the start up to "://" (RFC 3986); a "://"
        // later on (`host/a?next=https://x`) is part of a schemeless URL.
        let schemeEnd = target.utf8.firstIndex { !(($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E) }
        if let schemeEnd, schemeEnd != target.utf8.startIndex, target.utf8[schemeEnd...].starts(with: "://".utf8) {
            let scheme = String(decoding: target.utf8[..<schemeEnd], as: UTF8.self).lowercased()
            guard scheme == "http" || scheme == "https" else {
                throw Failure(reason: "\(scheme):// URLs are not imported; Curlew sends http and https")
            }
        } else {
            // curl refuses these too ("URL using bad/illegal format"). By bytes: a slash and a
            // combining mark after it are one Character, which `hasPrefix("/")` would not see.
            guard target.utf8.first != UInt8(ascii: "/") else {
                throw Failure(reason: "\(URLPassword.hiding(inMistyped: target, by: { RedactionPolicy().redactText($0) }).debugDescription) is a path, not a URL: give the host too, e.g. http://localhost:8080/get")
            }
            target = "http://" + target
        }
        var headers = HTTPHeaders(givenFields.compactMap { $0 })
        // A body read from one file stays a reference to it (`bodyFile:`), so a pasted command
        // never copies a local file into the workspace. Files mixed with other data are read.
        var bodyFile: String?
        if bodyFiles.count == 1, data.count == 1, !asQuery {
            bodyFile = bodyFiles[0].path
            if bodyFiles[0].stripsLineEnds { ignored.append("-d @file's removal of line ends (the file is sent as it is)") }
            data = []
        } else {
            for piece in bodyFiles {
                let bytes = try file(piece.path)
                data[piece.index] = piece.stripsLineEnds ? Data(bytes.filter { $0 != 10 && $0 != 13 }) : bytes
            }
        }
        if let bodyFile {
            guard uploadFile == nil else { throw Failure(reason: "-T and a body from a file cannot both be given") }
            uploadFile = bodyFile
            if headers["Content-Type"] == nil { headers.set("Content-Type", dataContentType) }
        }
        let body = data.isEmpty ? nil : Data(data.joined(separator: Data("&".utf8)))
        if asQuery, let body {
            target += (target.contains("?") ? "&" : "?") + String(decoding: body, as: UTF8.self)
        } else if let body {
            let contentType = headers["Content-Type"] ?? dataContentType
            if dataContentType == "application/json", headers["Content-Type"] == nil { headers.set("Content-Type", contentType) }
            request.requestSerializer = .raw(body, contentType: contentType)
        }
        if usesForm {
            guard data.isEmpty else { throw Failure(reason: "-F cannot be combined with -d") }
            request.form = form
        }
        // A field made again replaces the one before (`-A a -A b` sends `b`, where `a` stood):
        // the last of each flag is all that counts, in the place of its first. Cookies add up
        // instead (`-b a=1 -b sid=2` sends `a=1;sid=2`, as curl joins them).
        var firstOrder: [String] = []
        var lastMade: [String: (flag: String, header: HeaderField)] = [:]
        for var made in generated {
            if made.flag == "-b", let earlier = lastMade[made.flag] {
                made.header.value = earlier.header.value + ";" + made.header.value
            }
            if lastMade.updateValue(made, forKey: made.flag) == nil { firstOrder.append(made.flag) }
        }
        generated = firstOrder.compactMap { lastMade[$0] }
        for (flag, field) in generated {
            if givenByHand.contains(field.name.lowercased()) {
                // --json's body stands; only its Accept gives way.
                guard flag != "--json" else { continue }
                ignored.append(headers[field.name] == nil
                    ? "\(flag) (-H '\(field.name):' removes the header, as in curl)"
                    : "\(flag) (the -H \(field.name) header is sent instead, as curl does)")
            } else {
                headers.set(field.name, field.value)
            }
        }
        // The agent asks for no compression and does not decode it; a browser's Accept-Encoding
        // would bring the body back compressed.
        if headers["Accept-Encoding"] != nil {
            headers.remove("Accept-Encoding")
            ignored.append("the Accept-Encoding header (bodies come back uncompressed)")
        }
        request.uploadFile = uploadFile
        // A URL the agent would refuse to send (a space, a tab, a line end in it) is refused
        // here, naming the character, rather than written into a workspace.
        // Its message quotes the URL, which may repeat a credential the command carries.
        do { try URLText.checkCharacters(target) } catch { throw Failure(reason: RedactionPolicy.hidingPasswords(in: error.message, sentWith: headers.fields)) }
        request.customURL = target
        // A header the agent would refuse to send (a control byte in its value, a name that is
        // not a token) is refused here, with the reason, rather than written into a workspace
        // whose runs would each fail on it.
        do { try headers.validateSyntax() } catch { throw Failure(reason: "a header Curlew would not send: \(error.message)") }
        request.headers = headers
        let inferred = head ? "HEAD" : asQuery ? "GET" : bodyFile != nil ? "POST" : uploadFile != nil ? "PUT" : (!data.isEmpty || usesForm) ? "POST" : "GET"
        request.method = HTTPMethod(rawValue: method ?? inferred)
        // A method that is not an HTTP token (`-X '-kX'`, bytes that are not text) is refused
        // here, with the reason, rather than read as something the agent would refuse.
        do { try request.method.validate() } catch { throw Failure(reason: "-X: \(error.message)") }
        return Imported(request: request, ignored: ignored)
    }

    /// `--data-urlencode`'s forms: `content`, `=content`, `name=content`, `@file`, `name@file`.
    private static func urlencoded(_ text: String, _ file: (String) throws(Failure) -> Data) throws(Failure) -> String {
        func encode(_ value: String) -> String { Parameters.percentEncode(value) }
        if let equals = text.firstIndex(of: "=") {
            let name = String(text[..<equals])
            let content = encode(String(text[text.index(after: equals)...]))
            return name.isEmpty ? content : "\(name)=\(content)"
        }
        if let at = text.firstIndex(of: "@") {
            let name = String(text[..<at])
            let content = encode(String(decoding: try file(String(text[text.index(after: at)...])), as: UTF8.self))
            return name.isEmpty ? content : "\(name)=\(content)"
        }
        return encode(text)
    }

    /// `name=value`, `name=@file;type=…;filename=…`, `name=<file` (the file's text as the value).
    private static func formPart(_ text: String, literal: Bool, into form: inout MultipartForm, _ file: (String) throws(Failure) -> Data) throws(Failure) {
        let part: MultipartText.Part
        do { part = try MultipartText.part(text, literal: literal, escapes: false) } catch { throw Failure(reason: "-F \(error.reason)") }
        form.append(try part.formPart(readingFile: file))
    }
}

extension CurlImport {
    /// `http:/host` and `http:///host` as `http://host`, as curl 7.88 reads them: their user
    /// information is then read as such (and its password hidden), not as a path. Four slashes
    /// or more are refused, as curl refuses them ("URL using bad/illegal format").
    static func withCurlsSlashes(_ target: String) throws(Failure) -> String {
        guard let colon = target.firstIndex(of: ":"), ["http", "https"].contains(target[..<colon].lowercased()) else { return target }
        // By bytes: a combining mark after a slash would make it a Character of its own.
        let afterColon = target[target.index(after: colon)...].utf8
        let slashes = afterColon.prefix { $0 == UInt8(ascii: "/") }.count
        if slashes >= 4 {
            throw Failure(reason: "\(URLPassword.hiding(inMistyped: target, by: { RedactionPolicy().redactText($0) }).debugDescription) is not a URL: the scheme takes two slashes, e.g. http://localhost:8080/get")
        }
        guard slashes == 1 || slashes == 3 else { return target }
        return target[..<colon] + "://" + String(decoding: afterColon.dropFirst(slashes), as: UTF8.self)
    }
}
