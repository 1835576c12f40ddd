/// The longest request head libcurl sends: 7.88 builds one in a buffer of at most 1 MiB and
/// fails a longer one as "Out of memory", after connecting. The agent refuses a request whose
/// method, URL and headers would not fit before the network is touched; a head that grows past
/// it later (a signer's query, a redirect's location) fails as the request's, not the server's.
public enum RequestHeadLimit {
    public static let bytes = 1 << 20
    /// What a head holds besides the method, the URL and the fields: the request line's version,
    /// `Host`, and the headers libcurl adds (a `Cookie` of up to 8,190 bytes among them, an
    /// `Authorization` made from the URL's user and password).
    public static let headRoom = 16 << 10
    /// The most the method, the URL and the fields may take together.
    public static let available = bytes - headRoom

    /// The bytes `fields` take in a request head (`Name: value` and CRLF each).
    public static func size(of fields: some Sequence<HeaderField>) -> Int {
        fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
    }
}
