import CurlewTransport
import Foundation

/// The outcome of a finished exchange for the request that asked for it: transport failure,
/// unacceptable status, a body its strict serializer cannot read, or success.
struct Verdict {
    var state: RequestState
    var error: RequestError?
    /// The serialized body when the serializer is strict; nil means "read lazily, it cannot fail".
    var value: ResponseValue?

    init(result: TransferResult, request: Request, acceptable: Range<Int>) {
        if let failure = result.error {
            error = RequestError(failure)
            state = failure.kind == .cancelled ? .cancelled : .failed
            value = nil
            return
        }
        state = .succeeded
        error = nil
        value = nil
        switch request.responseSerializer {
        case .automatic, .data:
            break
        case .text:
            if let text = String(data: result.responseBody, encoding: .utf8) {
                value = .text(text)
            } else {
                fail(.responseSerialization, "response body is not valid UTF-8 text")
            }
        case .json:
            if result.responseBody.isEmpty {
                value = .json(.null)
            } else {
                do {
                    value = .json(try JSONValue.parse(result.responseBody))
                } catch {
                    fail(.responseSerialization, "response body is not JSON: \(error)")
                }
            }
        }
        if !(request.acceptableStatusCodes ?? acceptable).contains(result.statusCode) {
            let reason = result.statusLine.isEmpty ? "HTTP \(result.statusCode)" : result.statusLine
            fail(.unacceptableStatus, "server answered \(reason)", code: result.statusCode)
        }
    }

    private mutating func fail(_ kind: RequestError.Kind, _ message: String, code: Int? = nil) {
        state = .failed
        error = RequestError(kind, message, code: code)
    }

    /// Reads a body the non-failing way: JSON when declared and valid, text when textual, else bytes.
    static func automaticValue(of response: Response, serializer: ResponseSerializer) -> ResponseValue {
        guard serializer == .automatic else { return .data(response.body) }
        let contentType = response.headers["Content-Type"]?.lowercased() ?? ""
        if contentType.contains("json"), let json = try? JSONValue.parse(response.body) {
            return .json(json)
        }
        let textual = contentType.hasPrefix("text/") || contentType.contains("xml") || contentType.contains("javascript")
            || contentType.contains("x-www-form-urlencoded")
        if textual, let text = response.text {
            return .text(text)
        }
        return .data(response.body)
    }
}
