import Foundation

/// What a signer sees: the request as it will be sent.
public struct SigningInput: Sendable {
    public var method: String
    /// The full URL, query included.
    public var url: String
    public var headers: [HeaderField]
    public var body: Data

    /// The URL's path and query, as the server's request line shows them.
    public var target: String {
        guard url.contains("://") else { return url }
        let target = URLText.afterAuthority(url).prefix { $0 != "#" }
        guard !target.isEmpty else { return "/" }
        return target.hasPrefix("?") ? "/" + target : String(target)
    }
}

/// What a signer adds: headers (replacing any of the same name) and query parameters.
public struct SigningOutput: Sendable {
    public var headers: [HeaderField]
    public var queryParams: Parameters

    public init(headers: [HeaderField] = [], queryParams: Parameters = [:]) {
        self.headers = headers
        self.queryParams = queryParams
    }
}

/// Signs requests (JKNetworking's signing rules). Register signers by name in
/// `NetworkConfig.signers`; a request names the one it needs in `Request.signer`. A signer runs
/// last, on the final method, URL, headers and body bytes, and again for each retry.
public protocol RequestSigner: Sendable {
    func sign(_ input: SigningInput) throws -> SigningOutput
}
