import CurlewAgent
import CurlewTestSupport
import Foundation
import Testing

@Suite("Response validation")
struct ValidationTests {
    @Test("status: 2xx by default, configurable per request")
    func status() async throws {
        let agent = try await pipelineAgent { $0.followRedirects = false }
        let redirect = await sendCapturing(agent, Request(.get, "/redirect/1"))
        #expect(throws: RequestFailure.self) { try redirect.result.get() }
        var allowing = Request(.get, "/redirect/1")
        allowing.acceptableStatusCodes = 200..<400
        let allowed = await sendCapturing(agent, allowing)
        #expect(try allowed.result.get().statusCode == 302)
    }

    @Test("a JSON shape mismatch is a typed error naming the path that failed")
    func jsonShape() async throws {
        let agent = try await pipelineAgent()
        var request = Request(.get, "/json")
        request.validation.jsonShape = .object(["slideshow": .object([
            "author": .string,
            "slides": .array(.object(["title": .string, "items": .optional(.array(.integer))])),
        ])])
        let outcome = await sendCapturing(agent, request)
        guard case .failure(let failure) = outcome.result else { Issue.record("expected a failure"); return }
        #expect(failure.error.kind == .validationFailed)
        #expect(failure.error.message.hasPrefix("$.slideshow.slides[1].items[0]: expected an integer, found a string"))
        #expect(failure.response?.statusCode == 200)
        #expect(outcome.message?.pipeline?.checks == ["JSON shape"])

        request.validation.jsonShape = .object(["slideshow": .object(["title": .string, "date": .string, "missing": .number])])
        let missing = await sendCapturing(agent, request)
        guard case .failure(let second) = missing.result else { Issue.record("expected a failure"); return }
        #expect(second.error.message == "$.slideshow.missing: missing, expected a number")

        request.validation.jsonShape = .object(["slideshow": .object(["slides": .array(.object(["title": .string]))])])
        #expect(try await agent.send(request).statusCode == 200)
    }

    @Test("a business validator turns an HTTP success into a failure with its code and message")
    func business() async throws {
        let agent = try await pipelineAgent {
            $0.businessValidator = BusinessValidator(name: "echoed code") { response in
                guard let json = try? response.json(), case .int(let code)? = json["json"]?["code"], code != 0 else { return nil }
                return BusinessFailure(code: Int(code), message: json["json"]?["message"]?.stringValue ?? "")
            }
        }
        var failing = Request(.post, "/anything", params: ["code": 40001, "message": "token expired"])
        failing.requestSerializer = .json
        let outcome = await sendCapturing(agent, failing)
        guard case .failure(let failure) = outcome.result else { Issue.record("expected a failure"); return }
        #expect(failure.error.kind == .businessFailure)
        #expect(failure.error.code == 40001)
        #expect(failure.error.message == "token expired")
        #expect(outcome.message?.state == .failed)
        #expect(outcome.message?.pipeline?.checks == ["echoed code"])

        var passing = Request(.post, "/anything", params: ["code": 0])
        passing.requestSerializer = .json
        #expect(try await agent.send(passing).statusCode == 200)
    }

    @Test("the codeField convention reads a top-level code")
    func codeFieldConvention() throws {
        let validator = BusinessValidator.codeField()
        let body = Data("{\"code\": 40001, \"message\": \"expired\"}".utf8)
        let response = Response(requestID: 1, statusCode: 200, statusLine: "HTTP/1.1 200 OK", httpVersion: "1.1",
                                headers: ["Content-Type": "application/json"], body: body, value: .data(body), url: "http://x/")
        #expect(validator.check(response) == BusinessFailure(code: 40001, message: "expired"))
    }

    @Test("a JSON content type can be required")
    func contentType() async throws {
        let agent = try await pipelineAgent()
        var request = Request(.get, "/bytes/16")
        request.validation.requiresJSONContentType = true
        let outcome = await sendCapturing(agent, request)
        guard case .failure(let failure) = outcome.result else { Issue.record("expected a failure"); return }
        #expect(failure.error.kind == .unexpectedContentType)
        #expect(failure.error.message.contains("application/octet-stream"))
        var json = Request(.get, "/json")
        json.validation.requiresJSONContentType = true
        #expect(try await agent.send(json).statusCode == 200)
    }
}
