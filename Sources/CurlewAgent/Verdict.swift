import CurlewTransport
import Foundation

/// The outcome of a finished exchange for the request that asked for it: transport failure,
/// unacceptable status, a body its strict serializer cannot read, or success.
struct Verdict {
    var state: RequestState
    var error: RequestError?
    /// The serialized body when the serializer is strict; nil means "read lazily, it cannot fail".
    var value: ResponseValue?

    /// `acceptable`: the request's acceptable status codes, or the config's.
    init(result: TransferResult, serializer: ResponseSerializer, acceptable: Range<Int>) {
        if let failure = result.error {
            error = RequestError(failure)
            state = failure.kind == .cancelled ? .cancelled : .failed
            value = nil
            return
        }
        state = .succeeded
        error = nil
        switch Self.serialized(result.responseBody, as: serializer) {
        case .success(let serialized): value = serialized
        case .failure(let failure):
            value = nil
            fail(failure.kind, failure.message)
        }
        if !acceptable.contains(result.statusCode) {
            let reason = result.statusLine.isEmpty ? "HTTP \(result.statusCode)" : result.statusLine
            fail(.unacceptableStatus, "server answered \(reason)", code: result.statusCode)
        }
    }

    /// A body read by a serializer: the value for strict ones, nil for `.automatic` and `.data`
    /// (read lazily; they cannot fail), or the serializer's failure.
    static func serialized(_ body: Data, as serializer: ResponseSerializer) -> Result<ResponseValue?, RequestError> {
        switch serializer {
        case .automatic, .data:
            return .success(nil)
        case .text:
            guard let text = String(data: body, encoding: .utf8) else {
                return .failure(RequestError(.responseSerialization, "response body is not valid UTF-8 text"))
            }
            return .success(.text(text))
        case .json:
            if body.isEmpty { return .success(.json(.null)) }
            do {
                return .success(.json(try JSONValue.parse(body)))
            } catch {
                return .failure(RequestError(.responseSerialization, "response body is not JSON: \(error)"))
            }
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
