/// Makes a group member's request from what its chain has captured, when the member starts, in
/// place of filling the `{{name}}` left in the request's text. A source that reads templates of
/// its own (a workspace) fills the captured values where they stand, through its own encodings
/// (a query, `{{$base64 …}}`, a JSON body), so nothing has to be escaped for a second pass.
public struct CaptureFilling: Sendable {
    private let make: @Sendable (ChainVariables) throws(RequestError) -> Request

    public init(_ make: @escaping @Sendable (ChainVariables) throws(RequestError) -> Request) {
        self.make = make
    }

    /// The request with `variables` filled in.
    public func request(with variables: ChainVariables) throws(RequestError) -> Request {
        try make(variables)
    }
}
