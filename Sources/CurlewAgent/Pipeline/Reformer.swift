import Foundation

/// Turns a successful response into a model (HLNetworking's reformer, JKNetworking's parse
/// block). It runs off the transfer thread and off the callback queue; what it returns reaches
/// `success` as `Response.reformed`. A thrown error fails the request with `reformFailed`,
/// keeping the raw response in the failure.
public struct Reformer: Sendable {
    public var name: String
    public var transform: @Sendable (Response) throws -> any Sendable

    public init(name: String, transform: @escaping @Sendable (Response) throws -> any Sendable) {
        self.name = name
        self.transform = transform
    }

    /// Decodes the body as JSON into `type`.
    public static func decoding<Model: Decodable & Sendable>(_ type: Model.Type, decoder: @escaping @Sendable () -> JSONDecoder = { JSONDecoder() }) -> Reformer {
        Reformer(name: "decode \(Model.self)") { response in
            try decoder().decode(Model.self, from: response.body)
        }
    }
}
