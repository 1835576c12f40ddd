/// A failure found in a successful HTTP response's body (JKNetworking's business validation):
/// `{"code": 40001, "msg": "token expired"}` under a 200.
public struct BusinessFailure: Sendable, Equatable {
    public var code: Int
    public var message: String

    public init(code: Int, message: String) {
        self.code = code
        self.message = message
    }
}

/// Turns an HTTP success into a failure from the body. Return nil for success.
public struct BusinessValidator: Sendable {
    public var name: String
    public var check: @Sendable (Response) -> BusinessFailure?

    public init(name: String, check: @escaping @Sendable (Response) -> BusinessFailure?) {
        self.name = name
        self.check = check
    }

    /// The common convention: a JSON body whose integer member `codeField` must be one of
    /// `successCodes`; otherwise the failure carries that code and the `messageField` text.
    /// A body that is not a JSON object, or has no such member, passes.
    public static func codeField(_ codeField: String = "code", successCodes: Set<Int> = [0, 200], messageField: String = "message") -> BusinessValidator {
        BusinessValidator(name: "business code \(codeField)") { response in
            guard let json = try? response.json(), case .int(let code)? = json[codeField], !successCodes.contains(Int(code)) else { return nil }
            return BusinessFailure(code: Int(code), message: json[messageField]?.stringValue ?? "business failure \(code)")
        }
    }
}

/// The checks a response passes after its status (validation beyond `acceptableStatusCodes`).
public struct ResponseValidation: Sendable {
    /// The body must be JSON of this shape.
    public var jsonShape: JSONShape?
    /// The response must declare a JSON content type (`application/json`, `+json`).
    public var requiresJSONContentType: Bool
    /// Runs after the status and shape checks pass.
    public var business: BusinessValidator?
    /// A chain step's captures, checked last: each must find its value in the response, or the
    /// request fails with `captureFailed` (its debug message and the session log say so).
    public var captures: [Capture] = []

    public init(jsonShape: JSONShape? = nil, requiresJSONContentType: Bool = false, business: BusinessValidator? = nil) {
        self.jsonShape = jsonShape
        self.requiresJSONContentType = requiresJSONContentType
        self.business = business
    }

    var isEmpty: Bool { jsonShape == nil && !requiresJSONContentType && business == nil && captures.isEmpty }

    /// Runs the checks in order: content type, shape, business, captures. Returns the names of the checks
    /// that ran, the first failure, and the values the captures found (those before a capture
    /// that failed, too): a chain keeps these, and reads the response for them no more.
    func run(on response: Response) -> (checks: [String], failure: RequestError?, captured: [CapturedValue]) {
        let (ranChecks, failure) = runChecks(on: response)
        guard failure == nil, !captures.isEmpty else { return (ranChecks, failure, []) }
        var checks = ranChecks
        let found = Capture.extract(captures, from: response)
        // Named as checks up to the one that failed.
        checks += captures.prefix(found.captured.count + (found.failure == nil ? 0 : 1)).map { "capture \($0.name)" }
        return (checks, found.failure, found.captured)
    }

    /// The checks before the captures.
    private func runChecks(on response: Response) -> (checks: [String], failure: RequestError?) {
        var checks: [String] = []
        if requiresJSONContentType {
            checks.append("content type")
            let type = (response.headers["Content-Type"] ?? "").lowercased()
            guard MIMEType.isJSON(type) else {
                return (checks, RequestError(.unexpectedContentType, "expected a JSON content type, got \(type.isEmpty ? "none" : type.debugDescription)"))
            }
        }
        if let jsonShape {
            checks.append("JSON shape")
            do {
                try jsonShape.validate(try response.json())
            } catch let error as RequestError {
                return (checks, error)
            } catch {
                return (checks, RequestError(.validationFailed, "$: the body is not JSON: \(error)"))
            }
        }
        if let business {
            checks.append(business.name)
            if let failure = business.check(response) {
                return (checks, RequestError(.businessFailure, failure.message, code: failure.code))
            }
        }
        return (checks, nil)
    }
}
