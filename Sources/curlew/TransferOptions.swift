import ArgumentParser
import CurlewAgent
import CurlewSessions
import Foundation

extension HTTPVersionPreference: ExpressibleByArgument {}

/// `curlew send`'s body and file options: multipart forms, uploads from a file, downloads to a
/// file (resumable), and the HTTP version.
struct TransferOptions: ParsableArguments {
    @Option(name: [.customShort("F"), .customLong("form")], help: ArgumentHelp(
        "A multipart form part: name=value, or name=@path to stream a file, with ;type=MIME and ;filename=NAME after the path. Repeatable; makes the request a POST unless a method is given.",
        valueName: "NAME=VALUE|NAME=@PATH"))
    var form: [String] = []

    @Option(name: [.customShort("T"), .customLong("upload-file")], help: "Stream this file as the body (PUT unless a method is given).")
    var uploadFile: String?

    @Option(name: [.customShort("o"), .customLong("output")], help: "Write the response body to this file; it appears only when complete, and an interrupted download keeps what arrived.")
    var output: String?

    @Flag(name: [.customShort("C"), .customLong("resume")], help: "With --output: continue an interrupted download of the same URL instead of starting over.")
    var resume = false

    @Option(name: [.customShort("c"), .customLong("cookie-jar")], help: "Keep cookies: send those of this Netscape-format jar (when it exists) and write the jar back, owner-only, after the request.")
    var cookieJar: String?

    @Flag(name: .customLong("http1.1"), help: "Use HTTP/1.1.")
    var http1 = false

    @Flag(name: .customLong("http2"), help: "Ask for HTTP/2 (ALPN over TLS, an h2c upgrade over plain HTTP).")
    var http2 = false

    @Flag(name: .customLong("http2-prior-knowledge"), help: "Speak HTTP/2 at once, without negotiating.")
    var http2PriorKnowledge = false

    func validate() throws {
        if resume, output == nil { throw ValidationError("--resume needs --output FILE") }
        if [http1, http2, http2PriorKnowledge].filter({ $0 }).count > 1 {
            throw ValidationError("use one of --http1.1, --http2 and --http2-prior-knowledge")
        }
        if !form.isEmpty, uploadFile != nil { throw ValidationError("use either -F/--form or -T/--upload-file, not both") }
        for field in form { _ = try Self.part(field) }
        if let output, output.isEmpty { throw ValidationError("--output needs a file name") }
        if let uploadFile, uploadFile.isEmpty { throw ValidationError("--upload-file needs a file name") }
        if let cookieJar, cookieJar.isEmpty { throw ValidationError("--cookie-jar needs a file name") }
    }

    /// Whether these options carry the body (so -d and --json cannot).
    var givesBody: Bool { !form.isEmpty || uploadFile != nil }

    /// The method these options imply when none is given: POST for a form, PUT for an upload.
    var impliedMethod: HTTPMethod? {
        !form.isEmpty ? .post : uploadFile != nil ? .put : nil
    }

    /// Turns the cookie jar on when `--cookie-jar` is given.
    func apply(to config: inout NetworkConfig) {
        guard let cookieJar else { return }
        config.cookies = CookieSettings(enabled: true, jarFile: cookieJar)
    }

    func apply(to request: inout Request) throws {
        if !form.isEmpty {
            var multipart = MultipartForm()
            for field in form {
                let part = try Self.part(field)
                if case .file(let path) = part.content {
                    multipart.append(name: part.name, fileAt: path, filename: part.filename, mimeType: part.mimeType)
                } else if case .data(let data) = part.content {
                    multipart.append(name: part.name, data: data, filename: part.filename, mimeType: part.mimeType)
                }
            }
            request.form = multipart
        }
        request.uploadFile = uploadFile
        if let output {
            if !resume { Download.discardPartial(at: output) }
            request.download = Download(to: output)
        }
        if http1 { request.httpVersion = .http1_1 }
        if http2 { request.httpVersion = .http2 }
        if http2PriorKnowledge { request.httpVersion = .http2PriorKnowledge }
    }

    /// A `-F` argument as a part, read as curl reads it (`MultipartText`): `name=value[;type=…]`
    /// (a text part), `name=@path[;type=…][;filename=…]` (a file), `name=<path` (the file's text
    /// as the value).
    static func part(_ argument: String) throws -> MultipartForm.Part {
        let read: MultipartText.Part
        do { read = try MultipartText.part(argument, escapes: false) } catch { throw ValidationError("form part \(error.reason)") }
        return try read.formPart { (path: String) throws(ValidationError) -> Data in
            guard let text = FileManager.default.contents(atPath: path) else { throw ValidationError("form part \(argument.debugDescription): cannot read \(path)") }
            return text
        }
    }
}
